"""The loaded kernel module and the user-space driver library (libcuda) are different versions."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import vkey

ID = "driver-dso-mismatch"


def check(log, ctx):
    evidence = [ev for kind in ("kernel_dso_mismatch", "nvml_mismatch", "system_driver_mismatch", "nvrm_api_mismatch")
                for ev in log.all(kind)[:1]]
    lib, kernel = log.first("libcuda_version"), log.first("kernel_version") or log.first("nvrm")
    if lib and kernel and vkey(lib.groups[0]) and vkey(kernel.groups[0]) and \
            vkey(lib.groups[0])[:2] != vkey(kernel.groups[0])[:2]:
        evidence += [lib, kernel]
    if not evidence:
        return None
    versions = ""
    if lib and kernel:
        versions = f" (kernel module {kernel.groups[0]}, libcuda {lib.groups[0]})"
    cause = (f"The NVIDIA kernel module and the user-space driver libraries are different versions{versions}: "
             f"usually a driver "
             "update whose new module is not loaded yet, or two driver installs mixed.")
    fix = t("reboot (or unload and reload the nvidia kernel modules) so the module matches the libraries; if it "
            "persists, reinstall the driver so that both halves are the same version: remove every NVIDIA driver "
            "package (stale libnvidia-ml links included) and install one version, then `nvidia-smi` must work")
    return Finding(ID, f"Kernel driver and libcuda versions do not match{versions}",
                   [ev.line for ev in evidence], cause, fix, tfenv_way(ctx), rank=26, supersedes=("no-gpu-visible",))
