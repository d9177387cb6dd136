"""TF probing for a GPU on a machine (or container, or CI runner) that has none: the messages are harmless."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import missing_cuda_runtime
from builder.diagnose.rules._common import wsl_lib
from builder.diagnose.rules._gpu import fatal, gpu_expected, libcuda_failures, libcuda_loaded

ID = "no-gpu-harmless"


def check(log, ctx):
    failed = libcuda_failures(log) or [("libcudart", ev) for ev in log.all("no_cuda_drivers")[:1]]
    cuinit = [ev for ev in log.all("cuinit") if "303" in ev.groups[0]]
    no_driver = [ev for ev in log.all("no_driver_running") if "/proc/driver/nvidia/version" in (ev.groups[1] or "")]
    # A CI runner has no GPU: TF's "Ignore above cudart dlerror" is then the whole story.
    ci_probe = log.has("ci") and log.has("cudart_stub") and not failed
    if libcuda_loaded(log) or gpu_expected(log, ctx) or not (failed or cuinit or no_driver or ci_probe):
        return None
    if failed and fatal(log, failed[0][1]):
        return None
    evidence = [ev.line for _, ev in failed[:1]] + [ev.line for ev in (cuinit[:1] + no_driver[:1])]
    supersedes = ()
    if ci_probe:
        evidence += [ev.line for _, ev in missing_cuda_runtime.missing(log)[:1]] + [log.first("cudart_stub").line]
        supersedes = ("missing-cuda-runtime",)
    if ci_probe:
        cause = t("TF probes for the NVIDIA driver and CUDA at start; on a CI runner without an NVIDIA GPU it finds "
                  "none, says so, and runs on the CPU. Any real failure is elsewhere in the log.")
    elif ctx.container:
        cause = t("TF probes for the NVIDIA driver and CUDA at start; in a container without an NVIDIA GPU (or "
                  "without one passed in) it finds none, says so, and runs on the CPU. Any real failure is elsewhere "
                  "in the log.")
    else:
        cause = t("TF probes for the NVIDIA driver and CUDA at start; on a machine without an NVIDIA GPU it finds "
                  "none, says so, and runs on the CPU. Any real failure is elsewhere in the log.")
    if ctx.container:
        gpu = t("to use a GPU, start the container with `docker run --gpus all ...` on a host with the NVIDIA driver")
    elif ctx.windows:
        gpu = t("to use a GPU, install the NVIDIA driver")
    elif ctx.wsl:
        gpu = t("to use a GPU in WSL2, install the NVIDIA Windows driver and `export LD_LIBRARY_PATH={wsl_lib}`",
                wsl_lib=wsl_lib(ctx))
    else:
        gpu = t("to use a GPU, install the NVIDIA driver (nvidia-smi must work)")
    fix = t("nothing to fix if you meant to run on the CPU: these lines are harmless and can be ignored (silence "
            "them with TF_CPP_MIN_LOG_LEVEL=2, or install tensorflow-cpu)") + "; " + gpu
    # No driver at all (libcuda missing): the CUDA libraries TF also misses are a consequence, not the cause.
    rank = 31 if failed and missing_cuda_runtime.missing(log) else 90
    if rank == 31:
        fix += " " + t("(then the CUDA and cuDNN libraries TF names above)")
    return Finding(ID, t("No NVIDIA GPU here: TensorFlow runs on the CPU (harmless)"), evidence, cause, fix,
                   t("`tfenv doctor` tells whether this machine has a usable GPU"), harmless=True, rank=rank,
                   supersedes=supersedes)
