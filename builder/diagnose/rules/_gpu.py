"""Shared reading of the driver lines: did libcuda load, and does the log show a GPU at all."""

from builder.diagnose.versions import family, vkey


def libcuda_failures(log):
    """libcuda.so.1 / nvcuda.dll / the unversioned libcuda.so that could not be loaded (TF 2.14+'s "Could not find
    cuda drivers" is about the CUDA runtime, despite its words: tsl/cuda/cudart_stub.cc prints it when
    libcudart fails to load)."""
    found = [(n, ev) for n, ev in log.failed_libraries() if family(n) == "cuda"]
    found = found or [("libcuda.so", ev) for kind in ("libcuda_unversioned", "libcuda_no_symbol")
                      for ev in log.all(kind)][:1]
    # PyTorch's "Found no NVIDIA driver" (no driver version readable: libcuda absent) and NVML failing to start
    # ("driver not loaded" 9, "library not found" 12) say the same of the driver's libraries
    return found or [("libcuda.so.1", ev) for kind in ("torch_no_driver", "no_driver_lib") for ev in log.all(kind)
                     ][:1] or [
        ("libnvidia-ml.so.1", ev) for kind in ("nvml_init", "smi_no_nvml") for ev in log.all(kind)[:1]][:1]


def module_failures(log):
    """modprobe finding no NVIDIA kernel module, or refusing one, other than nvidia-uvm (kmod's name or a packaging's,
    nvidia-331-updates-uvm): the unified-memory module alone missing sits beside a loaded driver and is cuInit's
    CUDA_ERROR_UNKNOWN (cuinit-error), not a driver that does not load. The first of each kind."""
    return [ev for kind in ("kmod_not_found", "modprobe_refused")
            for ev in [e for e in log.all(kind) if "uvm" not in log.line_text(e.line)][:1]]


def module_found_no_gpu(log):
    """modprobe refusing nvidia with "No such device" (ENODEV from the module's probe): the module loaded its code
    and found no NVIDIA GPU that it drives, a machine without one (a cloud instance type without a GPU) or a GPU
    outside the driver's branch."""
    return [ev for ev in log.all("modprobe_refused") if "No such device" in ev.groups[0]][:1]


def uvm_module_missing(log):
    """kmod finds no nvidia-uvm module while the driver's own module and nvidia-smi show no failure."""
    if module_failures(log) or log.has("smi_no_driver"):
        return []
    return [ev for ev in log.all("kmod_not_found") if "uvm" in ev.groups[0]][:1]


def driver_not_loaded(ev):
    """NVML's NVML_ERROR_DRIVER_NOT_LOADED (9): its library loaded, the kernel module did not answer."""
    return ev.kind == "nvml_init" and ev.groups[0] in ("9", "NVML_ERROR_DRIVER_NOT_LOADED", "NVMLError_DriverNotLoaded",
                                                       "Driver Not Loaded")


def libcuda_loaded(log):
    return any(family(n) == "cuda" for n in log.opened_libraries()) or any(
        vkey(ev.groups[0]) for ev in log.all("libcuda_version"))


def gpu_expected(log, ctx):
    """The log shows a GPU or a GPU setup: a device found, nvidia-smi output, WSL2, a container started with a GPU
    asked for, or other GPU failures. TF's "Cannot dlopen some GPU libraries ... Skipping registering GPU devices"
    is one: gpu_device.cc tries the GPU libraries only once it has found a visible device (with no driver or no GPU
    it stops before)."""
    return bool(log.has("device", "device_old", "found_device", "smi_header", "created_device", "nvrm",
                        "kernel_version", "cannot_dlopen", "skipping")
                or ctx.platform.value == "wsl2" or gpu_requested(log))


# the flags that hand the GPU to a container: Docker/Podman's --gpus and the nvidia runtime, Singularity/Apptainer's
# --nv (its libraries bound from the host) and --nvccli (through nvidia-container-cli)
GPU_FLAGS = ("--gpus", "--runtime=nvidia", "--runtime nvidia", "--nv ", "--nvccli")


def gpu_requested(log):
    """The container was started with a GPU asked for (the command line is in the log)."""
    return any(any(flag in (ev.groups[0] or "") + " " for flag in GPU_FLAGS)
               for ev in log.all("docker") + log.all("singularity"))


def singularity_without_nv(log):
    """A Singularity/Apptainer container whose start is in the log without --nv or --nvccli, or (no start line) a
    shell or library path inside one: only those flags bind the host driver's libraries in."""
    found = log.all("singularity")
    if not found or gpu_requested(log):
        return []
    starts = [ev for ev in found if ev.groups[0] and ev.groups[0][:1] in "sa"]
    return (starts or found)[:1]


# glibc's ld.so refusing to start a program linked against a library it cannot find (elf/rtld.c)
LDSO_REFUSED = "error while loading shared libraries"


def fatal(log, ev):
    """A library failure that stopped the program (TF 1.x's self-check, an exception a loader raised: ImportError,
    OSError, ctypes' FileNotFoundError "Could not find module"; glibc's ld.so refusing to start a program linked
    against it: "error while loading shared libraries"), not a warning."""
    text = log.line_text(ev.line)
    kinds = ("torch_no_driver", "no_driver_lib", "nvml_init", "smi_no_nvml")
    return ev.kind in kinds or any(word in text for word in ("ImportError", "Could not find '", "OSError",
                                                              "Could not find module '", LDSO_REFUSED))


def cpu_only(log):
    """The log says TF sees no GPU: its own words (gpu_none), or a device_lib listing with CPU devices only."""
    listed = {ev.groups[0] for ev in log.all("device_type")}
    return log.has("gpu_none") or bool(listed) and all("CPU" in kind for kind in listed)


def link_step_failures(log):
    """A build or JIT step that found no unversioned libcuda.so to link (`-lcuda`, CMake's FindCUDA, Triton's
    launcher): the first of each kind."""
    return log.all("link_no_libcuda")[:1] + log.all("triton_no_libcuda")[:1]
