"""Facts read from a log before any advice: the platform, the TF version, the CUDA it wants against the CUDA
present, the GPU, the driver, Python, and the tfenv environment that fits.

Every inferred fact keeps the line it came from, so a report can say why it thinks "Windows".
"""

import re

from builder.diagnose.versions import as_printed, cuda_of_library, dll_name, family, line_of, same_library, vkey

PLATFORMS = ("windows", "wsl1", "wsl2", "linux")
# TF reads /sys/bus/pci/devices/<bus id>/numa_node for the GPU; a Linux kernel has that file for every PCI device
# (-1 without NUMA: "negative value"), WSL 2's GPU is no PCI device of its kernel (it comes through /dev/dxg), so
# "could not open file to read NUMA node" is WSL 2's line (Jetson's TF says "ARM64 does not support NUMA" instead;
# a native kernel built without NUMA, rare in distribution kernels, prints it too).
WSL2_NUMA = "could not open file to read NUMA node"
_HEX_HOST = re.compile(r"^[0-9a-f]{12}$")
_CUDA_DIR = re.compile(r"(?:cuda-|CUDA[\\/]v|cudatoolkit-|cuda_)(\d{1,2}\.\d)")
# dso_loader.cc's failure line moved with each release: which TF lines print which line number.
_DSO_FAIL_LINE = {"55": ("2.1", "2.2", "2.3"), "58": ("2.3",), "59": ("2.3",), "60": ("2.4",),
                  "64": ("2.5", "2.6", "2.7", "2.8", "2.9")}
_DSO_FAMILY = {"tensorflow/compiler/xla/stream_executor": ("2.10", "2.11"), "tensorflow/tsl": ("2.12", "2.13", "2.14"),
               "external/local_xla": ("2.15", "2.16"), "external/local_tsl": ("2.15", "2.16")}


class Fact:
    """A value and the log line it was read from (0: given on the command line or derived)."""

    def __init__(self, value, line=0, how=""):
        self.value, self.line, self.how = value, line, how

    def __bool__(self):
        return bool(self.value)

    def __repr__(self):
        return f"Fact({self.value!r}, line={self.line}, how={self.how!r})"


class Context:
    def __init__(self):
        self.platform = Fact("")  # windows / wsl1 / wsl2 / linux / '' (unknown)
        self.posix = Fact(False)  # a Unix shell prompt or Linux paths: Linux or WSL, the log cannot tell which
        self.container = Fact(False)
        self.tf = Fact("")  # a TF line: '2.9'
        self.tf_candidates = []  # TF lines the libraries it asked for fit, newest first
        self.cuda_wanted = Fact("")  # the CUDA the failed/opened runtime belongs to: '10.1', '11.x'
        self.cuda_present = Fact("")  # a CUDA seen installed (paths) or the driver's maximum (nvidia-smi)
        self.driver = Fact("")
        self.compute_capability = Fact("")
        self.gpu = Fact("")
        self.python = Fact("")
        self.facts = None
        self.envs = []  # tfenv environments that fit, best first

    @property
    def windows(self):
        return self.platform.value == "windows"

    @property
    def wsl(self):
        return self.platform.value in ("wsl1", "wsl2")

    @property
    def linux_like(self):
        """Linux advice applies (Linux, WSL, a container, or Unix paths where the rest cannot tell)."""
        return self.platform.value in ("linux", "wsl1", "wsl2") or bool(self.container) or bool(self.posix)

    def env(self):
        return self.envs[0] if self.envs else ""

    def env_facts(self, name=None):
        name = name or self.env()
        return (self.facts or {}).get("envs", {}).get(name) if name else None

    def as_dict(self):
        out = {}
        for key in ("platform", "posix", "container", "tf", "cuda_wanted", "cuda_present", "driver",
                    "compute_capability", "gpu", "python"):
            fact = getattr(self, key)
            out[key] = {"value": fact.value, "line": fact.line or None, "how": fact.how} if fact.value else None
        out["tf_candidates"] = list(self.tf_candidates)
        out["envs"] = list(self.envs)
        return out


def infer(log, facts=None, platform=None, tf=None, cuda=None):
    """The Context of a parsed Log; platform/tf/cuda override what the log says."""
    ctx = Context()
    ctx.facts = facts
    ctx.container = _container(log)
    ctx.platform = Fact(platform, 0, "given") if platform else _platform(log, bool(ctx.container))
    if not ctx.platform:
        ctx.posix = _posix(log)
    if ctx.container and not ctx.platform:
        ctx.platform = Fact("linux", ctx.container.line, "inside a container")
    ctx.cuda_wanted = _cuda_wanted(log)
    ctx.cuda_present = Fact(cuda, 0, "given") if cuda else _cuda_present(log)
    ctx.driver = _driver(log)
    ctx.compute_capability, ctx.gpu = _device(log)
    ctx.python = _python(log)
    ctx.tf_candidates = _tf_from_libraries(log, facts)
    ctx.tf = Fact(line_of(tf), 0, "given") if tf else _tf(log, ctx.tf_candidates)
    ctx.envs = _envs(ctx, facts)
    return ctx


def _platform(log, container=False):
    """The ONE answer to "where did this run" that every rule's advice follows (see Context.windows/wsl/...)."""
    ev = log.first("kernel_wsl1")
    if ev:
        return Fact("wsl1", ev.line, "kernel " + ev.groups[0])
    # libcuda.so.1 as a plain copy, not a link: only the Windows driver's WSL libraries are shipped that way
    for kind in ("kernel_wsl2", "wsl_lib", "dev_dxg", "wsl_not_symlink"):
        ev = log.first(kind)
        if ev:
            return Fact("wsl2", ev.line, "WSL2 kernel" if kind == "kernel_wsl2" else "WSL2 path")
    # a loader missing WSL's own DirectX libraries (libdxcore, libd3d12): only programs made for WSL load them
    ev = log.first("dxcore_missing")
    if ev and not log.has("nvc_dxcore_failed", "dll_name"):
        return Fact("wsl2", ev.line, "a WSL-only library (libdxcore / libd3d12) was asked for")
    # NVML's refusal under WSL's GPU paravirtualisation (not the toolkit's "dxcore initialization failed": every
    # native Linux host prints that one too)
    ev = log.first("gpu_access_blocked")
    if ev and not log.has("dll_name", "win_path"):
        return Fact("wsl2", ev.line, "NVML's WSL refusal (GPU access blocked by the operating system)")
    ev = log.first("wsl_list")
    if ev:
        return Fact("wsl" + ev.groups[0], ev.line, "`wsl -l -v` says version " + ev.groups[0])
    # not the container toolkit's "attempting to load dxcore to see if we are running under Windows Subsystem for
    # Linux (WSL)", which it logs on every host
    ev = next((ev for ev in log.all("wsl_word") if "dxcore" not in log.line_text(ev.line)), None)
    if ev and "1" not in ev.groups[0]:
        return Fact("wsl2", ev.line, ev.groups[0])
    ev = log.first("wsl_only")
    if ev and not log.has("dll_name"):
        return Fact("wsl2", ev.line, f"a name only WSL 2 has ({ev.groups[0]}); WSL 2 assumed")
    ev = log.first("wsl_hint")
    if ev and (log.has("so_name", "smi_no_driver", "nvml_failed", "linux_driver_pkg") or not log.has("dll_name")):
        return Fact("wsl2", ev.line, f"a WSL path or host name ({ev.groups[0]}); WSL 2 assumed")
    ev = log.first("libcuda_unversioned")
    if ev and not container and not log.has("nvrm", "linux_driver_pkg", "kernel_version", "dll_name", "smi_header"):
        return Fact("wsl2", ev.line, "the unversioned libcuda.so is missing, which a Linux driver always installs: "
                                     "WSL 2 assumed")
    # a Windows build beside Linux library names or a Unix prompt, and no DLL: a Linux under Windows
    ev = log.first("windows_build")
    if ev and log.has("so_name", "linux_shell") and not log.has("dll_name", "win_path"):
        return Fact("wsl2", ev.line, "a Windows build beside Linux libraries or a Unix prompt; WSL 2 assumed")
    ev = next((ev for ev in log.all("numa") if ev.groups[0].startswith(WSL2_NUMA)), None)
    if ev:
        return Fact("wsl2", ev.line, "no sysfs NUMA file for the GPU, as in WSL 2")
    ev = log.first("wheel_platform")
    if ev and not log.has("so_name", "dll_name") and ev.groups[0].startswith("win"):
        return Fact("windows", ev.line, "a Windows wheel (" + ev.groups[0] + ")")
    win = [ev for kind in ("dll_load_failed", "win_error_126", "store_python", "dll_name", "win_path")
           for ev in log.all(kind)[:20]]
    lin = log.all("so_name")[:20]
    if win and len(win) >= len(lin):
        first = min(win, key=lambda ev: ev.line)
        return Fact("windows", first.line, "Windows DLL names and paths")
    # the native driver's kernel module (/proc/driver/nvidia, NVRM): WSL 2 has none
    for kind in ("docker", "nvrm", "kernel_version"):
        ev = log.first(kind)
        if ev and "\\" not in "".join(g or "" for g in ev.groups):
            return Fact("linux", ev.line, "the Linux driver's kernel module" if kind != "docker" else "Linux paths")
    return Fact("")


def _posix(log):
    """Linux or WSL, the log cannot tell which: Linux library names, Unix paths and prompts, manylinux wheels are
    the same in both (WSL 2 runs a Linux distribution), so they never decide "Linux" on their own."""
    found = [ev for kind in ("linux_shell", "so_name", "python_path") for ev in log.all(kind)[:1]]
    found += [ev for ev in log.all("wheel_platform")[:1] if "linux" in ev.groups[0]]
    found = [ev for ev in found if "\\" not in "".join(g or "" for g in ev.groups)]
    if not found:
        return Fact(False)
    first = min(found, key=lambda ev: ev.line)
    return Fact(True, first.line, "Linux library names or paths (Linux or WSL)")


def _container(log):
    for kind in ("diag_host", "no_driver_running", "container_prompt"):
        for ev in log.all(kind):
            if _HEX_HOST.match(ev.groups[0] or ""):
                return Fact(True, ev.line, "container host name " + ev.groups[0])
    ev = log.first("compose_prefix")
    if ev:
        return Fact(True, ev.line, "docker compose service " + ev.groups[0])
    ev = log.first("docker")
    if ev:
        return Fact(True, ev.line, "docker")
    ev = log.first("container_path")
    if ev:
        return Fact(True, ev.line, "a container's path (" + ev.groups[0] + ")")
    ev = log.first("singularity")
    if ev:
        return Fact(True, ev.line, "Singularity/Apptainer")
    # NVIDIA's images print their banner and start-up checks from the entrypoint, inside the container
    found = [ev for kind in ("ngc_banner", "ngc_no_driver", "ngc_driver", "ngc_sm_too_new", "ngc_no_supported_gpu",
                             "ngc_shmem", "ngc_mofed") for ev in log.all(kind)[:1]]
    if found:
        return Fact(True, min(ev.line for ev in found), "NVIDIA's container start-up banner")
    return Fact(False)


def _cuda_wanted(log):
    for name, ev in log.failed_libraries():
        version = cuda_of_library(name)
        if version:
            return Fact(version, ev.line, name)
    for ev in log.all("opened"):
        version = cuda_of_library(ev.groups[0])
        if version:
            return Fact(version, ev.line, ev.groups[0])
    ev = log.first("paddle_device")  # its runtime is the CUDA its build was made with
    if ev:
        return Fact(ev.groups[2], ev.line, "Paddle's Runtime API Version")
    return Fact("")


def _cuda_present(log):
    for kind in ("win_path", "python_path", "load_fail"):
        for ev in log.all(kind):
            m = _CUDA_DIR.search(" ".join(g or "" for g in ev.groups))
            if m:
                return Fact(m.group(1), ev.line, "path")
    # `ldconfig -p` or a listed library file: a toolkit folder in its path, else the major its name gives
    for ev in log.all("ldcache_entry")[:50] + log.all("cuda_toolkit_lib")[:50]:
        m = _CUDA_DIR.search(ev.groups[-1])
        if m:
            return Fact(m.group(1), ev.line, "path")
    for ev in log.all("ldcache_entry"):
        version = cuda_of_library(ev.groups[0])
        if version:
            return Fact(version, ev.line, "the loader cache")
    ev = log.first("nvcc_release")
    if ev:
        return Fact(ev.groups[0], ev.line, "nvcc --version")
    ev = log.first("smi_header")
    if ev and ev.groups[1]:
        return Fact(ev.groups[1], ev.line, "the driver's maximum CUDA (nvidia-smi)")
    return Fact("")


# the lines that state the driver's version, the first found wins: nvidia-smi's header, TF's diagnostics of the
# kernel module (its own line and the NVRM one) and of libcuda
DRIVER_KINDS = ("smi_header", "kernel_version", "nvrm", "libcuda_version")


def _driver(log):
    ev = log.first("smi_header")
    if ev:
        return Fact(ev.groups[0], ev.line, "nvidia-smi")
    for kind in DRIVER_KINDS[1:]:
        ev = log.first(kind)
        if ev and vkey(ev.groups[0]):
            return Fact(as_printed(ev.groups[0]), ev.line, kind.replace("_", " "))
    return Fact("")


def _device(log):
    best = None
    for ev in log.all("device"):
        if best is None or vkey(ev.groups[1]) > vkey(best.groups[1]):
            best = ev
    if best:
        return Fact(best.groups[1], best.line, "Found device"), Fact(best.groups[0], best.line)
    ev = log.first("device_old")
    if ev:
        return Fact(f"{ev.groups[1]}.{ev.groups[2]}", ev.line, "Found device"), Fact(ev.groups[0], ev.line)
    ev = log.first("ptx_jit")
    if ev:
        return Fact(ev.groups[0], ev.line, "TF's PTX warning"), Fact("")
    ev = log.first("paddle_device")
    if ev:
        return Fact(ev.groups[0], ev.line, "Paddle's device note"), Fact("")
    return Fact(""), Fact("")


def _python(log):
    for kind in ("python_path", "python_banner"):
        ev = log.first(kind)
        if ev:
            raw = ev.groups[0]
            version = raw if "." in raw else raw[0] + "." + raw[1:]
            return Fact(version, ev.line, "path" if kind == "python_path" else "banner")
    ev = log.first("python_wheel_tag")
    if ev:
        return Fact("3." + ev.groups[0], ev.line, "the wheels pip picked for it")
    return Fact("")


def tf_lines_of_path(text):
    """The TF lines whose source tree a log line's path belongs to (tensorflow/tsl/...: 2.12-2.14), () if none."""
    return next((lines for tree, lines in _DSO_FAMILY.items() if tree + "/" in text), ())


def _tf(log, candidates):
    versions = [ev for ev in log.all("tf_version") if vkey(ev.groups[0])[:1] in ((1,), (2,))]
    if versions:
        return Fact(line_of(versions[0].groups[0]), versions[0].line, "the log names it")
    ev = log.first("dso_loader")
    if ev:
        lines = _DSO_FAMILY.get(ev.groups[0]) or (
            _DSO_FAIL_LINE.get(ev.groups[1]) if log.first("load_fail") else None)
        if lines and len(lines) == 1:
            return Fact(lines[0], ev.line, "its log format")
        if lines and candidates:
            both = [c for c in candidates if c in lines]
            if len(both) == 1:
                return Fact(both[0], ev.line, "its log format and the libraries it asks for")
    if log.first("tf_core"):
        return Fact("1.15", log.first("tf_core").line, "tensorflow_core paths (TF 1.15/2.0)")
    if len(set(candidates)) == 1:
        return Fact(candidates[0], 0, "the libraries it asks for")
    return Fact("")


def _tf_from_libraries(log, facts):
    """TF lines whose library set contains every CUDA library the log names (newest first)."""
    if not facts:
        return []
    names = [n for n, _ in log.failed_libraries()] + log.opened_libraries()
    names = [n for n in names if family(n) not in ("cuda", "nvinfer", "nvinfer_plugin", "cupti", "msvcp140",
                                                   "zlibwapi")]
    if not names:
        return []
    lines = []
    for env in facts.get("envs", {}).values():
        wanted = list(env.get("sonames", [])) + [dll_name(s) for s in env.get("sonames", [])]
        wanted += list(env.get("windows_sonames", []))
        if all(any(same_library(n, w) for w in wanted) for n in names):
            tf_line = line_of(env["tensorflow"])
            if tf_line not in lines:
                lines.append(tf_line)
    return sorted(lines, key=vkey, reverse=True)


def _envs(ctx, facts):
    """tfenv environments that fit: the TF line the log shows, else the lines its libraries fit."""
    if not facts:
        return []
    envs = facts.get("envs", {})
    order = sorted(envs, key=lambda n: (vkey(envs[n]["tensorflow"]), vkey(envs[n]["cuda"])), reverse=True)
    lines = [ctx.tf.value] if ctx.tf else list(ctx.tf_candidates)
    out = [n for line in lines for n in order if line_of(envs[n]["tensorflow"]) == line]
    tested = (facts.get("tf_tested") or {}).get(ctx.tf.value) if ctx.tf else None
    if not out and tested and vkey(ctx.tf.value) > vkey(line_of(envs[order[0]]["tensorflow"])) and (
            tested["cuda"] == envs[order[0]]["cuda"]):
        out = [order[0]]  # TF 2.11: the newest environment has the same CUDA 11.2 (TF's tested configuration)
    present = ctx.cuda_present.value
    if present and len(out) > 1:  # tf22 (CUDA 10.2) and tf22-cuda101: the one whose CUDA is installed first
        out.sort(key=lambda n: envs[n]["cuda"] != present)
    return out
