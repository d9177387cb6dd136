"""TF (or another program that loads cuDNN by name) could not load cuDNN (libcudnn.so.N / cudnn64_N.dll, cuDNN's
own sub-libraries), or says the DNN library is not found. The major version comes from the names: cuDNN 8's
sub-libraries are cudnn_ops_infer / cudnn_cnn_infer, cuDNN 9's cudnn_ops / cudnn_cnn / cudnn_graph."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import _programs, _tested
from builder.diagnose.rules._common import cuda_for_tf, cudnn_for_tf, module_not_found, tfenv_way
from builder.diagnose.rules._mixed import mixed_copies
from builder.diagnose.versions import family, version_suffix

ID = "missing-cudnn"
# the cuDNN a major version stands for when TF's own does not say, and the CUDA it goes with (TF's tested
# configurations: cuDNN 7.6 with CUDA 10.1, 8.1 with 11.2; cuDNN 9 is built for CUDA 12 and 11.8)
_RELEASE = {"7": ("7.6", "10.1"), "8": ("8.1", "11.2"), "9": ("9", "12")}
_SET = {
    "8": ("cudnn64_8.dll, cudnn_ops_infer64_8.dll, cudnn_cnn_infer64_8.dll",
          "libcudnn.so.8, libcudnn_ops_infer.so.8, libcudnn_cnn_infer.so.8"),
    "9": ("cudnn64_9.dll, cudnn_ops64_9.dll, cudnn_cnn64_9.dll, cudnn_graph64_9.dll",
          "libcudnn.so.9, libcudnn_ops.so.9, libcudnn_cnn.so.9, libcudnn_graph.so.9"),
}


def not_loaded(log, ctx):
    """The cuDNN libraries that failed to load, as (name, event). cuDNN 8's sub-libraries (libcudnn_ops_infer.so.8,
    cudnn_cnn_infer64_8.dll) missing themselves: cuDNN is not (fully) installed. On Windows a sub-library that is
    there but fails with error 126 (or under cuDNN 8.3-8.8) lacks zlibwapi.dll: that finding replaces this one."""
    return [(n, ev) for n, ev in log.failed_libraries() if family(n) == "cudnn" or family(n).startswith("cudnn_")]


def _wanted(log, ctx, program, major):
    """(cuDNN, CUDA) the caller wants: another program's own cuDNN major for the CUDA major its other libraries (or
    that cuDNN) go with; TF's from its tested configurations."""
    if program:
        wanted = ctx.cuda_wanted.value or _programs.required_cuda(log)
        cudnn = major or ("7" if wanted.startswith("10.") else "8")  # cuDNN 7 is the CUDA 10 builds' (Paddle's)
        return cudnn, (wanted or _RELEASE.get(cudnn, ("", "12"))[1]).split(".")[0]
    cudnn = cudnn_for_tf(ctx)
    if not cudnn or (major and not cudnn.startswith(major)):
        # the major's release and CUDA: the table's for 7-9, else TensorFlow's tested configuration (cuDNN 5: 5.1 with
        # CUDA 8, TF 1.0-1.2); the CUDA of the log's other libraries wins (TF 0.12's cublas64_80.dll)
        cudnn, cuda = _RELEASE.get(major) or _tested.cudnn_release(ctx, major) or (major or "8", "11.2")
        return cudnn, (ctx.cuda_wanted.value if ctx.cuda_wanted.value and major not in _RELEASE else cuda)
    return cudnn, cuda_for_tf(ctx) or _RELEASE.get(major, ("", "11.2"))[1]


def check(log, ctx):
    mixed = mixed_copies(log, ctx)
    if mixed and mixed.id == ID:
        return mixed
    found = not_loaded(log, ctx)
    others = log.all("dnn_not_found")[:1] + log.all("cudnn_no_symbol")[:1]
    if not found and not others:
        named = _programs.finding(log, ctx)
        return named if named and named.id == ID else None
    lines = [ev.line for _, ev in found] + [ev.line for ev in others]
    major = next((version_suffix(n).split(".")[0] for n, _ in found if version_suffix(n)), "")
    # a program's own words on the line of its note (Paddle's "[Recommend] copy cudnn into CUDA installation
    # directory") name it even when the paste also holds a TF import (a notebook's traceback header)
    program = named = _programs.other_program(log, found + [("", ev) for ev in others])
    if not program and found and not ctx.tf and not _programs.tf_log(log):
        # cuDNN's own loader (or Julia's) printed the lines, for a caller the log does not name: not TF's cuDNN 8.1
        program = t("the program")
    cudnn, cuda = _wanted(log, ctx, program, major)
    major = major or cudnn.split(".")[0]
    if program:
        cause = t("cuDNN is not part of the CUDA toolkit: {program} wants cuDNN {cudnn} (for CUDA {cuda}) and it is "
                  "not installed or not where the loader looks.", program=program, cudnn=cudnn, cuda=cuda)
    else:
        cause = t("cuDNN is not part of the CUDA toolkit: TF wants cuDNN {cudnn} (for CUDA {cuda}) and it is not "
                  "installed or not where the loader looks.", cudnn=cudnn, cuda=cuda)
    if major == "7":
        cause += " " + t("cuDNN 8 does not stand in for libcudnn 7 (its API changed: a renamed or linked copy fails).")
    if program and not ctx.windows and major != "7":
        fix = t("install cuDNN {cudnn} for CUDA {cuda} in that environment: `pip install nvidia-cudnn-cu{cuda}` (then "
                "its site-packages/nvidia/cudnn/lib on LD_LIBRARY_PATH) or NVIDIA's libcudnn{cudnn} package",
                cudnn=cudnn, cuda=cuda.split(".")[0])
    else:
        fix = _fix(ctx, cudnn, cuda, major)
    build = _programs.build_note(named, ctx)
    if build:  # its build for the cuDNN and CUDA installed first, then the cuDNN it wants
        fix = build + "; " + t("or {fix}", fix=fix)
    elif program and not named and major == "8":
        # the usual callers of cuDNN 8 by name publish cuDNN 9 builds too (their documentation: docs/sources.md §1)
        fix += "; " + t("if cuDNN 9 is what is installed, the program's build for cuDNN 9 is the other way "
                        "(ctranslate2 4.5 and later, onnxruntime-gpu 1.19 and later, PyTorch 2.4 and later)")
    if major in _SET and (any(family(n).startswith("cudnn_") for n, _ in found) or log.has("cudnn_no_symbol")):
        names = _SET[major][0 if ctx.windows else 1]
        fix += "; " + t("cuDNN {major} is a set of libraries ({names}, ...): install the whole set from one cuDNN "
                        "release, not single files", major=major, names=names)
    ops = [ev for n, ev in found if family(n) == "cudnn_ops_infer"]
    if ctx.windows and major == "8" and ops and module_not_found(log, ops):
        # 126 is ERROR_MOD_NOT_FOUND: the DLL, or one it links; cudnn_ops_infer links cuBLAS (zlibwapi is cnn_infer's)
        fix += "; " + t("error 126 on cudnn_ops_infer64_8.dll also means a DLL it links is missing: the cuBLAS of the "
                        "CUDA this cuDNN is built for (cublas64_11.dll and cublasLt64_11.dll for CUDA 11) must be "
                        "on PATH too")
    title = (t("{program} cannot load cuDNN {cudnn}", program=program, cudnn=cudnn) if program else
             t("TensorFlow cannot load cuDNN {cudnn}", cudnn=cudnn))
    title = title[:1].upper() + title[1:]
    return Finding(ID, title, lines, cause, fix, "" if program else tfenv_way(ctx), rank=36)


def _fix(ctx, cudnn, cuda, major):
    if ctx.windows:
        return t("download cuDNN {cudnn} for CUDA {cuda} (NVIDIA login), unzip it and add its bin folder to PATH (or "
                 "copy cudnn64_{major}.dll into the CUDA bin folder), then open a new terminal", cudnn=cudnn,
                 cuda=cuda, major=major)
    fix = t("install cuDNN {cudnn} for CUDA {cuda}: NVIDIA's libcudnn{major} package, or copy its libcudnn.so.{major}* "
            "into /usr/local/cuda-{cuda}/lib64 and run `sudo ldconfig`", cudnn=cudnn, cuda=cuda, major=major)
    if major == "9":
        return fix + "; " + t("or `pip install nvidia-cudnn-cu12` and add site-packages/nvidia/cudnn/lib to "
                              "LD_LIBRARY_PATH")
    if major != "7":
        fix += "; " + t("or `pip install nvidia-cudnn-cu11` (8.x with minor >= TF's) and add "
                        "site-packages/nvidia/cudnn/lib to LD_LIBRARY_PATH")
    return fix
