"""TF's NUMA notes (cuda_gpu_executor.cc, later cuda_executor.cc): informational, the GPU works."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "numa-harmless"


def check(log, ctx):
    evidence = log.all("numa")[:1]
    if not evidence:
        return None
    cause = t("TF asks the kernel which NUMA node the GPU sits on; this kernel (WSL 2's, most desktops') reports "
              "none, and TF uses node 0. The GPU works.")
    fix = t("nothing to fix: the NUMA note is harmless; TF_CPP_MIN_LOG_LEVEL=1 hides TF's informational lines")
    return Finding(ID, t("NUMA node notes (harmless)"), lines(evidence), cause, fix, "", harmless=True, rank=94)
