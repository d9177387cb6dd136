"""The NVIDIA container toolkit refused to start the container: the host driver is older than the CUDA of the
image (libnvidia-container's requirement check: NVIDIA_REQUIRE_CUDA "cuda>=X" against the driver's CUDA)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines
from builder.diagnose.rules._tested import driver_min
from builder.diagnose.versions import line_of

ID = "container-driver-too-old"


def check(log, ctx):
    evidence = log.all("nvc_requirement")[:1]
    if not evidence and log.has("nvc_requirement_error"):
        evidence = log.all("nvc_require_arg")[:1]  # the condition as the hook's command line passed it
    if not evidence:
        return None
    what, _, version = evidence[0].groups
    what = what.lower()  # nvidia-docker 1.x says "CUDA"
    # The image's CUDA: the failed condition, else its NVIDIA_REQUIRE_CUDA as the hook passed it (--require=cuda>=X);
    # a brand= or driver condition beside it is one of the image's Tesla-only exceptions, which failed with it.
    wanted = version if what == "cuda" else next(
        (ev.groups[2] for ev in log.all("nvc_require_arg") if ev.groups[0] == "cuda"), "")
    cuda = line_of(wanted)
    minimum = driver_min(ctx, cuda) if cuda else ""
    if what == "driver" and not minimum:  # `driver >= 410`: the condition names the minimum itself
        minimum = version
    if not (cuda or minimum):
        cause = t("The image requires `{requirement}` of the host's GPU or driver and this host does not meet it.",
                  requirement=f"{what}{evidence[0].groups[1]}{version}")
        fix = t("update the NVIDIA driver on the host, or use an image built for this GPU and driver")
        return Finding(ID, t("The host does not meet the image's GPU requirement"), lines(evidence), cause, fix,
                       "", rank=5)
    if cuda:
        cause = t("The image is built for CUDA {cuda} and the NVIDIA driver on the host is older than CUDA {cuda} "
                  "needs; the toolkit checks this before the container starts (the CUDA installed on the host plays "
                  "no part).", cuda=cuda)
        title = t("The host's NVIDIA driver is too old for this image's CUDA {cuda}", cuda=cuda)
    else:
        cause = t("The NVIDIA driver on the host is older than the image requires (driver {minimum}); the toolkit "
                  "checks this before the container starts.", minimum=minimum)
        title = t("The host's NVIDIA driver is too old for this image")
    earlier = t("or use an earlier CUDA container (an image built for an older CUDA that this driver runs)")
    if minimum and cuda:
        fix = t("update the NVIDIA driver on the host to {minimum} or newer, the minimum of CUDA {cuda} (the host "
                "driver is the one the container uses; then reboot), {earlier}", minimum=minimum, cuda=cuda,
                earlier=earlier)
    elif minimum:
        fix = t("update the NVIDIA driver on the host to {minimum} or newer (the host driver is the one the container "
                "uses; then reboot), {earlier}", minimum=minimum, earlier=earlier)
    else:
        fix = t("update the NVIDIA driver on the host to one whose `nvidia-smi` shows CUDA Version {cuda} or higher "
                "(the host driver is the one the container uses; then reboot), {earlier}", cuda=cuda, earlier=earlier)
    return Finding(ID, title, lines(evidence), cause, fix,
                   t("`tfenv doctor` names the environments whose CUDA this driver runs"), rank=5,
                   supersedes=("driver-too-old",))
