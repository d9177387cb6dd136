"""TF could not load cuDNN (libcudnn.so.N / cudnn64_N.dll), or says the DNN library is not found."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import cuda_for_tf, cudnn_for_tf, tfenv_way
from builder.diagnose.versions import family, version_suffix

ID = "missing-cudnn"


def not_loaded(log, ctx):
    """The cuDNN libraries that failed to load, as (name, event). cuDNN 8's sub-libraries (libcudnn_ops_infer.so.8,
    cudnn_cnn_infer64_8.dll) missing themselves: cuDNN is not (fully) installed. On Windows a sub-library that is
    there but fails with error 126 (or under cuDNN 8.3-8.8) lacks zlibwapi.dll: that finding replaces this one."""
    return [(n, ev) for n, ev in log.failed_libraries() if family(n) == "cudnn" or family(n).startswith("cudnn_")]


def check(log, ctx):
    found = not_loaded(log, ctx)
    if not found and not log.has("dnn_not_found"):
        return None
    lines = [ev.line for _, ev in found] + [ev.line for ev in log.all("dnn_not_found")[:1]]
    major = version_suffix(found[0][0]) if found else ""
    cudnn = cudnn_for_tf(ctx)
    if not cudnn or (major and not cudnn.startswith(major)):
        cudnn = {"7": "7.6", "8": "8.1"}.get(major, major or "8")
    cuda = cuda_for_tf(ctx) or ("10.1" if major == "7" else "11.2")
    cause = t("cuDNN is not part of the CUDA toolkit: TF wants cuDNN {cudnn} (for CUDA {cuda}) and it is not "
              "installed or not where the loader looks.", cudnn=cudnn, cuda=cuda)
    if major == "7":
        cause += " " + t("cuDNN 8 does not stand in for libcudnn 7 (its API changed: a renamed or linked copy fails).")
    if ctx.windows:
        fix = t("download cuDNN {cudnn} for CUDA {cuda} (NVIDIA login), unzip it and add its bin folder to PATH (or "
                "copy cudnn64_{major}.dll into the CUDA bin folder), then open a new terminal", cudnn=cudnn, cuda=cuda,
                major=major or "8")
    else:
        fix = t("install cuDNN {cudnn} for CUDA {cuda}: NVIDIA's libcudnn{major} package, or copy its "
                "libcudnn.so.{major}* into /usr/local/cuda-{cuda}/lib64 and run `sudo ldconfig`", cudnn=cudnn,
                cuda=cuda, major=major or "8")
        if major != "7":
            fix += "; " + t("or `pip install nvidia-cudnn-cu11` (8.x with minor >= TF's) and add "
                            "site-packages/nvidia/cudnn/lib to LD_LIBRARY_PATH")
    if any(family(n).startswith("cudnn_") for n, _ in found):
        names = ("cudnn64_8.dll, cudnn_ops_infer64_8.dll, cudnn_cnn_infer64_8.dll" if ctx.windows else
                 "libcudnn.so.8, libcudnn_ops_infer.so.8, libcudnn_cnn_infer.so.8")
        fix += "; " + t("cuDNN 8 is a set of libraries ({names}, ...): install the whole set from one cuDNN release, "
                        "not single files", names=names)
    return Finding(ID, t("TensorFlow cannot load cuDNN {cudnn}", cudnn=cudnn), lines, cause, fix, tfenv_way(ctx),
                   rank=36)
