"""XLA cannot find (or run) CUDA's libdevice or ptxas. A ptxas that runs but does not know the GPU (`Value 'sm_86'
is not defined for option 'gpu-name'`) is gpu-too-new: the GPU is newer than that CUDA."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import WIN_TOOLKIT, tfenv_way

ID = "xla-libdevice"


def check(log, ctx):
    too_old = {ev.line for ev in log.all("ptxas_arch")}
    evidence = log.all("libdevice")[:2] + [ev for ev in log.all("ptxas") if ev.line not in too_old][:2]
    if not evidence:
        return None
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
                   tfenv_way(ctx), rank=43)
