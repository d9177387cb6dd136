"""TF's NUMA notes (cuda_gpu_executor.cc, later cuda_executor.cc): informational, the GPU works."""

from builder.diagnose.i18n import t
from builder.diagnose.rules._common import harmless_note

ID = "numa-harmless"


def _words():
    return (t("NUMA node notes (harmless)"),
            t("TF asks the kernel which NUMA node the GPU sits on; this kernel (WSL 2's, most desktops') reports "
              "none, and TF uses node 0. The GPU works."),
            t("nothing to fix: the NUMA note is harmless; TF_CPP_MIN_LOG_LEVEL=1 hides TF's informational lines"))


check = harmless_note(ID, "numa", most=1, rank=94, words=_words)
