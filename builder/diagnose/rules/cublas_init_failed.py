"""cuBLAS could not start (cuda_blas.cc: "failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED"), which
fails the first matrix multiply ("Blas GEMM launch failed")."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, tfenv_way
from builder.diagnose.versions import vkey

ID = "cublas-init-failed"


def check(log, ctx):
    evidence = log.all("cublas_init")[:2]
    if not evidence:
        return None
    cause = t("cuBLAS could not create its handle, so the first matrix multiply fails. The usual reason: TF "
              "reserved nearly all GPU memory up front and cuBLAS has none left for its workspace (or another "
              "process holds the GPU).")
    fix = t("let TF allocate GPU memory as needed: call tf.config.experimental.set_memory_growth(gpu, True) for each "
            "GPU before building the model, or set TF_FORCE_GPU_ALLOW_GROWTH=true (TF 1.x: "
            "config.gpu_options.allow_growth = True); close other programs on the GPU (nvidia-smi lists them)")
    cc = vkey(ctx.compute_capability.value)
    if cc >= (8, 0) and (ctx.cuda_wanted.value.startswith("10.") or (ctx.tf and vkey(ctx.tf.value) <= (2, 3))):
        cause += " " + t("This GPU (compute capability {cc}) also needs a CUDA 11 build of TF.",
                         cc=ctx.compute_capability.value)
        fix += t("; an Ampere or newer GPU needs TF 2.4+ built with CUDA 11")
    return Finding(ID, t("cuBLAS failed to initialize"), lines(evidence), cause, fix, tfenv_way(ctx), rank=46)
