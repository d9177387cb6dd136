"""One tolerant parser for TensorFlow logs, tracebacks and pasted console sessions.

Every message is found by a pattern that starts with a literal, run over the whole text at once (the
regex engine's literal scan is fast: a 10 MB log takes well under a second), and mapped back to its line
number. Nothing is anchored to the start of a line, so prefixes in real pastes (timestamps, `client_2  |`,
pytest's `E   `, Markdown `> ` quotes and backticks, progress bars glued on with `\\r`) do not matter, and
multi-word phrases allow a line break where a paste wrapped them. Patterns use no nested repetition, and
each kind keeps at most MAX_PER_KIND events, so the work stays linear in the input.

Formats covered: TF 1.x-2.16 (`stream_executor/platform/default/dso_loader.cc`, from 2.10
`compiler/xla/stream_executor/...`, from 2.12 `tsl/...`, from 2.15 `external/local_xla/...`), Linux sonames
and Windows `*64_*.dll` names, "x.dll not found", "Error code 126", `ImportError: DLL load failed`, the
driver diagnostics TF prints after a failed cuInit, nvidia-smi's header, pip's resolver errors.
"""

import bisect
import re
from typing import NamedTuple

MAX_PER_KIND = 200
# A needle found on more lines than this is noise for this purpose (a log repeating one message): the first
# ones are read, the rest skipped, so that no input makes the parser slow.
MAX_LINES_PER_NEEDLE = 5000
MAX_QUOTE = 240  # characters of a line quoted as evidence

_QUOTES = (("\u2018", "'"), ("\u2019", "'"), ("\u201a", "'"), ("\u201b", "'"), ("\u201c", '"'),
           ("\u201d", '"'), ("\u201e", '"'), ("\u00a0", " "), ("\u2011", "-"),
           ("&quot;", '"'), ("&#39;", "'"), ("&#x27;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"), ("\x00", ""))
_FANCY = re.compile("[\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00a0\u2011\x00]|&(?:quot|#39|#x27|lt|gt|amp);")
_ANSI = re.compile(r"\x1b\[[0-9;]{0,20}[A-Za-z]")
# A paste's own prefixes, removed from quoted lines only: Markdown quotes, compose service names, pytest's E.
_PREFIX = re.compile(r"^(?:\s*>+\s?|\s*`+|[\w.-]{1,60}\s+\|\s|E\s{3})+|`+\s*$")


class Event(NamedTuple):
    kind: str
    line: int  # 1-based line number in the input
    groups: tuple


_META = re.compile(r"[\\.^$*+?{}\[\]|()]")


def _p(pattern, *needles, **options):
    """A pattern and the literals one of which its line must contain (default: the pattern's literal start).
    The text is scanned for needles with str.find and the pattern runs on those lines only; span=True lets a
    match run on into the next line (a paste that wrapped the message)."""
    if not needles:
        literal = pattern[: _META.search(pattern).start()] if _META.search(pattern) else pattern
        if len(literal) < 4:
            raise ValueError("name the needles of " + pattern)
        needles = (literal,)
    return re.compile(pattern), needles, bool(options.get("span"))


_CI = ("hostedtoolcache", "##[error]", "/home/runner/work/", "/home/travis/")
# Where a TF version follows the name: "tensorflow-2.4.1.dist-info", "tensorflow==2.9", "TensorFlow version: 2.12.0"
_TF_NEEDLES = ("low-", "low=", "low_", "low (", "low v", "low V", "low 1.", "low 2.")  # tensorflow, TensorFlow
_TF_VERSION = r"(?:==|-| \(| [Vv]ersion:? | v| )(\d\.\d{1,2}(?:\.\d{1,2})?(?:rc\d)?)\b"

# (kind, pattern). Groups are kept per event; see Log for what each kind's groups mean.
PATTERNS = [
    # library loading
    ("load_fail", _p(r"Could not (?:load dynamic|dlopen)\s+library\s+'([^'\s]{1,200})'"
                     r"(?:;\s*dlerror:\s*([^\n]{0,2000}))?", "Could not load dynamic", "Could not dlopen", span=True)),
    ("load_fail", _p(r"Could not find '([\w.-]{1,100}\.dll)'")),
    ("load_fail", _p(r"Could not find the DLL\(s\) '([^'\n]{1,200})'")),
    ("load_fail", _p(r"Could not locate (\w{1,60}\.dll)")),
    ("load_fail", _p(r"Could not load library (\w{1,60}\.(?:dll|so[\d.]*))")),
    ("load_fail", _p(r"Couldn't open CUDA library ([\w.+-]{1,100}?)\.? ")),
    ("load_fail", _p(r"Unable to load ([\w.-]{1,100}\.dll)")),
    ("so_missing", _p(r"(lib[\w+-]{1,60}\.so(?:\.[\d]{1,6}){0,4}): cannot open shared object file",
                      'cannot open shared object file')),
    ("dll_missing", _p(r"([\w-]{1,60}\.dll) (?:not found|was not found|is missing)",
                       '.dll not found', '.dll was not found', '.dll is missing')),
    ("win_error_126", _p(r"(?:[Ee]rror code|WinError) 126", 'rror code 126', 'WinError 126')),
    ("dll_load_failed", _p(r"DLL load failed(?: while importing (\w{1,80}))?:\s*([^\n]{0,300})")),
    ("native_runtime", _p(r"Failed to load the native TensorFlow runtime")),
    ("opened", _p(r"[Ss]uccessfully opened (?:dynamic|CUDA) library ([\w.+-]{1,100})", 'uccessfully opened')),
    ("cannot_dlopen", _p(r"Cannot dlopen some GPU libraries")),
    ("trt_missing", _p(r"(Could not find TensorRT|Cannot dlopen some TensorRT libraries)", "TensorRT")),
    ("skipping", _p(r"Skipping registering GPU devices")),
    ("cudart_stub", _p(r"Ignore above cudart dlerror")),
    # TF 2.14+ says this instead of naming libcuda.so.1 when no driver is installed
    ("no_cuda_drivers", _p(r"Could not find cuda drivers on your machine")),
    # the driver
    ("cuinit", _p(r"failed call to cuInit:\s*([^\n]{0,300})")),
    ("no_driver_running", _p(r"kernel driver does not appear to be running on this host \(([^)\n]{0,100})\)"
                             r"(?::\s*([^\n]{0,200}))?")),
    ("dev_missing", _p(r"(/dev/nvidia\d*|/dev/dxg) does not exist", 'does not exist')),
    ("diag_host", _p(r"retrieving CUDA diagnostic information for host: (\S{1,100})")),
    ("libcuda_version", _p(r"libcuda reported version is:\s*([^\n]{0,120})")),
    ("kernel_version", _p(r"kernel reported version is:\s*([^\n]{0,120})")),
    ("kernel_dso_mismatch", _p(r"kernel version ([\d.]{1,20}) does not match DSO version ([\d.]{1,20})")),
    ("nvrm", _p(r"NVRM version: NVIDIA UNIX \S+ Kernel Module\s+([\d.]{1,20})")),
    ("nvml_mismatch", _p(r"Driver/library version mismatch")),
    ("nvrm_api_mismatch", _p(r"API mismatch: the client has the version ([\d.]{1,20}), but\s+(?:NVRM:\s+)?"
                             r"this kernel module has the version ([\d.]{1,20})", "API mismatch", span=True)),
    ("nvml_failed", _p(r"Failed to initialize NVML:\s*([^\n]{0,200})")),
    ("smi_no_driver", _p(r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")),
    ("smi_header", _p(r"Driver Version:\s*([\d.]{1,20})(?:\s+CUDA Version:\s*([\d.]{1,10}))?", 'Driver Version:')),
    ("insufficient_driver", _p(r"CUDA driver version is insufficient for CUDA runtime version")),
    ("insufficient_driver", _p(r"(cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER)",
                               'cudaErrorInsufficientDriver', 'CUDA_ERROR_INSUFFICIENT_DRIVER')),
    ("compat_not_supported", _p(r"(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE|forward compatibility was attempted)",
                                'CUDA_ERROR_COMPAT_NOT_SUPPORTED', 'forward compatibility was attempted')),
    ("system_driver_mismatch", _p(r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")),
    ("cuda_error", _p(r"(CUDA_ERROR_[A-Z_]{2,60})", 'CUDA_ERROR_')),
    ("cuda_error", _p(r"(cudaError[A-Z]\w{2,60})", 'cudaError')),
    ("linux_driver_pkg", _p(r"(nvidia-driver-\d{3}\S{0,20}|cuda-drivers\S{0,20}|nvidia-dkms-\d{3}|"
                            r"NVIDIA-Linux-x86_64-[\d.]{3,20}\.run)",
                            'nvidia-driver-', 'cuda-drivers', 'nvidia-dkms-', 'NVIDIA-Linux-x86_64')),
    ("win32_app", _p(r"is not a valid Win32 application")),
    ("gpu_access_blocked", _p(r"GPU access blocked by the operating system")),
    # the GPU
    ("device", _p(r"name: ([^\n]{1,80}?) computeCapability: (\d{1,2}\.\d)", 'computeCapability')),
    ("device", _p(r"name: ([^\n,]{1,80}?), pci bus id: [^\n,]{1,40}, compute capability: (\d{1,2}\.\d)",
                  'compute capability:')),
    ("device_old", _p(r"name: ([^\n]{1,80}?) major: (\d{1,2}) minor: (\d)", ' major: ')),
    ("found_device", _p(r"Found device \d+ with properties")),
    ("created_device", _p(r"Created (?:TensorFlow|device) [^\n]{0,80}device:GPU:\d", 'device:GPU:')),
    ("ptx_jit", _p(r"not built with CUDA kernel binaries compatible with compute capability (\d{1,2}\.\d)")),
    ("no_kernel_image", _p(r"(no kernel image is available for execution on the device|device kernel image is invalid)",
                           'kernel image')),
    ("gpu_none", _p(r"(GPU is NOT AVAILABLE|GPU (?:is )?not available|Num GPUs Available:?\s*0\b|"
                    r"No GPU (?:found|detected))",
                    'GPU is NOT', 'GPU not available', 'GPU is not available', 'GPUs Available', 'No GPU ')),
    ("gpu_none", _p(r"list_physical_devices\(['\"]GPU['\"]\)\)?\s*\n(?:>>> )?\[\]", "list_physical_devices(",
                    span=True)),
    ("ci", _p(r"(/opt/hostedtoolcache|##\[error\]|/home/runner/work/|/home/travis/)", *_CI)),
    ("gpus_available", _p(r"Num GPUs Available:?\s*(\d+)", 'GPUs Available')),
    # cuDNN
    ("cudnn_mismatch", _p(r"Loaded runtime CuDNN library: ([\d.]{1,20})[^\n]{0,60}? but source was compiled with: "
                          r"([\d.]*\d)")),
    ("cudnn_status", _p(r"(CUDNN_STATUS_[A-Z_]{2,40})", 'CUDNN_STATUS_')),
    ("cudnn_handle", _p(r"Could not create cudnn handle")),
    # cuBLAS failing to start has the same cause as cuDNN's handle: no GPU memory left for its workspace
    ("cublas_init", _p(r"(CUBLAS_STATUS_(?:NOT_INITIALIZED|ALLOC_FAILED)|failed to create cublas handle|"
                       r"Blas GEMM launch failed|Blas xGEMM launch failed)", "CUBLAS_STATUS_", "cublas handle",
                       "Blas GEMM launch", "Blas xGEMM launch")),
    ("cudnn_conv", _p(r"Failed to get convolution algorithm")),
    ("cudnn_loaded", _p(r"Loaded cuDNN version (\d{3,5})")),
    ("dnn_not_found", _p(r"DNN library is not found")),
    ("dnn_impl", _p(r"Fail(?:ed)? to find the dnn implementation", 'to find the dnn')),
    # XLA
    ("libdevice", _p(r"(libdevice not found at [^\n]{0,200}|Can't find libdevice directory[^\n]{0,200}|"
                     r"[Cc]ould not find libdevice[^\n]{0,200}|Unable to find libdevice[^\n]{0,200}|"
                     r"libdevice\.10\.bc[^\n]{0,120})", 'libdevice')),
    ("ptxas", _p(r"((?:Couldn't|Can't|Could not|Failed to) (?:invoke|find|get) ptxas[^\n]{0,200}|"
                 r"ptxas (?:exited|returned|fatal)[^\n]{0,200}|ptxas[^\n]{0,20} not found[^\n]{0,100})", 'ptxas')),
    ("ptxas_arch", _p(r"Value '(sm_\d{2,3})' is not defined for option 'gpu-name'",
                      "is not defined for option 'gpu-name'")),
    # Python packages
    ("numpy2", _p(r"compiled using NumPy 1\.x cannot be run in\s+NumPy 2", span=True)),
    ("numpy_abi", _p(r"(_ARRAY_API not found|numpy\.core\.multiarray failed to import|"
                     r"numpy\.dtype size changed|Unable to convert function return value to a Python type)",
                     '_ARRAY_API', 'numpy.core.multiarray', 'numpy.dtype size',
                     'Unable to convert function return value')),
    ("numpy_symbolic", _p(r"Cannot convert a symbolic Tensor \([^\n]{0,120}\) to a numpy array",
                          'Cannot convert a symbolic Tensor')),
    ("numpy_alias", _p(r"module 'numpy' has no attribute '(object|bool|int|float|str|complex)'")),
    ("protobuf", _p(r"Descriptors cannot (?:not )?be created directly", 'Descriptors cannot')),
    ("protobuf", _p(r"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")),
    ("pip_no_version", _p(r"(?:Could not find a version that satisfies the requirement|"
                          r"No matching distribution found for) (tensorflow[\w-]{0,12}(?:[=<>~!]=?[\d.*]{1,12})?)",
                          'Could not find a version', 'No matching distribution')),
    ("not_supported_wheel", _p(r"(tensorflow[\w.-]{0,80}\.whl) is not a supported wheel", 'is not a supported wheel')),
    # the CPU
    ("illegal_instruction", _p(r"Illegal instruction")),
    # STATUS_ILLEGAL_INSTRUCTION as Windows and Python print it: hex, signed and unsigned decimal
    ("illegal_instruction", _p(r"(0xC000001D|-1073741795|3221225501)", "0xC000001D", "0xc000001d", "-1073741795",
                               "3221225501")),
    ("avx_missing", _p(r"compiled to use AVX instructions, but these aren't available")),
    ("dll_init_failed", _p(r"(?:DLL\)|dynamic link library) initialization routine failed",
                           'initialization routine failed')),
    # memory
    ("oom", _p(r"(OOM when allocating tensor[^\n]{0,160}|ResourceExhaustedError|ran out of memory trying to "
               r"allocate [^\n]{0,40}|CUDA_ERROR_OUT_OF_MEMORY|failed to allocate [\d.]{1,10} ?[KMG]?i?B[^\n]{0,80}"
               r"|Resource exhausted: [^\n]{0,120})",
               'OOM when', 'ResourceExhausted', 'ran out of memory', 'OUT_OF_MEMORY', 'failed to allocate',
               'Resource exhausted')),
    # context: platform, versions
    ("win_path", _p(r"(?<![\w/])([A-Za-z]:\\\\?[^\n\"'<>|]{1,200})", ':\\')),
    ("dll_name", _p(r"([A-Za-z]\w{1,40}\.dll)\b", '.dll', '.DLL')),
    ("so_name", _p(r"(lib\w{1,40}\.so\.\d[\d.]{0,10})", '.so.')),
    ("kernel_wsl1", _p(r"(\d+\.\d+\.\d+-\d+-Microsoft)", '-Microsoft')),
    ("kernel_wsl2", _p(r"([\d.]+-microsoft-standard[\w-]*)", '-microsoft-standard')),
    ("wsl_lib", _p(r"/usr/lib/wsl/(?:lib|drivers)")),
    # `wsl -l -v`: "* Ubuntu-20.04    Running    1" (the last column is the WSL version)
    ("wsl_list", _p(r"(?m)^\s*\*?\s*[\w.-]{1,60}\s+(?:Running|Stopped|Installing|Converting)\s+([12])\s*$",
                    "Running", "Stopped")),
    # Inside WSL: Windows drives under /mnt, or Windows' default host names in the prompt
    ("wsl_hint", _p(r"(/mnt/[c-h]/(?:Users|Program Files|Windows)|@(?:DESKTOP|LAPTOP)-[A-Z0-9]{6,8}\b)",
                    "/mnt/", "@DESKTOP-", "@LAPTOP-")),
    ("wsl_word", _p(r"(WSL ?2|WSL ?1|\bwsl\.exe|Windows Subsystem for Linux)",
                    'WSL', 'wsl.exe', 'Windows Subsystem for Linux')),
    ("dev_dxg", _p(r"/dev/dxg")),
    ("docker", _p(r"(docker run[^\n]{0,200}|nvidia-docker[^\n]{0,100}|/\.dockerenv|--runtime=nvidia|--gpus)",
                  'docker run', 'nvidia-docker', '/.dockerenv', '--runtime=nvidia', '--gpus')),
    ("compose_prefix", _p(r"(?m)^([\w.-]{1,60}_\d{1,3})\s+\|", ' | ', ' |\t')),
    ("store_python", _p(r"(PythonSoftwareFoundation\.Python\.3\.\d+|WindowsApps\\python|LocalCache\\local-packages)",
                        'PythonSoftwareFoundation', 'WindowsApps\\python', 'LocalCache\\local-packages')),
    ("python_path", _p(r"[/\\](?:python|Python|lib/python)(3\.?\d{1,2})[/\\]",
                       'ython3')),
    ("python_banner", _p(r"Python (3\.\d{1,2})\.\d{1,2}[ \n]", 'Python 3.')),
    ("tf_version", _p(r"(?:tensorflow|TensorFlow|Tensor Flow)(?:[-_]gpu|[-_]cpu|[-_]intel)?" + _TF_VERSION,
                      *_TF_NEEDLES)),
    ("tf_version", _p(r"tf\.__version__[^\n]{0,10}?\n?[^\n]{0,10}?'?(\d\.\d{1,2}\.\d{1,2})\b", "__version__",
                      span=True)),
    # `pip show tensorflow`: "Name: tensorflow" then "Version: 2.12.0"
    ("tf_version", _p(r"Name: tensorflow[\w-]{0,12}\s*\n[^\n]{0,8}Version: (\d\.\d{1,2}(?:\.\d{1,2})?)\b",
                      span=True)),
    ("tf_intel", _p(r"tensorflow[-_]intel", 'tensorflow-intel', 'tensorflow_intel')),
    ("tf_core", _p(r"tensorflow_core[/\\]")),
    ("dso_loader", _p(r"(tensorflow/stream_executor|tensorflow/compiler/xla/stream_executor|tensorflow/tsl|"
                      r"external/local_xla|external/local_tsl)/platform/default/dso_loader\.cc:(\d+)",
                      'dso_loader.cc:')),
]
KINDS = sorted({kind for kind, _ in PATTERNS})


class Log:
    """What a log says: events by kind, each with its line number, and the text to quote them."""

    def __init__(self, text):
        self.text = text
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self.line_count = len(self._newlines) + (0 if text.endswith("\n") or not text else 1)
        self.events = {}

    def all(self, kind):
        return self.events.get(kind, [])

    def first(self, kind):
        found = self.events.get(kind)
        return found[0] if found else None

    def has(self, *kinds):
        return any(self.events.get(k) for k in kinds)

    def line_text(self, number):
        """The line, without a paste's prefixes, cut to what follows the last carriage return."""
        start = self._newlines[number - 2] + 1 if number >= 2 else 0
        end = self._newlines[number - 1] if number - 1 < len(self._newlines) else len(self.text)
        line = self.text[start:end].rstrip("\r")
        if "\r" in line:
            line = line.rsplit("\r", 1)[-1]
        if "\x1b" in line:  # colours of a terminal or a notebook
            line = _ANSI.sub("", line)
        line = _PREFIX.sub("", line).strip()
        return line if len(line) <= MAX_QUOTE else line[: MAX_QUOTE - 3] + "..."

    def _line_at(self, offset):
        return bisect.bisect_left(self._newlines, offset) + 1

    # --- what several rules ask -------------------------------------------------------------------

    def failed_libraries(self):
        """Libraries TF could not load, first failure first, each once: [(name, Event)]."""
        seen, out = set(), []
        for kind in ("load_fail", "so_missing", "dll_missing"):
            for ev in self.all(kind):
                for name in _split_names(ev.groups[0]):
                    key = name.lower()
                    if key not in seen:
                        seen.add(key)
                        out.append((name, ev))
        out.sort(key=lambda item: item[1].line)
        return out

    def opened_libraries(self):
        return _unique(ev.groups[0] for ev in self.all("opened"))


def parse(text):
    """Every known message in `text` (a str), as a Log."""
    text = normalise(text)
    log = Log(text)
    index = _LineIndex(text)
    for kind, (pattern, needles, span) in PATTERNS:
        found = log.events.setdefault(kind, [])
        if len(found) >= MAX_PER_KIND:
            continue
        for m in _on_lines(text, pattern, index.lines(needles), span):
            groups = tuple(_clean(g) for g in m.groups())
            found.append(Event(kind, log._line_at(m.start()), groups))
            if len(found) >= MAX_PER_KIND:
                break
    for kind in list(log.events):
        if not log.events[kind]:
            del log.events[kind]
        elif len(PATTERNS_BY_KIND[kind]) > 1:
            log.events[kind].sort(key=lambda ev: ev.line)
    _drop_dlerror_duplicates(log)
    return log


class _LineIndex:
    """(start, end) offsets of the lines that hold a literal, computed once per literal."""

    def __init__(self, text):
        self.text = text
        self._cache = {}

    def _scan(self, literal):
        if literal not in self._cache:
            text, lines = self.text, []
            pos = text.find(literal)
            while pos >= 0 and len(lines) < MAX_LINES_PER_NEEDLE:
                start = text.rfind("\n", 0, pos) + 1
                end = text.find("\n", pos)
                end = len(text) if end < 0 else end
                lines.append((start, end))
                pos = text.find(literal, end)
            self._cache[literal] = lines
        return self._cache[literal]

    def lines(self, needles):
        if len(needles) == 1:
            return self._scan(needles[0])
        found = set()
        for needle in needles:
            found.update(self._scan(needle))
        return sorted(found)


def _on_lines(text, pattern, lines, span):
    """Matches starting on each of `lines`, in text order; with span a match may run into the next line."""
    for start, end in lines:
        stop = end
        if span and end < len(text):
            stop = text.find("\n", end + 1)
            stop = len(text) if stop < 0 else stop
        for m in pattern.finditer(text, start, stop):
            if m.start() > end:
                break
            yield m


PATTERNS_BY_KIND = {}
for _kind, _pattern in PATTERNS:  # noqa: B007
    PATTERNS_BY_KIND.setdefault(_kind, []).append(_pattern)


def normalise(text):
    """Typographic quotes, non-breaking spaces and HTML entities as plain ASCII (one scan when there are none)."""
    if _FANCY.search(text) is None:
        return text
    for fancy, plain in _QUOTES:
        if fancy in text:
            text = text.replace(fancy, plain)
    return text


def split_dlerror(dlerror):
    """(dlerror, LD_LIBRARY_PATH) from the tail of a load failure line."""
    if not dlerror:
        return None, None
    why, _, ldpath = dlerror.partition("; LD_LIBRARY_PATH:")
    return (_clean(why) or None), (_clean(ldpath) or None)


def _clean(value):
    if value is None:
        return None
    return value.strip().rstrip("`\"'").strip()


def _split_names(value):
    """"'msvcp140.dll', 'msvcp140_1.dll'" style lists in one message, as names."""
    return [n.strip(" '\"") for n in re.split(r",| or ", value) if n.strip(" '\"")]


def _unique(items):
    seen, out = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _drop_dlerror_duplicates(log):
    """`libX.so: cannot open shared object file` inside a load_fail line is the same failure, not a second one."""
    fail_lines = {ev.line for ev in log.all("load_fail")}
    fail_lines |= {ev.line + 1 for ev in log.all("load_fail")}  # a wrapped dlerror
    for kind in ("so_missing", "dll_missing"):
        kept = [ev for ev in log.all(kind) if ev.line not in fail_lines]
        if kept:
            log.events[kind] = kept
        else:
            log.events.pop(kind, None)
