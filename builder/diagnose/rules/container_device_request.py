"""No GPU in the container, as the container runtime says it (the no-gpu-visible cause, seen from the runtime's
side): libnvidia-container's device selection finds no GPU of that index or UUID (src/cli/common.c "%s: unknown
device"), or runc / crun cannot find nvidia-smi in an image that has none of its own, because the toolkit mounts the
host's nvidia-smi only into containers that asked for a GPU with the utility capability."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines
from builder.diagnose.rules.no_gpu_visible import GPU_REQUESTS, started_without_gpu

ID = "no-gpu-visible"
VOLUME_MOUNTS = "/var/run/nvidia-container-devices"


def check(log, ctx):
    # (not the device plugin's volume-mount list: a toolkit setting, container-toolkit-missing)
    unknown = [ev for ev in log.all("nvc_error") if ev.groups[0] == "device"
               and "unknown device" in (ev.groups[1] or "") and VOLUME_MOUNTS not in ev.groups[1]]
    unknown += log.all("nvd1_invalid_device")[:1]  # nvidia-docker 1.x's NV_GPU
    if unknown:
        nvc = unknown[0].kind == "nvc_error"  # its detail "1: unknown device"; nvidia-docker 1.x's the device alone
        device = (unknown[0].groups[1] or "").split(":")[0] if nvc else unknown[0].groups[0]
        cause = t("The container asked for GPU {device}, which the host does not have: the NVIDIA toolkit knows "
                  "only the GPUs the host's driver lists.", device=device)
        fix = t("list the host's GPUs with `nvidia-smi -L` and ask for one of those indexes or UUIDs (`docker run "
                "--gpus '\"device=0\"' ...`, or NVIDIA_VISIBLE_DEVICES=0), or no more GPUs than it has (`--gpus 1` "
                "asks for one, `--gpus 2` for two), or take them all with `--gpus all`")
        if not nvc:
            fix += t("; nvidia-docker 1.x takes them from NV_GPU (`NV_GPU=0 nvidia-docker run ...`)")
        return Finding(ID, t("The container asked for a GPU the host does not have"), lines(unknown[:1]), cause, fix,
                       "", rank=8, supersedes=("container-no-host-driver",))
    missing = log.all("smi_not_in_container")[:1]
    if not missing:
        return None
    podman = "podman" in log.text or "crun" in log.text
    asked = not started_without_gpu(log) and any(flag in log.text for flag in GPU_REQUESTS)
    cause = t("The container has no nvidia-smi: the NVIDIA container toolkit mounts the host's nvidia-smi (with "
              "the driver's libraries and the GPU devices) only into a container that asks for a GPU.")
    if asked:
        fix = t("the container asked for a GPU without the utility capability: set "
                "NVIDIA_DRIVER_CAPABILITIES=compute,utility (or `--gpus 'all,\"capabilities=compute,utility\"'`)")
    elif podman:
        fix = t("start it with a GPU: `podman run --device nvidia.com/gpu=all ...` after `sudo nvidia-ctk cdi "
                "generate --output=/etc/cdi/nvidia.yaml` on the host")
    else:
        fix = t("start it with a GPU: `docker run --gpus all ...` (the host needs the NVIDIA driver and the NVIDIA "
                "Container Toolkit)")
    return Finding(ID, t("No GPU device is visible to TensorFlow"), lines(missing), cause, fix, "", rank=30)
