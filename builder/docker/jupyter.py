"""`tfenv run --jupyter`: a free port on a loopback address, a fresh token, and a URL only once it answers."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import secrets
import socket
import sys
import time
import urllib.error
import urllib.request
from typing import List

from builder.core.errors import BadOption, TfenvError
from builder.docker import containers, run

CONTAINER_PORT = "8888/tcp"
FIRST_PORT = 8888
SCAN = 100  # 8888..8987
PORT_TRIES = 5  # ports tried when another process takes the chosen one while Docker starts the container
READY_TIMEOUT = 90.0


class PortBusy(TfenvError):
    """The port Jupyter should publish on is taken."""


class PortTaken(PortBusy):
    """The port was free when chosen and taken by the time Docker bound it (two starts at once)."""


class JupyterFailed(TfenvError):
    """The server exited or never answered."""

    exit_code = 1


def check_bind(bind: str) -> str:
    try:
        return str(ipaddress.ip_address(bind))
    except ValueError:
        raise BadOption(f"--bind {bind}: expected an IP address such as 127.0.0.1 or 0.0.0.0") from None


def is_public(bind: str) -> bool:
    return not ipaddress.ip_address(bind).is_loopback


def port_free(bind: str, port: int) -> bool:
    """Can we bind (bind, port)? No SO_REUSEADDR: a port in use by anything, docker-proxy included, is busy."""
    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((bind, port))
        except OSError:
            return False
    return True


def choose_port(bind: str, port: int | None, after: int = 0) -> int:
    """--port if it is free, else the first free port from FIRST_PORT (above `after`: the ports already lost)."""
    if port is not None:
        if not port_free(bind, port):
            raise PortBusy(
                f"port {port} on {bind} is already in use: pass another --port, or leave --port out to take "
                f"the first free one from {FIRST_PORT} (`tfenv ps` lists tfenv's own servers)"
            )
        return port
    for candidate in range(max(FIRST_PORT, after + 1), FIRST_PORT + SCAN):
        if port_free(bind, candidate):
            return candidate
    raise PortBusy(
        f"no free port in {FIRST_PORT}-{FIRST_PORT + SCAN - 1} on {bind}: free one (`tfenv ps`, `tfenv stop`) "
        "or pass --port"
    )


def local_host(bind: str) -> str:
    """The address this machine uses to reach a server published on `bind`."""
    if bind == "0.0.0.0":
        return "127.0.0.1"
    if bind == "::":
        return "::1"
    return bind


def base_url(bind: str, port: int) -> str:
    host = local_host(bind)
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}"


def lab_url(bind: str, port: int, token: str) -> str:
    return f"{base_url(bind, port)}/lab?token={token}"


def server_command(image) -> List[str] | None:
    """The image's own CMD, plus --allow-root when the host user (and so the container user) is root."""
    if getattr(os, "getuid", lambda: 1)() != 0:
        return None  # keep the image's CMD untouched
    cmd = list((image.attrs.get("Config") or {}).get("Cmd") or [])
    return cmd + ["--ServerApp.allow_root=True"] if cmd else None


def start(client, spec: run.RunSpec, bind: str, port: int, token: str):
    """Start the server container detached; the spec gains the port, the token and the URL label."""
    from docker.errors import APIError

    spec.ports = {CONTAINER_PORT: (bind, port)}
    spec.environment["JUPYTER_TOKEN"] = token
    spec.labels[containers.URL_LABEL] = lab_url(bind, port, token)
    kw, _ = run.docker_options(spec)
    try:
        return containers.start(client, kw)
    except APIError as exc:
        text = str(getattr(exc, "explanation", None) or exc)
        if "port is already allocated" in text or "address already in use" in text:
            raise PortTaken(f"port {port} on {bind} was taken while starting: pass another --port") from None
        raise run.start_error(exc, spec) from None


def start_on_a_free_port(client, spec: run.RunSpec, bind: str, port: int | None, token: str):
    """(container, port): on --port, or on the first free port from FIRST_PORT. Two `tfenv run --jupyter` at
    once both find the same port free; the one whose container Docker binds second moves on to the next free
    port (PORT_TRIES in all) and says so. A --port the user chose is never changed."""
    chosen = choose_port(bind, port)
    lost = []
    while True:
        try:
            container = start(client, spec, bind, chosen, token)
        except PortTaken:
            if port is not None:
                raise
            lost.append(chosen)
            if len(lost) >= PORT_TRIES:
                raise PortBusy(f"ports {', '.join(map(str, lost))} on {bind} were each taken while starting: "
                               "pass a free --port") from None
            chosen = choose_port(bind, None, after=chosen)
            continue
        if lost:
            print(f"tfenv: port {', '.join(map(str, lost))} on {bind} was taken while starting (another server "
                  f"starting at the same time): Jupyter takes port {chosen}", file=sys.stderr)
        return container, chosen


def wait_ready(container, bind: str, port: int, token: str, timeout: float = READY_TIMEOUT) -> None:
    """Poll /api/status until it answers 200; if the container dies or time runs out, show its log tail."""
    url = f"{base_url(bind, port)}/api/status?token={token}"
    deadline = time.monotonic() + timeout
    while True:
        container.reload()
        if container.status in ("exited", "dead"):
            code = container.attrs.get("State", {}).get("ExitCode")
            _show_tail(container)
            raise JupyterFailed(f"Jupyter exited (code {code}) before answering; its last log lines are above")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass  # not listening yet
        if time.monotonic() > deadline:
            _show_tail(container)
            raise JupyterFailed(f"Jupyter did not answer on {base_url(bind, port)} within {timeout:.0f} s")
        time.sleep(0.5)


def _show_tail(container, lines: int = 20) -> None:
    try:
        tail = container.logs(tail=lines).decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - the logs are a courtesy
        return
    for line in tail.rstrip().splitlines():
        print(f"  | {line}", file=sys.stderr)


def follow(container) -> None:
    """Show the server's log as it runs (after the URL), until it exits."""
    since = int(time.time())
    for chunk in container.logs(stream=True, follow=True, since=since):
        sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()


def serve(client, image, spec: run.RunSpec, bind: str, port: int | None, detach: bool) -> int:
    """Start Jupyter, wait until it answers, print its URL; follow it until Ctrl-C, or return at once (--detach).

    The container is removed however this ends, unless it was detached after answering.
    """
    if is_public(bind):
        print(f"tfenv: warning: --bind {bind} publishes Jupyter beyond this machine: anyone on the network "
              "who has the token can run code as you", file=sys.stderr)
    token = secrets.token_urlsafe(32)
    spec.command = server_command(image) or []
    container, port = start_on_a_free_port(client, spec, bind, port, token)
    keep = False  # only a detached server that answered outlives this function
    ready = False
    try:
        wait_ready(container, bind, port, token)
        ready = True
        url = lab_url(bind, port, token)
        if detach:
            print(url)
            print(f"tfenv: Jupyter runs in {spec.name}; stop it with `tfenv stop {spec.name}`", file=sys.stderr)
            keep = True
            return 0
        print(f"Jupyter is ready: {url}", flush=True)
        print("Press Ctrl-C to stop it (the container is removed).", file=sys.stderr)
        follow(container)
        container.reload()
        return int(container.attrs.get("State", {}).get("ExitCode") or 0)
    except KeyboardInterrupt:
        from builder.core import exitcodes

        print("tfenv: stopping Jupyter", file=sys.stderr)
        if not ready or exitcodes.received() is not None:  # Ctrl-C at a ready server is the normal end: 0
            raise
        return 0
    finally:
        if not keep:
            with contextlib.suppress(KeyboardInterrupt):  # a second Ctrl-C skips the graceful stop, still removes
                containers.stop(container, timeout=10)
            containers.remove(client, spec.name)
