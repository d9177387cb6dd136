"""TensorRT (libnvinfer) and CUPTI are optional: TF works without them."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.versions import family

ID = "optional-library"


def check(log, ctx):
    found = [(n, ev) for n, ev in log.failed_libraries() if family(n) in ("nvinfer", "nvinfer_plugin", "cupti")]
    found += [("TensorRT", ev) for ev in log.all("trt_missing")[:1]]
    if not found:
        return None
    names = [n for n, _ in found]
    cause = t("TensorRT (libnvinfer) is used only by TF-TRT, CUPTI only by the profiler; TF runs without them.")
    fix = t("nothing to do unless you use TF-TRT or the profiler: the warning is harmless, ignore it (for TF-TRT "
            "install TensorRT, for the profiler CUDA's CUPTI of that version)")
    return Finding(ID, t("Optional libraries not found: {names} (harmless)", names=", ".join(names)),
                   [ev.line for _, ev in found], cause, fix, "", harmless=True, rank=95)
