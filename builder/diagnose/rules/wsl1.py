"""The log comes from WSL1, which has no GPU support at all."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import tfenv_way

ID = "wsl1"
GPU_KINDS = ("load_fail", "cuinit", "no_driver_running", "dev_missing", "opened", "smi_no_driver", "nvml_failed")


def check(log, ctx):
    if ctx.platform.value != "wsl1" or not log.has(*GPU_KINDS):
        return None
    gpu = [ev for kind in GPU_KINDS for ev in log.all(kind)[:1]]
    evidence = [ctx.platform.line] + [min(gpu, key=lambda ev: ev.line).line]
    cause = (f"This Linux runs under WSL 1 ({ctx.platform.how}), a translation layer without GPU access; CUDA and "
             f"DirectML work only "
             "in WSL 2.")
    fix = ("convert the distribution in Windows PowerShell: `wsl --set-version <distro> 2` (after `wsl --update`; see "
           "`wsl -l -v`), then `wsl --shutdown`; WSL 2 needs Windows 10 21H2+ or 11 and the NVIDIA Windows driver "
           "R495+")
    return Finding(ID, "WSL 1 has no GPU support", evidence, cause, fix, tfenv_way(ctx), rank=5,
                   supersedes=("libcuda-missing", "no-gpu-harmless", "no-gpu-visible"))
