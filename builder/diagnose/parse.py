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
MAX_QUOTE = 240  # characters of a line quoted as evidence

_QUOTES = (("\u2018", "'"), ("\u2019", "'"), ("\u201a", "'"), ("\u201b", "'"), ("\u201c", '"'),
           ("\u201d", '"'), ("\u201e", '"'), ("\u00a0", " "), ("\u2011", "-"),
           ("&quot;", '"'), ("&#39;", "'"), ("&#x27;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))
# A paste's own prefixes, removed from quoted lines only: Markdown quotes, compose service names, pytest's E.
_PREFIX = re.compile(r"^(?:\s*>)+\s?|^[\w.-]+\s+\|\s|^E\s{3}|^\s*`+|`+\s*$")


class Event(NamedTuple):
    kind: str
    line: int  # 1-based line number in the input
    groups: tuple


def _p(pattern):
    return re.compile(pattern)


# (kind, pattern). Groups are kept per event; see Log for what each kind's groups mean.
PATTERNS = [
    # library loading
    ("load_fail", _p(r"Could not (?:load dynamic|dlopen)\s+library\s+'([^'\s]{1,200})'(?:;\s*dlerror:\s*([^\n]{0,2000}))?")),
    ("load_fail", _p(r"Could not find '([\w.-]{1,100}\.dll)'")),
    ("load_fail", _p(r"Could not find the DLL\(s\) '([^'\n]{1,200})'")),
    ("load_fail", _p(r"Could not locate (\w{1,60}\.dll)")),
    ("load_fail", _p(r"Could not load library (\w{1,60}\.(?:dll|so[\d.]*))")),
    ("load_fail", _p(r"Couldn't open CUDA library ([\w.+-]{1,100}?)\.? ")),
    ("load_fail", _p(r"Unable to load ([\w.-]{1,100}\.dll)")),
    ("so_missing", _p(r"(lib[\w+-]{1,60}\.so(?:\.[\d]{1,6}){0,4}): cannot open shared object file")),
    ("dll_missing", _p(r"([\w-]{1,60}\.dll) (?:not found|was not found|is missing)")),
    ("win_error_126", _p(r"(?:[Ee]rror code|WinError) 126")),
    ("dll_load_failed", _p(r"DLL load failed(?: while importing (\w{1,80}))?:\s*([^\n]{0,300})")),
    ("native_runtime", _p(r"Failed to load the native TensorFlow runtime")),
    ("opened", _p(r"[Ss]uccessfully opened (?:dynamic|CUDA) library ([\w.+-]{1,100})")),
    ("cannot_dlopen", _p(r"Cannot dlopen some GPU libraries")),
    ("skipping", _p(r"Skipping registering GPU devices")),
    ("cudart_stub", _p(r"Ignore above cudart dlerror")),
    # the driver
    ("cuinit", _p(r"failed call to cuInit:\s*([^\n]{0,300})")),
    ("no_driver_running", _p(r"kernel driver does not appear to be running on this host \(([^)\n]{0,100})\)(?::\s*([^\n]{0,200}))?")),
    ("dev_missing", _p(r"(/dev/nvidia\d*|/dev/dxg) does not exist")),
    ("diag_host", _p(r"retrieving CUDA diagnostic information for host: (\S{1,100})")),
    ("libcuda_version", _p(r"libcuda reported version is:\s*([^\n]{0,120})")),
    ("kernel_version", _p(r"kernel reported version is:\s*([^\n]{0,120})")),
    ("kernel_dso_mismatch", _p(r"kernel version ([\d.]{1,20}) does not match DSO version ([\d.]{1,20})")),
    ("nvrm", _p(r"NVRM version: NVIDIA UNIX \S+ Kernel Module\s+([\d.]{1,20})")),
    ("nvml_mismatch", _p(r"Driver/library version mismatch")),
    ("nvml_failed", _p(r"Failed to initialize NVML:\s*([^\n]{0,200})")),
    ("smi_no_driver", _p(r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")),
    ("smi_header", _p(r"Driver Version:\s*([\d.]{1,20})(?:\s+CUDA Version:\s*([\d.]{1,10}))?")),
    ("insufficient_driver", _p(r"CUDA driver version is insufficient for CUDA runtime version")),
    ("insufficient_driver", _p(r"(cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER)")),
    ("compat_not_supported", _p(r"(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE|forward compatibility was attempted)")),
    ("system_driver_mismatch", _p(r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")),
    ("cuda_error", _p(r"(CUDA_ERROR_[A-Z_]{2,60})")),
    ("cuda_error", _p(r"(cudaError[A-Z]\w{2,60})")),
    ("linux_driver_pkg", _p(r"(nvidia-driver-\d{3}\S{0,20}|cuda-drivers\S{0,20}|nvidia-dkms-\d{3}|NVIDIA-Linux-x86_64-[\d.]{3,20}\.run)")),
    ("win32_app", _p(r"is not a valid Win32 application")),
    ("gpu_access_blocked", _p(r"GPU access blocked by the operating system")),
    # the GPU
    ("device", _p(r"name: ([^\n]{1,80}?) computeCapability: (\d{1,2}\.\d)")),
    ("device", _p(r"name: ([^\n,]{1,80}?), pci bus id: [^\n,]{1,40}, compute capability: (\d{1,2}\.\d)")),
    ("device_old", _p(r"name: ([^\n]{1,80}?) major: (\d{1,2}) minor: (\d)")),
    ("found_device", _p(r"Found device \d+ with properties")),
    ("created_device", _p(r"Created (?:TensorFlow|device) [^\n]{0,80}device:GPU:\d")),
    ("ptx_jit", _p(r"not built with CUDA kernel binaries compatible with compute capability (\d{1,2}\.\d)")),
    ("no_kernel_image", _p(r"(no kernel image is available for execution on the device|device kernel image is invalid)")),
    ("gpu_none", _p(r"(GPU is NOT AVAILABLE|GPU (?:is )?not available|Num GPUs Available:?\s*0\b|No GPU (?:found|detected))")),
    ("ci", _p(r"(/opt/hostedtoolcache|##\[error\]|GITHUB_ACTIONS|/home/runner/work/|/home/travis/|CIRCLECI|gitlab-runner)")),
    ("gpus_available", _p(r"Num GPUs Available:?\s*(\d+)")),
    # cuDNN
    ("cudnn_mismatch", _p(r"Loaded runtime CuDNN library: ([\d.]{1,20})[^\n]{0,60}? but source was compiled with: ([\d.]*\d)")),
    ("cudnn_status", _p(r"(CUDNN_STATUS_[A-Z_]{2,40})")),
    ("cudnn_handle", _p(r"Could not create cudnn handle")),
    ("cudnn_conv", _p(r"Failed to get convolution algorithm")),
    ("cudnn_loaded", _p(r"Loaded cuDNN version (\d{3,5})")),
    ("dnn_not_found", _p(r"DNN library is not found")),
    ("dnn_impl", _p(r"Fail(?:ed)? to find the dnn implementation")),
    # XLA
    ("libdevice", _p(r"(libdevice not found at [^\n]{0,200}|Can't find libdevice directory[^\n]{0,200}|"
                     r"[Cc]ould not find libdevice[^\n]{0,200}|libdevice\.10\.bc[^\n]{0,120})")),
    ("ptxas", _p(r"((?:Couldn't|Can't|Could not|Failed to) (?:invoke|find|get) ptxas[^\n]{0,200}|"
                 r"ptxas (?:exited|returned|fatal)[^\n]{0,200}|ptxas[^\n]{0,20} not found[^\n]{0,100})")),
    ("ptxas_arch", _p(r"Value '(sm_\d{2,3})' is not defined for option 'gpu-name'")),
    ("xla_flags", _p(r"--xla_gpu_cuda_data_dir")),
    # Python packages
    ("numpy2", _p(r"compiled using NumPy 1\.x cannot be run in\s+NumPy 2")),
    ("numpy_abi", _p(r"(_ARRAY_API not found|numpy\.core\.multiarray failed to import|"
                     r"numpy\.dtype size changed|Unable to convert function return value to a Python type)")),
    ("numpy_symbolic", _p(r"Cannot convert a symbolic Tensor \([^\n]{0,120}\) to a numpy array")),
    ("numpy_alias", _p(r"module 'numpy' has no attribute '(object|bool|int|float|str|complex)'")),
    ("numpy_version", _p(r"[Nn]um[Pp]y(?:==|-| version:? | )(\d\.\d{1,2}\.\d{1,2})")),
    ("protobuf", _p(r"Descriptors cannot (?:not )?be created directly")),
    ("protobuf", _p(r"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")),
    ("protobuf_version", _p(r"protobuf(?:==|-| version:? | )(\d{1,2}\.\d{1,2}\.\d{1,2})")),
    ("pip_no_version", _p(r"(?:Could not find a version that satisfies the requirement|"
                          r"No matching distribution found for) (tensorflow[\w-]{0,12}(?:[=<>~!]=?[\d.*]{1,12})?)")),
    ("not_supported_wheel", _p(r"(tensorflow[\w.-]{0,80}\.whl) is not a supported wheel")),
    # the CPU
    ("illegal_instruction", _p(r"Illegal instruction")),
    ("avx_missing", _p(r"compiled to use AVX instructions, but these aren't available")),
    ("dll_init_failed", _p(r"(?:DLL\)|dynamic link library) initialization routine failed")),
    # memory
    ("oom", _p(r"(OOM when allocating tensor[^\n]{0,160}|ResourceExhaustedError|ran out of memory trying to "
               r"allocate [^\n]{0,40}|CUDA_ERROR_OUT_OF_MEMORY|failed to allocate [\d.]{1,10} ?[KMG]?i?B[^\n]{0,80}"
               r"|Resource exhausted: [^\n]{0,120})")),
    # context: platform, versions
    ("win_path", _p(r"(?<![\w/])([A-Za-z]:\\\\?[^\n\"'<>|]{1,200})")),
    ("dll_name", _p(r"([A-Za-z]\w{1,40}\.dll)\b")),
    ("so_name", _p(r"(lib\w{1,40}\.so\.\d[\d.]{0,10})")),
    ("kernel_wsl1", _p(r"(\d+\.\d+\.\d+-\d+-Microsoft)")),
    ("kernel_wsl2", _p(r"([\d.]+-microsoft-standard[\w-]*)")),
    ("wsl_lib", _p(r"/usr/lib/wsl/(?:lib|drivers)")),
    ("wsl_word", _p(r"(WSL ?2|WSL ?1|\bwsl\.exe|Windows Subsystem for Linux)")),
    ("dev_dxg", _p(r"/dev/dxg")),
    ("docker", _p(r"(docker run[^\n]{0,200}|nvidia-docker[^\n]{0,100}|/\.dockerenv|--runtime=nvidia|--gpus)")),
    ("compose_prefix", _p(r"(?m)^([\w.-]{1,60}_\d{1,3})\s+\|")),
    ("store_python", _p(r"(PythonSoftwareFoundation\.Python\.3\.\d+|WindowsApps\\python|LocalCache\\local-packages)")),
    ("python_path", _p(r"[/\\](?:python|Python|lib/python)(3\.?\d{1,2})[/\\]")),
    ("python_banner", _p(r"Python (3\.\d{1,2})\.\d{1,2}[ \n]")),
    ("tf_version", _p(r"(?:tensorflow|TensorFlow|Tensor Flow|tensorflow-gpu|tensorflow_gpu|tensorflow-cpu|tensorflow-intel)"
                      r"(?:==|-| \(| [Vv]ersion:? | v| )(\d\.\d{1,2}(?:\.\d{1,2})?(?:rc\d)?)\b")),
    ("tf_version", _p(r"tf\.__version__[^\n]{0,10}?\n?[^\n]{0,10}?'(\d\.\d{1,2}\.\d{1,2})'")),
    ("tf_intel", _p(r"tensorflow[-_]intel")),
    ("tf_core", _p(r"tensorflow_core[/\\]")),
    ("dso_loader", _p(r"(tensorflow/stream_executor|tensorflow/compiler/xla/stream_executor|tensorflow/tsl|"
                      r"external/local_xla|external/local_tsl)/platform/default/dso_loader\.cc:(\d+)")),
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
    for kind, pattern in PATTERNS:
        found = log.events.setdefault(kind, [])
        if len(found) >= MAX_PER_KIND:
            continue
        for m in pattern.finditer(text):
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


PATTERNS_BY_KIND = {}
for _kind, _pattern in PATTERNS:
    PATTERNS_BY_KIND.setdefault(_kind, []).append(_pattern)


def normalise(text):
    """Typographic quotes and non-breaking spaces as plain ASCII; each replaced only when present."""
    for fancy, plain in _QUOTES:
        if fancy in text:
            text = text.replace(fancy, plain)
    if "\x00" in text:
        text = text.replace("\x00", "")
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
