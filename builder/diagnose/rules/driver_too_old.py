"""The NVIDIA driver is older than the CUDA runtime needs (directly, or through a container's compat libcuda)."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import cuda_for_tf, tfenv_way
from builder.diagnose.versions import vkey

ID = "driver-too-old"


def check(log, ctx):
    # PTX newer than the driver's JIT knows is the same story: the driver is older than the toolkit.
    evidence = log.all("insufficient_driver")[:2] + [
        ev for ev in log.all("cuda_error") if ev.groups[0] == "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"][:1]
    mismatch = log.first("kernel_dso_mismatch")
    compat = bool(ctx.container) and mismatch and vkey(mismatch.groups[1]) > vkey(mismatch.groups[0])
    if compat:
        evidence = evidence + [mismatch] + log.all("libcuda_version")[:1] + log.all("kernel_version")[:1]
    elif ctx.container and log.has("compat_not_supported"):  # error 804: the image's compat libcuda, refused
        compat = True
        evidence = evidence + log.all("compat_not_supported")[:1]
    minimum, table = _minimum(ctx)
    if compat and mismatch and not minimum:  # the image's compat libcuda is the driver its CUDA was built for
        minimum, table = mismatch.groups[1], "the image's libcuda,"
    old = ctx.driver and minimum and vkey(ctx.driver.value) < vkey(minimum)
    if old and ctx.driver.how == "nvidia-smi":
        evidence = evidence + [log.first("smi_header")]
    if not evidence:
        return None
    cuda = cuda_for_tf(ctx)
    cause = "The NVIDIA driver{} is older than {} needs".format(
        " " + ctx.driver.value if ctx.driver else "", "CUDA " + cuda if cuda else "this CUDA runtime")
    cause += f" ({table} minimum {minimum})." if minimum else "."
    if compat:
        cause += " The container carries CUDA's forward-compatibility libcuda, which works only on data-center GPUs"
        cause += (f" (libcuda {mismatch.groups[1]}, host kernel driver {mismatch.groups[0]})." if mismatch else ".")
    where = "on the host (the container uses the host's driver)" if ctx.container else ""
    if ctx.windows or ctx.wsl:
        fix = "install a current NVIDIA driver on Windows (WSL2 uses the Windows driver){}".format(
            "" if not minimum else ", at least " + minimum)
    else:
        fix = "update the NVIDIA driver {}to {} (e.g. your distribution's nvidia-driver package), then reboot".format(
            where + " " if where else "", ">= " + minimum if minimum else "the version this CUDA needs")
    fix += "; nvidia-smi's header shows the newest CUDA a driver supports"
    return Finding(ID, "The NVIDIA driver is too old for {}".format("CUDA " + cuda if cuda else "this CUDA runtime"),
                   [ev.line for ev in evidence if ev], cause, fix,
                   tfenv_way(ctx) + " (or pick an environment whose CUDA this driver runs: `tfenv doctor` says which)",
                   rank=24, supersedes=("driver-dso-mismatch", "no-gpu-visible"))


def _minimum(ctx):
    facts = ctx.facts or {}
    e = ctx.env_facts()
    key = "windows" if ctx.windows or ctx.wsl else "linux"
    cuda = e["cuda"] if e else ""
    stack = facts.get("cuda", {}).get(cuda)
    if not stack:
        return "", ""
    return stack["driver_min"].get(key, ""), ("Windows" if key == "windows" else "Linux")
