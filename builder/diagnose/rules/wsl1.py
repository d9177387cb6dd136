"""The log comes from WSL1, which has no GPU support at all."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way, wsl_facts

ID = "wsl1"
# any sign of a GPU attempt: under WSL 1 each of them fails for the one reason
GPU_KINDS = ("load_fail", "cuinit", "no_driver_running", "dev_missing", "opened", "smi_no_driver", "nvml_failed",
             "insufficient_driver", "cuda_error", "cuda_error_text", "libcuda_unversioned", "gpu_none",
             "torch_no_driver", "nvml_init", "smi_failed", "gpu_setup")


def check(log, ctx):
    if ctx.platform.value != "wsl1" or not log.has(*GPU_KINDS):
        return None
    gpu = [ev for kind in GPU_KINDS for ev in log.all(kind)[:1]]
    evidence = [ctx.platform.line] + [min(gpu, key=lambda ev: ev.line).line]
    wsl = wsl_facts(ctx)
    cause = t("This Linux runs under WSL 1 ({how}), a translation layer without GPU access; CUDA and DirectML work "
              "only in WSL 2.", how=ctx.platform.how)
    fix = t("convert the distribution in Windows PowerShell: `wsl --set-version <distro> 2` (after `wsl --update`; "
            "see `wsl -l -v`), then `wsl --shutdown`; WSL 2 with a GPU needs Windows build {build} or later "
            "(Windows 10 or 11) and the NVIDIA Windows driver {driver} or newer",
            build=wsl.get("windows_build_min", "?"), driver=wsl.get("driver_min_windows", "?"))
    return Finding(ID, t("WSL 1 has no GPU support"), evidence, cause, fix, tfenv_way(ctx), rank=5,
                   supersedes=("libcuda-missing", "no-gpu-harmless", "no-gpu-visible", "driver-too-old",
                               "cuinit-error", "missing-cuda-runtime"))
