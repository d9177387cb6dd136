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


PING_TIMEOUT = 15.0  # seconds the daemon has to answer any request; TFENV_DOCKER_TIMEOUT overrides
IMPORT_TIMEOUT = 600.0  # `tfenv base`: the daemon answers an import only once it has unpacked the whole tar
# a removal (rm -f of a container, rmi): the daemon answers once the writable layer or the image's layers are off the
# disk, which for a container that installed TF (a GB of wheels) takes longer than a ping on a slow disk
REMOVAL_TIMEOUT = 600.0


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

    Every request it sends is bounded (see bounded_send): a daemon that accepts connections and never
    answers fails in TFENV_DOCKER_TIMEOUT seconds with one line, on the first call as on any later one.
    """
    import docker  # lazy: keeps `tfenv --help` fast
    from docker.errors import DockerException

    timeout = ping_timeout()
    try:
        c = docker.from_env(timeout=timeout)  # asks the daemon for its API version, within `timeout`
        c.api.send = bounded_send(c.api.send, timeout)
        c.ping()
    except DockerException as exc:
        raise unavailable(exc, timeout) from None
    return c


def unavailable(exc: Exception, timeout: float = PING_TIMEOUT) -> DockerUnavailable:
    """The one line for a daemon that cannot be reached or did not answer in time."""
    return DockerUnavailable(f"cannot reach the Docker daemon ({_reason(exc, timeout)}): {start_hint()}")


def bounded_send(send, timeout: float):
    """The client's requests.Session.send with tfenv's waits, decided per kind of request:

    - every request: the daemon's answer (the response headers) within `timeout`; docker-py sends build,
      pull and push with no timeout at all, and a hung daemon would hang them forever.
    - a streamed answer (build, pull, push, logs --follow, exec): after the headers, no limit between two
      chunks. A build step may print nothing for many minutes (a 500 MB wheel over a slow link, a compile),
      a container may be silent for hours; Ctrl-C, SIGTERM and SIGHUP end these, never a read timeout.
      docker-py lifts it the same way for logs and attach.
    - a container's wait: no limit; its answer is the container's exit (the command runs as long as it runs).
    - an image import (`tfenv base`): IMPORT_TIMEOUT; its answer comes only after the whole tar is unpacked.
    - a container's or an image's removal: REMOVAL_TIMEOUT; its answer comes once its layers are deleted.
    - a stop: docker-py adds the stop's grace period to `timeout`, kept.
    A timeout or a dropped connection becomes DockerUnavailable: one line naming the socket, exit 2.
    """
    import requests

    def send_bounded(request, **kwargs):
        path = request.path_url.split("?", 1)[0]
        if path.endswith("/wait"):
            kwargs["timeout"] = None
        elif path.endswith("/images/create") and "fromSrc=" in request.path_url:
            kwargs["timeout"] = max(timeout, IMPORT_TIMEOUT)
        elif request.method == "DELETE" and ("/containers/" in path or "/images/" in path):
            kwargs["timeout"] = max(timeout, REMOVAL_TIMEOUT)
        elif kwargs.get("timeout") is None:
            kwargs["timeout"] = timeout
        try:
            response = send(request, **kwargs)
        except (requests.exceptions.Timeout, requests.exceptions.ConnectionError) as exc:
            raise unavailable(exc, kwargs["timeout"] or timeout) from None
        if kwargs.get("stream"):
            _no_read_timeout(response)
        return response

    return send_bounded


def lost_connection(exc: Exception) -> DockerUnavailable | None:
    """The one line for a connection to the daemon that broke while a stream was read (the daemon restarted
    or was stopped mid-build); None for anything else, which is a bug."""
    if type(exc).__module__.split(".")[0] not in ("requests", "urllib3"):
        return None
    return unavailable(exc)


def _no_read_timeout(response) -> None:
    """Let a streamed body take as long as it takes (the answer itself came in time)."""
    connection = getattr(response.raw, "connection", None)  # urllib3's HTTPResponse
    sock = getattr(connection, "sock", None)
    if hasattr(sock, "settimeout"):
        sock.settimeout(None)


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
