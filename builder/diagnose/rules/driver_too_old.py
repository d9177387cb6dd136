"""The NVIDIA driver is older than the CUDA runtime needs: directly (cudaErrorInsufficientDriver), through a
container's compat libcuda (error 804, a kernel/DSO mismatch), or as NGC images' start-up driver check says."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import cuda_for_tf, lines, tfenv_way
from builder.diagnose.versions import vkey

ID = "driver-too-old"


def check(log, ctx):
    # PTX newer than the driver's JIT knows is the same story: the driver is older than the toolkit.
    evidence = log.all("insufficient_driver")[:2] + log.all("driver_older")[:1] + [
        ev for ev in log.all("cuda_error") if ev.groups[0] == "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"][:1]
    ngc = log.first("ngc_driver")
    mismatch = log.first("kernel_dso_mismatch")
    compat = bool(ctx.container) and mismatch and vkey(mismatch.groups[1]) > vkey(mismatch.groups[0])
    if compat:
        evidence = evidence + [mismatch] + log.all("libcuda_version")[:1] + log.all("kernel_version")[:1]
    elif ctx.container and log.has("compat_not_supported"):  # error 804: the image's compat libcuda, refused
        compat = True
        evidence = evidence + log.all("compat_not_supported")[:1]
    minimum, driver = _minimum(ctx), ctx.driver.value
    if ngc:  # "This container was built for NVIDIA Driver Release X or later, but version Y was detected"
        evidence, minimum, driver = [ngc] + evidence, ngc.groups[0], ngc.groups[1]
    elif compat and mismatch and not minimum:  # the image's compat libcuda is the driver its CUDA was built for
        minimum = mismatch.groups[1]
    if driver and minimum and vkey(driver) < vkey(minimum) and ctx.driver.how == "nvidia-smi":
        evidence = evidence + [log.first("smi_header")]
    if not evidence:
        return None
    cuda = cuda_for_tf(ctx)
    what = t("CUDA {cuda}", cuda=cuda) if cuda and not ngc else t("this CUDA runtime")
    cause = t("The NVIDIA driver {driver} is older than {what} needs (minimum {minimum}).", driver=driver or "",
              what=what, minimum=minimum) if minimum else t("The NVIDIA driver is older than {what} needs.", what=what)
    if compat or ngc:
        cause += " " + t("The container's CUDA forward-compatibility libraries work only on data-center GPUs with "
                         "a supported driver branch; elsewhere the host driver must be new enough itself.")
    if ctx.windows or ctx.wsl:
        fix = t("install a current NVIDIA driver on Windows (WSL2 uses the Windows driver), at least {minimum}",
                minimum=minimum) if minimum else t("install a current NVIDIA driver on Windows (WSL2 uses the Windows "
                                                   "driver)")
    elif ctx.container or ngc:
        fix = t("update the NVIDIA driver on the host to {minimum} or newer (the container uses the host's driver), "
                "then reboot; or use an older image whose CUDA this driver runs", minimum=minimum or "?")
    else:
        fix = t("update the NVIDIA driver to {minimum} or newer (e.g. your distribution's nvidia-driver package), "
                "then reboot", minimum=minimum) if minimum else t(
            "update the NVIDIA driver to the version this CUDA needs (e.g. your distribution's nvidia-driver "
            "package), then reboot")
    fix += t("; nvidia-smi's header shows the newest CUDA a driver supports")
    return Finding(ID, t("The NVIDIA driver is too old for {what}", what=what), lines(evidence), cause, fix,
                   tfenv_way(ctx) + t(" (or pick an environment whose CUDA this driver runs: `tfenv doctor` says "
                                      "which)"),
                   rank=24, supersedes=("driver-dso-mismatch", "no-gpu-visible", "cuinit-error"))


def _minimum(ctx):
    """The driver the environment's CUDA needs on this platform (matrix.yaml cuda.<v>.driver_min)."""
    e = ctx.env_facts()
    stack = ((ctx.facts or {}).get("cuda") or {}).get(e["cuda"] if e else "")
    if not stack:
        return ""
    return stack["driver_min"].get("windows" if ctx.windows or ctx.wsl else "linux", "")
