"""cuInit failed with a driver API result the other rules do not cover (CUresult names from cuda.h; TF's
cuda_driver.cc logs "failed call to cuInit: <name>")."""

from builder.diagnose import cuda_results
from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines
from builder.diagnose.rules._gpu import uvm_module_missing

ID = "cuinit-error"
# Results with a rule of their own: no device, no driver (303), old driver, driver mismatch, compat libcuda.
COVERED = ("NO_DEVICE", "(-1)", "(100)", "303", "SHARED_OBJECT_INIT_FAILED", "INSUFFICIENT_DRIVER",
           "SYSTEM_DRIVER_MISMATCH", "(35)", "(803)")
FIXES = {
    "CUDA_ERROR_UNKNOWN": "the nvidia_uvm kernel module is missing or stuck (typical after a suspend/resume or a "
                          "kernel update): reload it with `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm` (or "
                          "`sudo nvidia-modprobe -u -c=0`), or reboot; if modprobe fails, reinstall the NVIDIA "
                          "driver so its modules are built for the running kernel",
    "CUDA_ERROR_DEVICE_UNAVAILABLE": "the GPU is in Exclusive Process mode and another process holds it: stop "
                                      "that process (nvidia-smi lists it) or set the default mode with `sudo "
                                      "nvidia-smi -c 0`",
    "CUDA_ERROR_INVALID_DEVICE": "CUDA_VISIBLE_DEVICES names a GPU that does not exist: unset it or use an index "
                                 "nvidia-smi lists",
    "CUDA_ERROR_NOT_INITIALIZED": "CUDA was initialised in a parent process and used after fork(): start worker "
                                  "processes with the spawn method, or initialise CUDA in each child",
    "CUDA_ERROR_SYSTEM_NOT_READY": "this is an NVSwitch system (HGX A100/H100/H200): CUDA starts only once the "
                                   "NVIDIA Fabric Manager runs on the host, in exactly the driver's version: install "
                                   "nvidia-fabricmanager-<driver branch> of that version, `sudo systemctl enable "
                                   "--now nvidia-fabricmanager`, then restart the container",
    "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": "CUDA's forward-compatibility libcuda (the cuda-compat package, "
                                                 "/usr/local/cuda/compat on LD_LIBRARY_PATH) was loaded, and it runs "
                                                 "only on data-center GPUs: remove cuda-compat or take its folder "
                                                 "off LD_LIBRARY_PATH so the driver's own libcuda loads; update the "
                                                 "driver if it is too old for this CUDA",
    "CUDA_ERROR_STUB_LIBRARY": "the stub libcuda.so from CUDA's lib64/stubs folder (for linking only) is first on "
                               "the loader path: take .../stubs out of LD_LIBRARY_PATH (and /etc/ld.so.conf.d), so "
                               "the driver's own libcuda.so.1 loads",
    "CUDA_ERROR_OPERATING_SYSTEM": "the operating system refused the driver call: check `dmesg` for NVRM errors and "
                                   "reboot; in a container, check it was started with `--gpus`",
    # 500, "named symbol not found": libcuda looked for a part of the driver that is not there
    "CUDA_ERROR_NOT_FOUND": "the driver's user-space libraries are an incomplete or mixed set (a libcuda of one "
                            "driver version beside libraries of another): reinstall the NVIDIA driver so that they "
                            "all come from one version, and remove other copies of libcuda from the loader path",
    "CUDA_ERROR_MPS_CONNECTION_FAILED": "CUDA_MPS_PIPE_DIRECTORY (or a GPU set to Exclusive Process with MPS) sends "
                                        "CUDA to the MPS server, which is not running or not reachable: start it "
                                        "with `nvidia-cuda-mps-control -d` as the GPU's owner, or unset "
                                        "CUDA_MPS_PIPE_DIRECTORY to use the GPU without MPS",
    "CUDA_ERROR_DEVICE_NOT_LICENSED": "this is a vGPU (or licensed data-center GPU) without a license: configure "
                                      "the NVIDIA licensing client (nvidia-gridd, /etc/nvidia/gridd.conf and the "
                                      "client token) so that `nvidia-smi -q` shows the license as acquired",
    "CUDA_ERROR_JIT_COMPILER_NOT_FOUND": "the driver's PTX JIT compiler (libnvidia-ptxjitcompiler.so.1) is missing: "
                                         "in a container the NVIDIA toolkit mounts it only with the compute "
                                         "capability (NVIDIA_DRIVER_CAPABILITIES=compute,utility or all); on a host, "
                                         "reinstall the NVIDIA driver so that its libraries are complete",
    # not a CUresult: nvidia.ko's GSP firmware timeouts (Xid 119/120), known faults of some driver releases
    "GSP firmware timeout": "the GPU's GSP firmware stopped answering the driver (Xid 119/120): with the proprietary "
                            "kernel module, turn the GSP firmware off (`options nvidia NVreg_EnableGpuFirmware=0` in "
                            "a file under /etc/modprobe.d/, then reboot), or change to another driver release",
    # NVML's name for a GPU that stopped answering (nvidia.ko: "has fallen off the bus", Xid 79)
    "NVML_ERROR_GPU_IS_LOST": "the GPU stopped answering the driver (it fell off the PCIe bus): reboot to get it "
                              "back; if it happens again, check the power supply and its cables, the card's seating "
                              "and temperature, and the Xid lines in `sudo dmesg`",
}
# The same results on native Windows, where the Linux steps (modules, sudo, dmesg) do not exist
WINDOWS = {
    "CUDA_ERROR_UNKNOWN": "restart Windows (a driver update or a sleep/resume can leave the driver unusable); if it "
                          "persists, reinstall the NVIDIA driver with a clean install",
    "CUDA_ERROR_DEVICE_UNAVAILABLE": "another process holds the GPU in Exclusive Process mode: close it (nvidia-smi "
                                      "lists the processes) or set the default compute mode from an administrator "
                                      "prompt with `nvidia-smi -c 0`",
    # PyTorch's DataLoader workers sharing CUDA tensors: CUDA IPC does not exist on Windows
    "CUDA_ERROR_OPERATING_SYSTEM": "Windows does not support sharing CUDA tensors between processes (CUDA IPC): use "
                                   "DataLoader(num_workers=0), or return CPU tensors from the worker processes and "
                                   "move them to the GPU in the main process",
}
DEFAULT = "CUDA_ERROR_UNKNOWN"
# the case most 500s in containers are: the toolkit's WSL driver list gained it in v1.15.0 (its CHANGELOG: "Added
# detection of libnvdxgdmal.so.1 on WSL2"); Docker Desktop 4.31 as the threads with the 555 driver found (logs only)
LIBNVDXGDMAL = (" (the Windows NVIDIA driver 555 added libnvdxgdmal.so.1: the NVIDIA container toolkit mounts it from "
                "1.15.0, Docker Desktop from 4.31)")
# lines only a host prints (its kernel module, its driver packages): a log with one is no container's
HOST_SIGNS = ("nvrm", "kernel_version", "linux_driver_pkg", "kmod_not_found", "modprobe_error")
# CUresult numbers (builder.diagnose.cuda_results) for results TF prints as "UNKNOWN ERROR (N)" or PyTorch as "code N"
_CODES = {code: name for code, name in cuda_results.BY_CODE.items() if name in FIXES}
# cuGetErrorString / cudaGetErrorString texts of those results (the same words in the driver and the runtime), and
# PyTorch's words for CUDA after fork()
_TEXTS = dict([(text, name) for _, name, _, text in cuda_results.RESULTS if name in FIXES and name not in (
    "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "CUDA_ERROR_SYSTEM_NOT_READY")] + [
    ("re-initialize CUDA in forked", "CUDA_ERROR_NOT_INITIALIZED"), ("MPS client failed to connect",
                                                                     "CUDA_ERROR_MPS_CONNECTION_FAILED")])


def check(log, ctx):
    failed = [ev for ev in log.all("cuinit") if not any(c in ev.groups[0] for c in COVERED)]
    # NOT_FOUND only from cuInit: from a module lookup ("failed to get PTX kernel") it is a kernel the build lacks
    others = [ev for ev in log.all("cuda_error") if cuda_results.canonical(ev.groups[0]) in FIXES and
              cuda_results.canonical(ev.groups[0]) != "CUDA_ERROR_NOT_FOUND"]
    others += log.all("cuda_unknown")[:1]
    others += [ev for ev in log.all("cuda_error_text") if "busy" in ev.groups[0]][:1]  # DEVICES_UNAVAILABLE's words
    others += log.all("cuda_status_text")[:1] + log.all("gpu_lost")[:1] + log.all("gsp_timeout")[:1]
    others += uvm_module_missing(log)  # cuInit answers CUDA_ERROR_UNKNOWN then: the default's fix loads the module
    # 802 itself, or the fabric manager named beside a failed device count / cuInit
    fabric = [ev for ev in log.all("system_not_ready") if "abric" not in ev.groups[0] or
              log.has("cuda_device_count", "cuinit", "cuda_error")][:1]
    if fabric:
        others += fabric + log.all("cuda_device_count")[:1]
    evidence = failed[:1] or others[:2]
    if not evidence:
        return None
    text = " ".join(" ".join(g or "" for g in ev.groups) + " " + log.line_text(ev.line) for ev in evidence)
    name = ("CUDA_ERROR_SYSTEM_NOT_READY" if fabric else None) or ("NVML_ERROR_GPU_IS_LOST" if log.has("gpu_lost")
                                                                   else None) or (
        "GSP firmware timeout" if log.has("gsp_timeout") else None) or next(
        (n for n in cuda_results.names_in(text) if n in FIXES), None) or next(
        (n for n in FIXES if n in text), None) or next(
        (n for code, n in _CODES.items() if f"({code})" in text or f"code {code}," in text), None) or next(
        (n for words, n in _TEXTS.items() if words in text), None) or (
        "CUDA_ERROR_DEVICE_UNAVAILABLE" if "busy or unavailable" in text else None) or (
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE" if "ompat" in text else DEFAULT)
    cause = t("The CUDA driver refused to initialise ({name}); the driver library loaded, so the NVIDIA driver is "
              "installed, but its kernel side is not usable right now.", name=name)
    # ollama's GPU discovery answering 3 at its start (cuInit, cudaSetDevice: no fork behind it): its troubleshooting
    # guide (docs/troubleshooting.md) gives 3 the steps of 999, load or reload nvidia_uvm and reboot
    ollama = name == "CUDA_ERROR_NOT_INITIALIZED" and "init failure: 3" in text
    fix = _fix("CUDA_ERROR_UNKNOWN" if ollama else name, log, ctx)
    return Finding(ID, t("The CUDA driver failed to start: {name}", name=name),
                   lines(evidence + log.all("modprobe_error")[:1]), cause, fix, "", rank=27,
                   supersedes=("no-gpu-visible", "no-gpu-harmless"))


def _fix(name, log, ctx):
    """The fix for result `name` on this log's platform (WSL 2, a container, Windows, or both when it cannot tell)."""
    if ctx.windows and name in WINDOWS:
        return t(WINDOWS[name])
    fix = t(FIXES[name])
    if name == "CUDA_ERROR_UNKNOWN" and ctx.wsl:  # no nvidia_uvm module in WSL: the Windows side it is
        fix = t("in WSL 2 the kernel side is the Windows driver: run `wsl --shutdown` in Windows and start again, "
                "then update the NVIDIA Windows driver and WSL (`wsl --update`) if it persists")
    elif name == "CUDA_ERROR_NOT_FOUND" and ctx.container:
        # the toolkit mounts the driver's libraries by a list; a newer driver (Windows 555 added libnvdxgdmal.so.1)
        # has one the list of an older toolkit or Docker Desktop lacks
        fix = t("the container got an incomplete set of the driver's libraries: the NVIDIA container toolkit (Docker "
                "Desktop on Windows) is older than the host's or the Windows NVIDIA driver and does not mount a "
                "library the newer driver needs; update Docker Desktop or the NVIDIA container toolkit, or go back "
                "to the previous driver until it is") + t(LIBNVDXGDMAL)
    elif name == "CUDA_ERROR_NOT_FOUND" and not (ctx.windows or ctx.wsl or log.has(*HOST_SIGNS)):
        # the log cannot tell a container from a host: both, each labelled (most pastes are Docker Desktop's)
        fix = t("in a container (Docker Desktop, the NVIDIA container toolkit): it got an incomplete set of the "
                "driver's libraries, update Docker Desktop or the NVIDIA container toolkit to a release that knows "
                "the installed driver; on a host: reinstall the NVIDIA driver so that all its libraries come from one "
                "version") + t(LIBNVDXGDMAL)
    return fix
