"""A Linux NVIDIA driver installed inside WSL2 hides the Windows driver's libcuda.

Wins over the other WSL causes when the log shows the Linux driver itself (STRONG: a driver package, its
libraries in the ld cache outside /usr/lib/wsl/lib or named with a Linux driver version, a driver/library
mismatch). The Linux tools' complaints that no kernel module answers (WEAK: nvidia-smi "couldn't communicate", NVML
failing, "kernel driver does not appear to be running") say the same, unless the log puts the failure on the
Windows side (wsl_gpu_unavailable.windows_side). A cuInit NO_DEVICE says that a libcuda which is not WSL's loaded
first, usually a Linux driver's: this rule too, unless nvidia-smi works (then wsl-lib-path, see its docstring).
"""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way, wsl_lib
from builder.diagnose.rules.wsl_gpu_unavailable import windows_side

ID = "wsl-linux-driver"
STRONG = ("linux_driver_pkg", "ldcache_driver_lib", "linux_driver_lib", "nvml_mismatch", "kernel_dso_mismatch",
          "system_driver_mismatch", "linux_driver_for_wsl")
# Ubuntu's command-not-found offering a driver package ("Command 'nvidia-smi' not found, but can be installed with:
# sudo apt install nvidia-utils-525") names a package that is not installed
_OFFER = "can be installed with"


def installed_driver_packages(log):
    """The Linux driver packages the log shows, less those command-not-found only offers."""
    return [ev for ev in log.all("linux_driver_pkg")
            if not any(_OFFER in log.line_text(n) for n in range(max(1, ev.line - 3), ev.line + 1))]
WEAK = ("smi_no_driver", "nvml_failed", "no_driver_running")


def check(log, ctx):
    if ctx.platform.value != "wsl2":
        return None
    strong = installed_driver_packages(log) + [ev for kind in STRONG[1:] for ev in log.all(kind)]
    # "GPU access blocked by the operating system" is WSL's own refusal (wsl-gpu-unavailable), not a Linux driver
    weak = [ev for kind in WEAK for ev in log.all(kind) if "access blocked" not in log.line_text(ev.line)]
    # no device although the WSL libcuda would see one: a Linux libcuda came first (the usual WSL2 case)
    # (unless the line says the libcuda that answered is WSL's own: ollama's "no nvidia devices detected by library
    # /usr/lib/wsl/lib/libcuda.so.1")
    weak += [ev for kind in ("cuinit", "cuda_error", "cuda_error_text") for ev in log.all(kind)
             if ("NO_DEVICE" in ev.groups[0] or "no CUDA-capable" in ev.groups[0])
             and "/usr/lib/wsl/" not in log.line_text(ev.line)][:0 if log.has("smi_works") else 1]
    if not strong and (not weak or windows_side(log, ctx)):
        return None
    evidence = sorted({ev.line for ev in strong + weak})[:len(STRONG + WEAK)]
    cause = t("In WSL2 the Windows driver provides the GPU (libcuda in {wsl_lib}, /dev/dxg); a Linux NVIDIA "
              "driver or the cuda/cuda-drivers meta package installed inside WSL puts its own libcuda first, which "
              "finds no kernel module.", wsl_lib=wsl_lib(ctx))
    fix = t("remove the Linux driver inside WSL: `sudo apt-get purge 'nvidia-driver-*' 'cuda-drivers*' "
            "'libnvidia-compute-*' 'nvidia-utils-*'` (and `sudo apt-get autoremove`), install only cuda-toolkit-X-Y or "
            "runtime libraries, then `wsl --shutdown` in Windows and start again; until then `export "
            "LD_LIBRARY_PATH={wsl_lib}:$LD_LIBRARY_PATH` makes the WSL libcuda load first", wsl_lib=wsl_lib(ctx))
    return Finding(ID, t("A Linux NVIDIA driver is installed inside WSL2"), evidence, cause, fix, tfenv_way(ctx),
                   rank=8, supersedes=("driver-dso-mismatch", "libcuda-missing", "no-gpu-visible", "no-gpu-harmless",
                                       "wsl-lib-path", "wsl-gpu-unavailable", "cuinit-error",
                                       "container-image-driver-libs"))
