"""cuInit failed with a driver API result the other rules do not cover (CUresult names from cuda.h; TF's
cuda_driver.cc logs "failed call to cuInit: <name>")."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "cuinit-error"
# Results with a rule of their own: no device, no driver (303), old driver, driver mismatch, compat libcuda.
COVERED = ("NO_DEVICE", "(-1)", "(100)", "303", "SHARED_OBJECT_INIT_FAILED", "INSUFFICIENT_DRIVER",
           "SYSTEM_DRIVER_MISMATCH", "COMPAT_NOT_SUPPORTED", "(35)", "(803)", "(804)")
FIXES = {
    "CUDA_ERROR_UNKNOWN": "the nvidia_uvm kernel module is missing or stuck (typical after a suspend/resume or a "
                          "kernel update): reload it with `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm` (or "
                          "`sudo nvidia-modprobe -u -c=0`), or reboot; if modprobe fails, reinstall the NVIDIA "
                          "driver so its modules are built for the running kernel",
    "CUDA_ERROR_DEVICES_UNAVAILABLE": "the GPU is in Exclusive Process mode and another process holds it: stop "
                                      "that process (nvidia-smi lists it) or set the default mode with `sudo "
                                      "nvidia-smi -c 0`",
    "CUDA_ERROR_INVALID_DEVICE": "CUDA_VISIBLE_DEVICES names a GPU that does not exist: unset it or use an index "
                                 "nvidia-smi lists",
    "CUDA_ERROR_NOT_INITIALIZED": "CUDA was initialised in a parent process and used after fork(): start worker "
                                  "processes with the spawn method, or initialise CUDA in each child",
    "CUDA_ERROR_OPERATING_SYSTEM": "the operating system refused the driver call: check `dmesg` for NVRM errors and "
                                   "reboot; in a container, check it was started with `--gpus`",
}
DEFAULT = "CUDA_ERROR_UNKNOWN"
_CODES = {"999": "CUDA_ERROR_UNKNOWN", "46": "CUDA_ERROR_DEVICES_UNAVAILABLE", "101": "CUDA_ERROR_INVALID_DEVICE",
          "3": "CUDA_ERROR_NOT_INITIALIZED", "304": "CUDA_ERROR_OPERATING_SYSTEM"}


def check(log, ctx):
    failed = [ev for ev in log.all("cuinit") if not any(c in ev.groups[0] for c in COVERED)]
    others = [ev for ev in log.all("cuda_error") if ev.groups[0] in FIXES] + log.all("cuda_unknown")[:1]
    evidence = failed[:1] or others[:1]
    if not evidence:
        return None
    text = " ".join(g or "" for g in evidence[0].groups)
    name = next((n for n in FIXES if n in text), None) or next(
        (n for code, n in _CODES.items() if f"({code})" in text or f"code {code}," in text), DEFAULT)
    cause = t("The CUDA driver refused to initialise ({name}); the driver library loaded, so the NVIDIA driver is "
              "installed, but its kernel side is not usable right now.", name=name)
    return Finding(ID, t("cuInit failed: {name}", name=name), lines(evidence + log.all("modprobe_error")[:1]), cause,
                   t(FIXES[name]), "", rank=27, supersedes=("no-gpu-visible", "no-gpu-harmless"))
