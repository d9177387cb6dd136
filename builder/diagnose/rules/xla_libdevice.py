"""XLA cannot find (or run) CUDA's libdevice or ptxas. A ptxas that runs but does not know the GPU (`Value 'sm_86'
is not defined for option 'gpu-name'`) is gpu-too-new: the GPU is newer than that CUDA. XLA_FLAGS'
--xla_gpu_cuda_data_dir naming a conda environment other than the one the log runs in is this cause too: XLA
looks for nvvm/libdevice in that other environment's folder."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import WIN_TOOLKIT, tfenv_way

ID = "xla-libdevice"


def check(log, ctx):
    too_old = {ev.line for ev in log.all("ptxas_arch")}
    evidence = log.all("libdevice")[:2] + [ev for ev in log.all("ptxas") if ev.line not in too_old][:2]
    stale = stale_data_dir(log)
    if not evidence:
        return _stale(log, ctx, *stale) if stale else None
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


def stale_data_dir(log):
    """(the XLA_FLAGS event, its env, the active env) when XLA_FLAGS points into another conda environment."""
    for flag in log.all("xla_data_dir"):
        named = [ev.groups[0] for ev in log.all("conda_env_path") if ev.line == flag.line]
        active = [ev.groups[0] for ev in log.all("conda_env_path") if ev.line != flag.line]
        if named and active and named[0] not in active:
            return flag, named[0], active[0]
    return ()


def _stale(log, ctx, flag, named, active):
    cause = t("XLA_FLAGS sends XLA to the conda environment {named} for CUDA's nvvm/libdevice, while the log runs in "
              "the environment {active}: XLA looks in the wrong folder.", named=named, active=active)
    fix = t("point XLA_FLAGS at the active environment: `export XLA_FLAGS=--xla_gpu_cuda_data_dir=$CONDA_PREFIX/lib` "
            "(the folder that holds nvvm/libdevice) or `unset XLA_FLAGS`; set it per environment (`conda env config "
            "vars set XLA_FLAGS=...`), not in ~/.bashrc")
    if ctx.windows:
        fix = t("point XLA_FLAGS at the active environment: `set "
                "XLA_FLAGS=--xla_gpu_cuda_data_dir=%CONDA_PREFIX%\\Library` (the folder that holds nvvm\\libdevice) "
                "or clear it (`set XLA_FLAGS=`); set it per environment (`conda env config vars set XLA_FLAGS=...`), "
                "not for the whole user")
    return Finding(ID, t("XLA_FLAGS points to another environment's CUDA folder"), [flag.line], cause, fix,
                   tfenv_way(ctx), rank=43)
