"""libcuda.so.1 / nvcuda.dll (the NVIDIA driver's own library) is not loadable where a GPU is expected."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.rules._gpu import fatal, gpu_expected, libcuda_failures

ID = "libcuda-missing"
WSL_LIB = "/usr/lib/wsl/lib"


def check(log, ctx):
    failed = libcuda_failures(log)
    if not failed or not (gpu_expected(log, ctx) or fatal(log, failed[0][1])):
        return None
    name = failed[0][0]
    evidence = [ev.line for _, ev in failed[:1]] + [ev.line for ev in log.all("cuinit")[:1]]
    cause = f"{name} is the NVIDIA driver's library, never part of CUDA or an image, and it is not loadable here."
    if ctx.wsl:
        fix = (f"in WSL2 the Windows driver provides it in {WSL_LIB}: export "
               f"LD_LIBRARY_PATH={WSL_LIB}${{LD_LIBRARY_PATH:+:"
               "$LD_LIBRARY_PATH}; never install a Linux NVIDIA driver inside WSL")
    elif ctx.windows:
        fix = "install the NVIDIA display driver for this GPU (it installs nvcuda.dll in System32), then restart"
    elif ctx.container:
        fix = ("start the container with `docker run --gpus all ...` (the NVIDIA container toolkit mounts the host "
               "driver's libcuda.so.1 at start)")
    else:
        fix = ("install the NVIDIA driver (nvidia-smi must work afterwards), or add the folder holding libcuda.so.1 "
               "to LD_LIBRARY_PATH")
    return Finding(ID, f"The NVIDIA driver library {name} cannot be loaded", evidence, cause, fix,
                   tfenv_way(ctx), rank=30 if ctx.container else 38, supersedes=("no-gpu-harmless",))
