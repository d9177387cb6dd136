"""TF 2.4 wants CUDA 11.0's libcusolver.so.10; CUDA 11.1 and later ship only libcusolver.so.11."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import missing_cuda_runtime
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import family, version_suffix, vkey

ID = "tf24-cusolver"


def check(log, ctx):
    failed = log.failed_libraries()
    hit = [(n, ev) for n, ev in failed if family(n) == "cusolver" and version_suffix(n) == "10"]
    if not hit:
        return None
    cuda10 = any(family(n) == "cudart" and version_suffix(n).startswith("10") for n, _ in failed)
    cuda10 = cuda10 or any(family(n) == "cudart" and version_suffix(n).startswith("10") for n in log.opened_libraries())
    if cuda10 or (ctx.tf and vkey(ctx.tf.value) < (2, 4)):
        return None  # TF 2.2/2.3: a plain missing CUDA 10 library
    name, ev = hit[0]
    cause = t("TF 2.4 was built with CUDA 11.0, whose cuSOLVER is {name}; CUDA 11.1 and later ship only the .11 "
              "name.", name=name)
    if ctx.windows:
        fix = t("install CUDA 11.0 beside the newer CUDA and put its bin folder on PATH, or move to TF 2.5+ (CUDA "
                "11.2, loads cusolver64_11.dll); copying cusolver64_11.dll to cusolver64_10.dll is a reported "
                "workaround, not a supported one")
    else:
        fix = t("use CUDA 11.0 with TF 2.4 (its lib64 on LD_LIBRARY_PATH), or move to TF 2.5 or later (CUDA 11.2, "
                "loads libcusolver.so.11); the link `ln -s libcusolver.so.11 libcusolver.so.10` in the CUDA lib "
                "folder is a reported workaround, not a supported one")
    return Finding(ID, t("TF 2.4 cannot load {name} (CUDA 11.0's cuSOLVER)", name=name), [ev.line], cause, fix,
                   tfenv_way(ctx) + "; " + t("tf24 carries CUDA 11.0, tf25 and later CUDA 11.2"), rank=30,
                   supersedes=("missing-cuda-runtime",) if len(missing_cuda_runtime.missing(log)) == 1 else ())
