"""The container engine predates GPU requests: the docker CLI before `--gpus` (Docker 19.03), a Compose without the
GPU keys of the compose file, Podman before CDI device names (4.1: before it, `--device nvidia.com/gpu=0` is
stat()ed as a path)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "docker-too-old"
GPUS_SINCE = "19.03"
PODMAN_CDI_SINCE = "4.1"  # Podman's release notes (4.1.0: CDI devices for --device), as NVIDIA's maintainers say


def check(log, ctx):
    evidence = log.all("unknown_gpus_flag")[:1] + log.all("compose_gpu_key")[:1] + log.all("cdi_name_as_path")[:1]
    if not evidence:
        return None
    if log.has("cdi_name_as_path") or (log.has("unknown_gpus_flag") and "podman" in log.text):
        cause = t("This Podman does not know the GPU request: CDI device names such as nvidia.com/gpu=all came with "
                  "Podman {version} (`--gpus` later still).", version=PODMAN_CDI_SINCE)
        fix = t("update Podman to {version} or later, generate the CDI spec on the host with `sudo nvidia-ctk cdi "
                "generate --output=/etc/cdi/nvidia.yaml`, then start the container with `podman run --device "
                "nvidia.com/gpu=all ...`", version=PODMAN_CDI_SINCE)
    elif log.has("unknown_gpus_flag"):
        cause = t("This docker command line has no `--gpus` flag: GPU device requests came with Docker {version}.",
                  version=GPUS_SINCE)
        fix = t("update Docker (CLI and daemon) to {version} or later from Docker's own packages (docker-ce), keep "
                "the NVIDIA Container Toolkit installed on the host, then start the container with `docker run "
                "--gpus all ...`; with an older Docker only nvidia-docker2's `--runtime=nvidia` works",
                version=GPUS_SINCE)
    elif "gpus" in log.line_text(evidence[0].line) and "services." in log.line_text(evidence[0].line):
        cause = t("This Compose does not know the service-level `gpus` key of the compose file, a recent addition "
                  "to the Compose specification.")
        fix = t("update Docker Compose (the `docker compose` plugin) to a current release, or ask for the GPU the "
                "older way, under deploy.resources.reservations.devices with `driver: nvidia` and "
                "`capabilities: [gpu]`")
    else:
        cause = t("This docker-compose does not know the GPU keys of the compose file (device reservations came "
                  "with docker-compose 1.28 and Compose v2).")
        fix = t("use Compose v2 (`docker compose`, the Docker plugin) or docker-compose 1.28 or later, and ask for "
                "the GPU under deploy.resources.reservations.devices with `capabilities: [gpu]`")
    return Finding(ID, t("This Docker is too old to request a GPU"), lines(evidence), cause, fix,
                   t("`tfenv run` starts its containers with `--gpus all`, which needs Docker {version}+",
                     version=GPUS_SINCE), rank=4)
