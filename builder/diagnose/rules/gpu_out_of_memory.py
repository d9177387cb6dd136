"""The GPU ran out of memory (OOM when allocating, ResourceExhaustedError)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t

ID = "gpu-out-of-memory"


def check(log, ctx):
    evidence = log.all("oom")[:2]
    if not evidence:
        return None
    cause = t("The model, batch or another process needs more GPU memory than is free; the GPU setup itself works.")
    fix = t("use a smaller batch size (or smaller inputs/model); enable memory growth "
            "(tf.config.experimental.set_memory_growth(gpu, True)) so TF does not hold memory it does not use; stop "
            "other processes on the GPU (nvidia-smi lists them); mixed precision (tf.keras.mixed_precision) halves "
            "activations")
    return Finding(ID, t("The GPU ran out of memory"), [ev.line for ev in evidence], cause, fix,
                   t("nothing tfenv changes: this is the workload's size"), rank=60)
