"""Docker: can `tfenv run --gpus` work here? The daemon's /info through its Unix socket, else the docker CLI."""

import http.client
import json
import os
import socket
from typing import Optional, Tuple

from builder.diagnose.i18n import t
from builder.doctor.host import OK, SKIP, WARN, Check, Host, in_container


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def docker_info(host: Host) -> Tuple[Optional[dict], str]:
    """The daemon's /info, through its Unix socket or else the docker CLI; (None, why) when unreachable."""
    docker_host = host.environ.get("DOCKER_HOST", "")
    sock = docker_host[len("unix://"):] if docker_host.startswith("unix://") else (
        host.path("/var/run/docker.sock") if not docker_host and host.platform == "linux" else "")
    why = t("no Docker daemon socket") if host.platform == "linux" else t("docker CLI not found")
    if sock and hasattr(socket, "AF_UNIX") and os.path.exists(sock):
        conn = _UnixHTTPConnection(sock, timeout=5)
        try:
            conn.request("GET", "/info")
            resp = conn.getresponse()
            if resp.status == 200:
                return json.loads(resp.read().decode("utf-8")), ""
            why = t("daemon answered HTTP {status}", status=resp.status)
        except PermissionError:
            why = f"permission denied on {sock}"
        except (OSError, ValueError, http.client.HTTPException) as exc:
            why = f"{sock}: {exc}"
        finally:
            conn.close()
    cli = host.which("docker")
    if cli:
        r = host.run([cli, "info", "--format", "{{json .}}"], timeout=15)
        if r and r.rc == 0:
            try:
                return json.loads(r.out), ""
            except ValueError:
                pass
        lines = (r.err or r.out).strip().splitlines() if r else []
        why = (lines or [t("docker info failed")])[-1] if r else t("docker info timed out")
    return None, why


def check_docker(host: Host, have_gpu: bool) -> Check:
    info, why = docker_info(host)
    if info is None and in_container(host):
        return Check("docker", SKIP, t("inside a container without a Docker socket: run doctor on the host for "
                                       "Docker"))
    if info is None:
        fix = (t("{command}, then log in again", command="sudo usermod -aG docker $USER")
               if "permission denied" in why.lower()
               else t("start Docker (Docker Desktop with the WSL2 backend on Windows) to use {command}",
                      command="tfenv run"))
        return Check("docker", WARN, t("Docker daemon not reachable ({why})", why=why), fix)
    runtimes = sorted(info.get("Runtimes") or {})
    system = info.get("OperatingSystem", "")
    version = info.get("ServerVersion", "?")
    if "nvidia" in runtimes:
        return Check("docker", OK, t("Docker {version} with the nvidia runtime: {command} can work", version=version,
                                     command="tfenv run --gpus"))
    if "Docker Desktop" in system:
        return Check("docker", OK, t("Docker {version} ({system}): --gpus works with the WSL2 backend",
                                     version=version, system=system))
    hook = host.which("nvidia-container-runtime-hook") or (
        host.exists("/usr/bin/nvidia-container-runtime-hook") and "/usr/bin/nvidia-container-runtime-hook")
    if hook:
        return Check("docker", OK, t("Docker {version}, NVIDIA container toolkit hook {hook}: --gpus can work",
                                     version=version, hook=hook))
    fields = {"version": version, "runtimes": ", ".join(runtimes) or t("none")}
    message = (t("Docker {version} has no NVIDIA runtime (runtimes: {runtimes})", **fields) if have_gpu
               else t("Docker {version} has no NVIDIA runtime (runtimes: {runtimes}); this host has no GPU anyway",
                      **fields))
    return Check("docker", WARN, message,
                 t("install {package}, then {configure} and restart Docker, so that {command} works",
                   package="nvidia-container-toolkit", configure="sudo nvidia-ctk runtime configure --runtime=docker",
                   command="tfenv run --gpus"))

