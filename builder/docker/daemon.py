"""The Docker daemon as tfenv sees it: a client with clear errors, GPU support, local images.

Shared by build, test and run so that "no daemon", "no NVIDIA runtime" and "no such image" read the same
everywhere.
"""

from __future__ import annotations

import os
import sys

from builder.core.errors import TfenvError


class DockerUnavailable(TfenvError):
    """No Docker daemon answers."""


class GpuUnavailable(TfenvError):
    """--gpus all on a host whose Docker has no NVIDIA runtime."""


class ImageMissing(TfenvError):
    """The image a command needs is not in the local daemon."""


def start_hint() -> str:
    if sys.platform == "win32":
        return "start Docker Desktop (Settings > General > Use the WSL 2 based engine)"
    if sys.platform == "darwin":
        return "start Docker Desktop"
    return "start it with `sudo systemctl start docker` (or `sudo dockerd &`), or set DOCKER_HOST"


PING_TIMEOUT = 15.0  # seconds for the daemon to answer the first request; TFENV_DOCKER_TIMEOUT overrides
CALL_TIMEOUT = 600  # seconds any later call may wait for an answer (image pulls and commits are slow)


def ping_timeout() -> float:
    try:
        value = float(os.environ.get("TFENV_DOCKER_TIMEOUT", PING_TIMEOUT))
    except ValueError:
        raise TfenvError(f"TFENV_DOCKER_TIMEOUT={os.environ['TFENV_DOCKER_TIMEOUT']!r}: expected seconds, "
                         "e.g. 15") from None
    if not 0 < value <= 3600:
        raise TfenvError(f"TFENV_DOCKER_TIMEOUT={value:g}: expected between 0 and 3600 seconds")
    return value


def client():
    """A docker.DockerClient that has answered a ping, or DockerUnavailable saying how to start one.

    The first contact (API version, ping) has a short timeout, so a daemon that accepts connections and
    never answers fails in seconds instead of docker-py's 600 s; later calls keep the long one.
    """
    import docker  # lazy: keeps `tfenv --help` fast
    from docker.errors import DockerException

    timeout = ping_timeout()
    try:
        probe = docker.from_env(timeout=timeout)  # asks the daemon for its API version
        try:
            probe.ping()
            version = probe.api.api_version
        finally:
            probe.close()
        c = docker.from_env(timeout=CALL_TIMEOUT, version=version)
    except DockerException as exc:
        raise DockerUnavailable(f"cannot reach the Docker daemon ({_reason(exc, timeout)}): {start_hint()}") from None
    return c


def _where() -> str:
    return os.environ.get("DOCKER_HOST") or ("the Docker Desktop pipe" if sys.platform == "win32"
                                             else "/var/run/docker.sock")


def _reason(exc: Exception, timeout: float = PING_TIMEOUT) -> str:
    """The useful part of docker-py's nested connection errors."""
    text = str(exc)
    where = _where()
    if "FileNotFoundError" in text or "No such file" in text:
        return f"nothing listens at {where}"
    if "PermissionError" in text or "Permission denied" in text:
        return f"permission denied on {where}: run as root or join the docker group"
    if "Connection refused" in text:
        return f"connection refused at {where}"
    if "timed out" in text.lower() or "timeout" in text.lower():
        return (f"{where} did not answer within {timeout:g} s: is the daemon hung or still starting? "
                "check `docker info`, or set TFENV_DOCKER_TIMEOUT for a slow remote daemon")
    return _short(text.splitlines()[0] if text else type(exc).__name__)


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def has_nvidia_runtime(c) -> bool:
    """True when the daemon can pass GPUs: an 'nvidia' runtime (Linux toolkit) or Docker Desktop's CDI/WSL2."""
    info = c.info()
    runtimes = info.get("Runtimes") or {}
    if "nvidia" in runtimes:
        return True
    # Docker Desktop with the WSL2 backend passes GPUs without a named runtime.
    return "docker desktop" in str(info.get("OperatingSystem", "")).lower() and "microsoft" in str(
        info.get("KernelVersion", "")
    ).lower()


GPU_FIX = (
    "install nvidia-container-toolkit and run `sudo nvidia-ctk runtime configure --runtime=docker` "
    "then restart Docker (on Windows: Docker Desktop with the WSL 2 backend and a current NVIDIA driver)"
)


def resolve_gpus(c, mode: str) -> tuple[bool, str]:
    """(use_gpu, reason) for --gpus auto|all|none; 'all' without a runtime fails with the fix."""
    if mode == "none":
        return False, "GPU not requested (--gpus none)"
    available = has_nvidia_runtime(c)
    if mode == "all" and not available:
        raise GpuUnavailable(f"--gpus all, but this Docker daemon has no NVIDIA runtime: {GPU_FIX}")
    if not available:
        return False, "no NVIDIA runtime in this Docker daemon (--gpus auto)"
    return True, "NVIDIA runtime present"


def device_requests(use_gpu: bool) -> list:
    """`docker run --gpus all` in SDK terms."""
    if not use_gpu:
        return []
    from docker.types import DeviceRequest

    return [DeviceRequest(count=-1, capabilities=[["gpu"]])]


def has_image(c, ref: str) -> bool:
    from docker.errors import ImageNotFound

    try:
        c.images.get(ref)
    except ImageNotFound:
        return False
    return True


def require_image(c, ref: str, build_hint: str):
    """The local image `ref`, or ImageMissing that says how to build it."""
    from docker.errors import ImageNotFound

    try:
        return c.images.get(ref)
    except ImageNotFound:
        raise ImageMissing(f"image {ref} not found locally: build it with `{build_hint}`") from None
