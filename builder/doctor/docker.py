"""The Docker daemon's /info through its Unix socket, else the docker CLI (checks/docker reads it)."""

import http.client
import json
import os
import socket
from typing import Optional, Tuple

from builder.diagnose.i18n import t
from builder.doctor.host import Host


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
