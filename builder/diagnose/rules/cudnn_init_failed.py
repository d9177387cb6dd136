"""cuDNN loaded but could not create its handle (CUDNN_STATUS_INTERNAL_ERROR and friends)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import vkey

ID = "cudnn-init-failed"
STATUSES = ("CUDNN_STATUS_INTERNAL_ERROR", "CUDNN_STATUS_NOT_INITIALIZED", "CUDNN_STATUS_ALLOC_FAILED",
            "CUDNN_STATUS_EXECUTION_FAILED")


def check(log, ctx):
    events = [ev for ev in log.all("cudnn_status") if ev.groups[0] in STATUSES]
    events += log.all("cudnn_handle")[:2] + log.all("cudnn_conv")[:1] + log.all("dnn_impl")[:1]
    if not events:
        return None
    events.sort(key=lambda ev: ev.line)
    cause = t("cuDNN could not create its handle. The usual reason: TF reserved nearly all GPU memory up front, so "
              "it has none left for its workspace (or another process holds the GPU).")
    fix = t("let TF allocate GPU memory as needed: call tf.config.experimental.set_memory_growth(gpu, True) for each "
            "GPU before building the model, or set TF_FORCE_GPU_ALLOW_GROWTH=true (TF 1.x: "
            "config.gpu_options.allow_growth = True); close other programs that use the GPU (nvidia-smi lists them) "
            "and try a smaller batch")
    cc = vkey(ctx.compute_capability.value)
    if cc >= (8, 0) and ctx.tf and vkey(ctx.tf.value) <= (2, 4):
        cause += " " + t("Also: this GPU (compute capability {cc}) is newer than TF {tf}'s CUDA and cuDNN.",
                         cc=ctx.compute_capability.value, tf=ctx.tf.value)
        fix += "; " + t("an Ampere or newer GPU needs TF 2.5+ (CUDA 11.2, cuDNN 8.1)")
    return Finding(ID, t("cuDNN failed to initialize"), [ev.line for ev in events[:4]], cause, fix, tfenv_way(ctx),
                   rank=46)
