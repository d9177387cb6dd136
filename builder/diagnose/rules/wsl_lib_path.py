"""WSL2 has the driver in /usr/lib/wsl/lib, but this process does not look there (a login shell without WSL's
PATH, a loader path or ld cache without the folder, the unversioned libcuda.so that ldconfig skips, the
unversioned libnvidia-ml.so that WSL does not ship at all)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines
from builder.diagnose.rules._gpu import libcuda_failures

ID = "wsl-lib-path"
WSL_LIB = "/usr/lib/wsl/lib"
SUPERSEDES = ("libcuda-missing", "no-gpu-harmless", "wsl-libcuda-symlink")


def check(log, ctx):
    if ctx.platform.value != "wsl2" or log.has("linux_driver_pkg"):
        return None
    failed = [ev for _, ev in libcuda_failures(log)]
    evidence = failed[:1] + log.all("smi_not_found")[:1]
    if not evidence:
        return _nvml_unversioned(log)
    name = libcuda_failures(log)[0][0] if failed else "nvidia-smi"
    cause = t("In WSL 2 the Windows driver provides {name} in {folder}; this process does not look there (the "
              "folder is not on its search path, and ldconfig skips the unversioned libcuda.so, a copy rather "
              "than a link).", name=name, folder=WSL_LIB)
    fix = t("put the folder on the search paths: `export LD_LIBRARY_PATH={folder}:$LD_LIBRARY_PATH` (and "
            "`export PATH=$PATH:{folder}` for nvidia-smi) in ~/.bashrc, or list {folder} in /etc/ld.so.conf.d/ and run "
            "`sudo ldconfig`; never install a Linux NVIDIA driver inside WSL", folder=WSL_LIB)
    return Finding(ID, t("{name} is in {folder}, which this process does not search", name=name, folder=WSL_LIB),
                   lines(evidence), cause, fix, t("`tfenv wsl` writes an environment that sets this path"), rank=12,
                   supersedes=SUPERSEDES)


def _nvml_unversioned(log):
    """A program that dlopens libnvidia-ml.so: WSL's driver folder has only libnvidia-ml.so.1."""
    evidence = log.all("nvml_unversioned")[:1]
    if not evidence:
        return None
    cause = t("In WSL 2 the Windows driver provides NVML as {folder}/libnvidia-ml.so.1 only; there is no unversioned "
              "libnvidia-ml.so to load (a Linux driver package would install one, WSL does not).", folder=WSL_LIB)
    fix = t("have the program load libnvidia-ml.so.1 (most NVML bindings take a library path), or add the missing "
            "name once: `sudo ln -s {folder}/libnvidia-ml.so.1 /usr/local/lib/libnvidia-ml.so && sudo ldconfig`; "
            "never install a Linux NVIDIA driver inside WSL", folder=WSL_LIB)
    return Finding(ID, t("libnvidia-ml.so (unversioned) does not exist in WSL 2"), lines(evidence), cause, fix, "",
                   rank=12, supersedes=SUPERSEDES)
