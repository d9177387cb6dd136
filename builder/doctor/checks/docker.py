"""Docker: can `tfenv run --gpus` work here (the daemon reachable, an NVIDIA runtime or hook)."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.docker import docker_info
from builder.doctor.host import OK, SKIP, WARN, Check, Host, in_container

ID = "docker"


def check(ctx) -> List[Check]:
    return [check_docker(ctx.host, bool(ctx.info.gpus))]


def check_docker(host: Host, have_gpu: bool) -> Check:
    info, why = docker_info(host)
    if info is None and in_container(host):
        return Check(ID, SKIP, t("inside a container without a Docker socket: run doctor on the host for "
                                       "Docker"))
    if info is None:
        fix = (t("{command}, then log in again", command="sudo usermod -aG docker $USER")
               if "permission denied" in why.lower()
               else t("start Docker (Docker Desktop with the WSL2 backend on Windows) to use {command}",
                      command="tfenv run"))
        return Check(ID, WARN, t("Docker daemon not reachable ({why})", why=why), fix)
    runtimes = sorted(info.get("Runtimes") or {})
    system = info.get("OperatingSystem", "")
    version = info.get("ServerVersion", "?")
    if "nvidia" in runtimes:
        return Check(ID, OK, t("Docker {version} with the nvidia runtime: {command} can work", version=version,
                                     command="tfenv run --gpus"))
    if "Docker Desktop" in system:
        return Check(ID, OK, t("Docker {version} ({system}): --gpus works with the WSL2 backend",
                                     version=version, system=system))
    hook = host.which("nvidia-container-runtime-hook") or (
        host.exists("/usr/bin/nvidia-container-runtime-hook") and "/usr/bin/nvidia-container-runtime-hook")
    if hook:
        return Check(ID, OK, t("Docker {version}, NVIDIA container toolkit hook {hook}: --gpus can work",
                                     version=version, hook=hook))
    fields = {"version": version, "runtimes": ", ".join(runtimes) or t("none")}
    message = (t("Docker {version} has no NVIDIA runtime (runtimes: {runtimes})", **fields) if have_gpu
               else t("Docker {version} has no NVIDIA runtime (runtimes: {runtimes}); this host has no GPU anyway",
                      **fields))
    return Check(ID, WARN, message,
                 t("install {package}, then {configure} and restart Docker, so that {command} works",
                   package="nvidia-container-toolkit", configure="sudo nvidia-ctk runtime configure --runtime=docker",
                   command="tfenv run --gpus"))

