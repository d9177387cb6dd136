"""A Linux NVIDIA driver installed inside WSL2 hides the Windows driver's libcuda."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way

ID = "wsl-linux-driver"
SIGNS = ("linux_driver_pkg", "ldcache_driver_lib", "smi_no_driver", "nvml_mismatch", "kernel_dso_mismatch",
         "nvml_failed", "no_driver_running", "system_driver_mismatch")


def check(log, ctx):
    if ctx.platform.value != "wsl2":
        return None
    # "GPU access blocked by the operating system" is WSL's own refusal (wsl-gpu-unavailable), not a Linux driver
    signs = [ev for kind in SIGNS for ev in log.all(kind) if "access blocked" not in log.line_text(ev.line)]
    # no device although the WSL libcuda would see one: a Linux libcuda came first (the usual WSL2 case)
    signs += [ev for kind in ("cuinit", "cuda_error") for ev in log.all(kind) if "NO_DEVICE" in ev.groups[0]][:1]
    evidence = sorted({ev.line for ev in signs})[:len(SIGNS)]
    if not evidence:
        return None
    cause = t("In WSL2 the Windows driver provides the GPU (libcuda in /usr/lib/wsl/lib, /dev/dxg); a Linux NVIDIA "
              "driver or the cuda/cuda-drivers meta package installed inside WSL puts its own libcuda first, which "
              "finds no kernel module.")
    fix = t("remove the Linux driver inside WSL: `sudo apt-get purge 'nvidia-driver-*' 'cuda-drivers*' "
            "'libnvidia-compute-*'` (and `sudo apt-get autoremove`), install only cuda-toolkit-X-Y or runtime "
            "libraries, then `wsl --shutdown` in Windows and start again; until then `export "
            "LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH` makes the WSL libcuda load first")
    return Finding(ID, t("A Linux NVIDIA driver is installed inside WSL2"), evidence, cause, fix, tfenv_way(ctx),
                   rank=8, supersedes=("driver-dso-mismatch", "libcuda-missing", "no-gpu-visible", "no-gpu-harmless",
                                       "wsl-lib-path"))
