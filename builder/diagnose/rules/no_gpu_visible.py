"""The driver library loaded but no GPU device is visible (a container without --gpus, CUDA_VISIBLE_DEVICES)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.rules._gpu import libcuda_failures

ID = "no-gpu-visible"


def check(log, ctx):
    no_device = [ev for ev in log.all("cuinit") if "NO_DEVICE" in ev.groups[0] or "(-1)" in ev.groups[0]]
    evidence = no_device[:1] + log.all("dev_missing")[:1]
    if no_device or evidence:
        evidence += log.all("no_driver_running")[:1]
    if not evidence or libcuda_failures(log):
        return None
    cause = t("The driver library (libcuda) loaded, but no GPU device is visible to this process.")
    if ctx.container:
        cause += " " + t("Inside a container the GPU exists only when it was started with a GPU request.")
        fix = t("start the container with `docker run --gpus all ...` (the host needs the NVIDIA driver and the "
                "NVIDIA container toolkit; docker compose: a GPU device reservation); pointing LD_LIBRARY_PATH at "
                "CUDA's compat libraries does not help")
    elif ctx.windows:
        fix = t("check that Device Manager and nvidia-smi show the GPU and that CUDA_VISIBLE_DEVICES is not set to -1 "
                "or empty; on a laptop, run Python on the NVIDIA GPU (NVIDIA Control Panel)")
    else:
        fix = t("in a container (Docker, a Jupyter image): it was started without a GPU, start it with `docker run "
                "--gpus all ...`; on the host: check that nvidia-smi lists the GPU, that CUDA_VISIBLE_DEVICES is not "
                "set to -1 or empty, and that /dev/nvidia0 exists (the nvidia kernel module is loaded)")
    return Finding(ID, t("No GPU device is visible to TensorFlow"), [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx), rank=40)
