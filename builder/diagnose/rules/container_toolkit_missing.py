"""Docker cannot hand a GPU to the container: no NVIDIA runtime is registered with the daemon (moby's device
request and runtime-name errors, or the toolkit's hook missing), before TF even starts."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "container-toolkit-missing"


def check(log, ctx):
    runtime = [ev for ev in log.all("unknown_runtime") if (ev.groups[0] or "nvidia").lower().startswith("nvidia")]
    evidence = log.all("select_device_driver")[:1] + runtime[:1] + log.all("nvc_hook_missing")[:1]
    if not evidence:
        return None
    cause = t("Docker has no NVIDIA runtime to give the container a GPU: the NVIDIA Container Toolkit is not "
              "installed on the host, or Docker was not configured and restarted after installing it.")
    if ctx.windows:
        fix = t("with Docker Desktop on Windows the GPU comes through its WSL 2 backend: turn on \"Use the WSL 2 "
                "based engine\", update Docker Desktop and the NVIDIA Windows driver, then restart Docker Desktop; "
                "start the container with `docker run --gpus all ...`")
    else:
        fix = t("install the NVIDIA Container Toolkit on the host (package nvidia-container-toolkit), register it with "
                "`sudo nvidia-ctk runtime configure --runtime=docker` and restart the daemon with `sudo systemctl "
                "restart docker`; then start the container with `docker run --gpus all ...`")
        if runtime:
            fix += t("; `--runtime=nvidia` (and compose's `runtime: nvidia`) works only once that runtime is "
                     "registered, `--gpus all` needs no runtime name")
    return Finding(ID, t("Docker cannot give this container a GPU (no NVIDIA container runtime)"), lines(evidence),
                   cause, fix, t("`tfenv doctor` checks the host's driver and Docker's GPU support"), rank=3,
                   supersedes=("no-gpu-visible", "libcuda-missing", "no-gpu-harmless"))
