"""The NVIDIA container toolkit refused to start the container: the host driver is older than the CUDA of the
image (libnvidia-container's requirement check: NVIDIA_REQUIRE_CUDA "cuda>=X" against the driver's CUDA)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines
from builder.diagnose.versions import line_of

ID = "container-driver-too-old"


def check(log, ctx):
    evidence = log.all("nvc_requirement")[:1]
    if not evidence and log.has("nvc_requirement_error"):
        evidence = log.all("nvc_require_arg")[:1]  # the condition as the hook's command line passed it
    if not evidence:
        return None
    what, _, version = evidence[0].groups
    if what != "cuda":
        cause = t("The image requires `{requirement}` of the host's GPU or driver and this host does not meet it.",
                  requirement=f"{what}{evidence[0].groups[1]}{version}")
        fix = t("update the NVIDIA driver on the host, or use an image built for this GPU and driver")
        return Finding(ID, t("The host does not meet the image's GPU requirement"), lines(evidence), cause, fix,
                       "", rank=5)
    cuda = line_of(version)
    minimum = _driver_minimum(ctx, cuda)
    cause = t("The image is built for CUDA {cuda} and the NVIDIA driver on the host is older than CUDA {cuda} needs; "
              "the toolkit checks this before the container starts (the CUDA installed on the host plays no part).",
              cuda=cuda)
    if minimum:
        fix = t("update the NVIDIA driver on the host to {minimum} or newer (then reboot; `nvidia-smi` shows CUDA "
                "Version {cuda} or higher), or use an image built for an older CUDA that this driver runs",
                minimum=minimum, cuda=cuda)
    else:
        fix = t("update the NVIDIA driver on the host to one whose `nvidia-smi` shows CUDA Version {cuda} or higher "
                "(then reboot), or use an image built for an older CUDA that this driver runs", cuda=cuda)
    return Finding(ID, t("The host's NVIDIA driver is too old for this image's CUDA {cuda}", cuda=cuda),
                   lines(evidence), cause, fix,
                   t("`tfenv doctor` names the environments whose CUDA this driver runs"), rank=5,
                   supersedes=("driver-too-old",))


def _driver_minimum(ctx, cuda):
    """NVIDIA's minimum Linux driver for a CUDA release (matrix.yaml: the stacks' and NVIDIA's table), '' if unknown."""
    facts = ctx.facts or {}
    known = facts.get("cuda_drivers") or {v: s.get("driver_min") or {} for v, s in (facts.get("cuda") or {}).items()}
    return (known.get(cuda) or {}).get("linux", "")
