"""XLA cannot find CUDA's libdevice or a ptxas that knows the GPU."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import WIN_TOOLKIT, tfenv_way

ID = "xla-libdevice"


def check(log, ctx):
    evidence = log.all("libdevice")[:2] + log.all("ptxas")[:2] + log.all("ptxas_arch")[:1]
    if not evidence:
        return None
    arch = log.first("ptxas_arch")
    if arch:
        cause = t("The ptxas XLA found is from a CUDA that does not know {arch} (this GPU): it came from an older "
                  "toolkit first on the path.", arch=arch.groups[0])
    else:
        cause = t("XLA (jit_compile, and Keras optimizers from TF 2.11) compiles GPU code itself and needs CUDA's "
                  "nvvm/libdevice and ptxas; pip and conda CUDA libraries do not include them, and no CUDA toolkit "
                  "was found.")
    if ctx.windows:
        fix = t("install the CUDA 11.2 toolkit (11.1+ for sm_86) and put its bin folder with ptxas.exe first on PATH "
                "({folder}); point XLA at it: `set XLA_FLAGS=--xla_gpu_cuda_data_dir=\"{root}\"`",
                folder=WIN_TOOLKIT.format("11.2"), root="C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.2")
    else:
        fix = t("install the CUDA toolkit matching TF (or in conda: `conda install -c nvidia cuda-nvcc`) and point XLA "
                "at the folder that holds nvvm/libdevice: `export XLA_FLAGS=--xla_gpu_cuda_data_dir=/usr/local/cuda` "
                "(or $CONDA_PREFIX); a ptxas from CUDA 11.1+ is needed for sm_86 GPUs")
    return Finding(ID, t("XLA cannot find libdevice or a suitable ptxas"), [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx), rank=43, supersedes=("gpu-too-new",) if arch else ())
