"""The GPU is newer than the CUDA the TF build has code for (no kernel image, or a slow PTX JIT start)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import vkey

ID = "gpu-too-new"
ERRORS = ("CUDA_ERROR_NO_BINARY_FOR_GPU", "cudaErrorNoKernelImageForDevice", "CUDA_ERROR_INVALID_PTX",
          "CUDA_ERROR_INVALID_IMAGE")


def check(log, ctx):
    jit = log.all("ptx_jit")[:1]
    errors = log.all("no_kernel_image")[:1] + [ev for ev in log.all("cuda_error") if ev.groups[0] in ERRORS][:1]
    cc = ctx.compute_capability.value
    old_cuda = ctx.cuda_wanted.value.startswith("10.") and vkey(cc) >= (8, 0)
    if not (jit or errors or old_cuda):
        return None
    evidence = jit + errors
    if old_cuda:
        evidence.append(log.first("device") or log.first("device_old"))
    cause = t("The GPU (compute capability {cc}) is newer than the code in this TF build.", cc=cc or "?")
    if jit and not errors:
        cause += " " + t("TF has no binaries for it and the driver compiles every kernel from PTX at the first "
                         "start: it works, slowly (minutes, up to 30).")
    fix = t("keep the JIT-compiled kernels between runs with a bigger cache: CUDA_CACHE_MAXSIZE=4294967296 (the "
            "default cache is too small); or use a TF build whose CUDA has code for this GPU")
    if errors or old_cuda:
        fix = t("use a TF built with a newer CUDA: CUDA 10.x builds (TF <= 2.3) have no code for sm_80/sm_86 GPUs "
                "(RTX 30xx and newer), CUDA 11 builds (TF 2.4+) do; {rest}", rest=fix)
    return Finding(ID, t("The GPU is newer than this TensorFlow build"), [ev.line for ev in evidence if ev], cause,
                   fix, tfenv_way(ctx) + "; " + t("a CUDA 11 environment (tf25 to tf29) runs Ampere and newer GPUs"),
                   rank=44)
