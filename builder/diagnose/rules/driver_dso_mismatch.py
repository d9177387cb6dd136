"""The loaded kernel module and the user-space driver library (libcuda) are different versions. Inside a container
the toolkit mounts the host's own libraries, so a mismatch there is the host's (a driver update awaiting a reboot)
or the image's: driver libraries it carries of another version."""

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
    cause = t("The NVIDIA kernel module and the user-space driver libraries are different versions: usually a driver "
              "update whose new module is not loaded yet, or two driver installs mixed.")
    title = t("Kernel driver and libcuda versions do not match")
    if lib and kernel:
        cause = t("The NVIDIA kernel module ({kernel}) and the user-space driver library libcuda ({lib}) are different "
                  "versions: usually a driver update whose new module is not loaded yet, or two driver installs "
                  "mixed.", kernel=kernel.groups[0], lib=lib.groups[0])
        title = t("Kernel driver {kernel} and libcuda {lib} do not match", kernel=kernel.groups[0], lib=lib.groups[0])
    fix = t("reboot (or unload and reload the nvidia kernel modules) so the module matches the libraries; if it "
            "persists, reinstall the driver so that both halves are the same version: remove every NVIDIA driver "
            "package (stale libnvidia-ml links included) and install one version, then `nvidia-smi` must work")
    if ctx.container:  # the toolkit mounts the host's own libraries: a mismatch is the host's, or the image's copies
        fix = t("run `nvidia-smi` on the host: if it fails the same way, the host is at fault: reboot it so the "
                "module matches the libraries, and if that does not help reinstall the driver there (remove every "
                "NVIDIA driver package, stale libnvidia-ml links included, and install one version); if it works on "
                "the host, the image carries NVIDIA driver libraries of another version (a driver package installed "
                "in it, a `docker commit` of a GPU container) that shadow the ones the NVIDIA container toolkit "
                "mounts: remove them from the image")
    return Finding(ID, title,
                   [ev.line for ev in evidence], cause, fix, tfenv_way(ctx), rank=26,
                   supersedes=("no-gpu-visible", "cuinit-error"))
