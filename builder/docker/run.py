"""`tfenv run`: one container per command, the current directory mounted, files owned by the user.

A RunSpec says what to run; docker_options() turns it into both the Docker SDK's keyword arguments and the
`docker run` argv, so the interactive path (the docker CLI, which owns the terminal) and the scripted path
(the SDK, which streams logs) cannot drift apart.
"""

from __future__ import annotations

import csv
import io
import os
import re
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Tuple

from builder.core.errors import BadOption, TfenvError
from builder.docker import containers
from builder.docker.containers import ENV_LABEL, MANAGED_LABEL

_ENV_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


class RunFailed(TfenvError):
    """The daemon refused to start the container (125 is `docker run`'s own code for that)."""

    exit_code = 125


@dataclass(frozen=True)
class Mount:
    host: str  # absolute, existing
    container: str  # absolute, POSIX
    read_only: bool = False


@dataclass
class RunSpec:
    image: str
    command: List[str]
    name: str
    workdir: str
    labels: Dict[str, str] = field(default_factory=dict)
    mounts: List[Mount] = field(default_factory=list)
    environment: Dict[str, str] = field(default_factory=dict)
    user: str | None = None
    gpu: bool = False
    ports: Dict[str, Tuple[str, int]] = field(default_factory=dict)  # "8888/tcp" -> (bind, host port)
    interactive: bool = False


def split_volume(value: str) -> Tuple[str, str, str]:
    """HOST:CONTAINER[:ro|rw] -> (host, container, mode); a leading C:\\ or C:/ is a drive, not a separator."""
    drive, rest = "", value
    if _DRIVE.match(value):
        drive, rest = value[:2], value[2:]
    parts = rest.split(":")
    if len(parts) not in (2, 3) or not (drive + parts[0]) or not parts[1]:
        raise BadOption(f"-v {value}: expected HOST:CONTAINER or HOST:CONTAINER:ro")
    mode = parts[2] if len(parts) == 3 else "rw"
    if mode not in ("ro", "rw"):
        raise BadOption(f"-v {value}: the mode must be ro or rw, not {mode!r}")
    if not parts[1].startswith("/"):
        raise BadOption(f"-v {value}: the container path {parts[1]!r} must be absolute (start with /)")
    return drive + parts[0], parts[1], mode


def parse_volume(value: str) -> Mount:
    """A checked bind mount; the host path must exist (docker would silently create a named volume or a dir)."""
    host, container, mode = split_volume(value)
    host = os.path.abspath(os.path.expanduser(host))
    if not os.path.exists(host):
        raise BadOption(f"-v {value}: the host path {host} does not exist")
    return Mount(host, container.rstrip("/") or "/", mode == "ro")


def parse_env(value: str) -> Tuple[str, str]:
    key, sep, val = value.partition("=")
    if not sep:
        raise BadOption(f"-e {value}: expected KEY=VALUE")
    if not _ENV_KEY.match(key):
        raise BadOption(f"-e {value}: {key!r} is not a valid variable name")
    return key, val


def host_user() -> str | None:
    """uid:gid of the caller on POSIX; None on Windows, where Docker Desktop maps ownership itself."""
    if not hasattr(os, "getuid"):
        return None
    return f"{os.getuid()}:{os.getgid()}"


def container_name(env_name: str, kind: str = "run") -> str:
    return f"tfenv-{env_name}-{kind}-{secrets.token_hex(3)}"


def make_spec(
    image: str,
    command: List[str],
    *,
    env_name: str,
    workdir: str,
    cwd: str | None,
    volumes: List[Mount],
    environment: List[Tuple[str, str]],
    gpu: bool,
    name: str | None = None,
    interactive: bool = False,
    kind: str = "run",
) -> RunSpec:
    """The common shape of every tfenv container: cwd at the workdir, host uid, HOME writable for it."""
    user = host_user()
    env: Dict[str, str] = {}
    if user is not None:
        env["HOME"] = "/tmp"  # an arbitrary uid has no home in the image; the user's -e HOME still wins
    env.update(dict(environment))
    mounts = list(volumes)
    # A -v onto the workdir replaces the default mount instead of colliding with it.
    if cwd is not None and all(m.container != workdir.rstrip("/") for m in mounts):
        mounts.insert(0, Mount(os.path.abspath(cwd), workdir.rstrip("/") or "/"))
    return RunSpec(
        image=image,
        command=list(command),
        name=name or container_name(env_name, kind),
        workdir=workdir,
        labels={MANAGED_LABEL: "run", ENV_LABEL: env_name},
        mounts=mounts,
        environment=env,
        user=user,
        gpu=gpu,
        interactive=interactive,
    )


def _mount_arg(m: Mount) -> str:
    fields = ["type=bind", f"source={m.host}", f"target={m.container}"] + (["readonly"] if m.read_only else [])
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(fields)  # --mount is CSV: quotes a path with a comma
    return buf.getvalue()


def _host_ip(ip: str) -> str:
    return f"[{ip}]" if ":" in ip else ip


def docker_options(spec: RunSpec) -> Tuple[dict, List[str]]:
    """(SDK containers.run kwargs, `docker run` argv) for one spec, built side by side."""
    from docker.types import Mount as SdkMount

    from builder.docker import daemon

    kw: dict = {"image": spec.image, "command": spec.command or None, "name": spec.name, "init": True}
    argv = ["docker", "run", "--rm", "--init", "--name", spec.name]
    if spec.interactive:
        kw.update(tty=True, stdin_open=True)
        argv.append("-it")
    kw["labels"] = dict(spec.labels)
    for k, v in spec.labels.items():
        argv += ["--label", f"{k}={v}"]
    kw["working_dir"] = spec.workdir
    argv += ["-w", spec.workdir]
    if spec.user is not None:
        kw["user"] = spec.user
        argv += ["-u", spec.user]
    kw["environment"] = dict(spec.environment)
    for k, v in spec.environment.items():
        argv += ["-e", f"{k}={v}"]
    kw["mounts"] = [SdkMount(m.container, m.host, type="bind", read_only=m.read_only) for m in spec.mounts]
    for m in spec.mounts:
        argv += ["--mount", _mount_arg(m)]
    if spec.gpu:
        kw["device_requests"] = daemon.device_requests(True)
        argv += ["--gpus", "all"]
    if spec.ports:
        kw["ports"] = dict(spec.ports)
        for cport, (ip, hport) in spec.ports.items():
            argv += ["-p", f"{_host_ip(ip)}:{hport}:{cport}"]
    argv.append(spec.image)
    argv += spec.command
    return kw, argv


def run_interactive(spec: RunSpec) -> int:
    """Hand the terminal to `docker run --rm -it`: the SDK cannot drive a TTY properly."""
    _, argv = docker_options(spec)
    docker = shutil.which("docker")
    if docker is None:
        raise TfenvError("an interactive shell needs the docker CLI on PATH; or pass a command after --")
    argv[0] = docker
    proc = subprocess.Popen(argv)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        # A Ctrl-C typed in the shell goes to the container's TTY, not here: this is a signal sent to tfenv
        # alone (SIGTERM, SIGHUP, a kill -INT). Killing the docker CLI would leave its container running.
        subprocess.run([docker, "rm", "-f", spec.name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=60)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return 130


def run_streaming(client, spec: RunSpec, out=None, err=None) -> int:
    """Run through the SDK, stream stdout and stderr live, return the exit code; never leave the container."""
    from docker.errors import APIError

    kw, _ = docker_options(spec)
    try:
        container = containers.start(client, kw)
    except APIError as exc:
        raise start_error(exc, spec) from None
    try:
        return containers.stream(container, out or sys.stdout.buffer, err or sys.stderr.buffer)
    finally:
        containers.remove(client, spec.name)


def start_error(exc, spec: RunSpec) -> TfenvError:
    """One line from a daemon refusal, with docker run's own exit codes for a missing/unrunnable command."""
    text = str(getattr(exc, "explanation", None) or exc).replace("\n", " ")
    if "executable file not found" in text or ("exec:" in text and "no such file or directory" in text):
        err = RunFailed(f"cannot run {spec.command[0] if spec.command else 'the command'!r} in {spec.image}: {text}")
        err.exit_code = 127
        return err
    if "permission denied" in text and "exec" in text:
        err = RunFailed(f"cannot execute {spec.command[0]!r} in {spec.image}: {text}")
        err.exit_code = 126
        return err
    if "Conflict" in text or "already in use" in text:
        return RunFailed(
            f"a container named {spec.name} already exists: `tfenv stop {spec.name}` or pick another --name"
        )
    return RunFailed(f"Docker refused to start {spec.image}: {text}")


# --- containers tfenv started: `tfenv ps` and `tfenv stop` ----------------------------------


class NotManaged(TfenvError):
    """`tfenv stop NAME` for a container tfenv did not start."""


def list_managed(client) -> list:
    """Every container tfenv run started, running or not (a detached Jupyter can exit on its own)."""
    return containers.list_managed(client, "run")


def stop_managed(client, names: List[str], all_: bool = False) -> List[str]:
    """Stop and remove the named tfenv containers (or all of them); unknown names fail before any is touched."""
    managed = {c.name: c for c in list_managed(client)}
    if all_:
        chosen = list(managed.values())
    else:
        unknown = [n for n in names if n not in managed]
        if unknown:
            known = ", ".join(sorted(managed)) or "none running"
            raise NotManaged(f"no tfenv container named {', '.join(unknown)} (tfenv's containers: {known})")
        chosen = [managed[n] for n in names]
    for c in chosen:
        containers.stop(c, timeout=10)
        containers.remove(client, c)
    return [c.name for c in chosen]
