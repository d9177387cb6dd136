"""Resolve a project's requirements with the environment's lock as constraints, into tfenv.lock.

uv does the resolution (`uv pip compile --constraint`), for the image's Python and platform: every package
the environment pins can only be taken at its pinned version, so a requirement that would move one fails
here, before anything is built. That failure becomes one line that names the package, what it wanted, the
pin it would break and the newest version of the requirement that fits; the last is found by letting the
resolver search the requirement's versions again with its version bound dropped (the resolver is the
exact search: a hand bisection would assume that newer versions never need less).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from builder.core import files
from builder.core import paths as env_paths
from builder.core.errors import TfenvError
from builder.matrix.model import Matrix, Target
from builder.project.config import Project
from builder.render import lock as env_lock

normalize = env_lock.normalize

UV_TIMEOUT_S = 300  # a cold resolution downloads metadata; a stuck index must not hang the build
_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_SPEC = r"[<>=!~][^\s]*"
_VERSION = re.compile(r"[0-9][A-Za-z0-9.+!_-]*")  # PEP 440, local versions included
# uv's explanation: "Because opencv-python==4.12.0.88 depends on numpy>=2,<2.3.0 and numpy==1.24.1, ..."
_DEPENDS = re.compile(rf"(?:all versions of )?(?P<pkg>{_NAME})(?P<pkgspec>{_SPEC})? depends? on "
                      rf"(?P<dep>{_NAME})(?P<spec>{_SPEC}) and (?P=dep)==(?P<pin>[^\s,]+)")
# "Because you require numpy>=2 and numpy==1.24.1, ..."
_DIRECT = re.compile(rf"you require (?P<dep>{_NAME})(?P<spec>{_SPEC}) and (?P=dep)==(?P<pin>[^\s,]+)")
_REQ_NAME = re.compile(rf"^\s*(?P<name>{_NAME})(?P<extras>\[[^\]]*\])?")


class Conflict(TfenvError):
    """The requirements cannot be met without moving one of the environment's pins; nothing was built."""


class ResolveFailed(TfenvError):
    """uv is missing, or failed for another reason (no such package, index unreachable)."""


class UnhashedLock(ResolveFailed):
    """tfenv.lock from before tfenv hashed pins: resolved again when it is needed."""


@dataclass(frozen=True)
class ConflictInfo:
    package: str  # the package whose requirement breaks the pin (may be the pinned package itself)
    package_version: str  # "==4.12.0.88", ">=2.2", or "" (the user's own requirement of the pinned package)
    dep: str  # the pinned package
    wanted: str  # what package wanted of dep, e.g. ">=2,<2.3.0"
    pin: str  # the environment's version of dep
    top: str | None = None  # the user's requirement that led there, when it is not `package`


# --- inputs ----------------------------------------------------------------------------------------


def constraint_paths(target: Target, jupyter: bool) -> list[Path]:
    """The environment's lock(s) the project must keep: the base lock, and the Jupyter lock on top."""
    paths = [env_paths.lock_path(target, False)]
    if jupyter:
        paths.append(env_paths.lock_path(target, True))
    for path in paths:
        if not path.is_file():
            raise ResolveFailed(f"no lock {path.name} for {target.key}: run `tfenv lock {target.env.name}`")
    return paths


def env_pins(target: Target, jupyter: bool) -> dict[str, str]:
    """normalized name -> version of everything the environment image already has."""
    pins: dict[str, str] = {}
    for path in constraint_paths(target, jupyter):
        for name, version in env_lock.parse(path).pins:
            pins[normalize(name)] = version
    return pins


def requirement_lines(project: Project) -> list[str]:
    path = project.requirements_path
    if path is None:
        return []
    if not path.is_file():
        raise ResolveFailed(f"tfenv.yaml: requirements: {project.requirements} does not exist in {project.root}")
    return path.read_text(encoding="utf-8").splitlines()


def top_level_names(lines: list[str]) -> list[str]:
    """The distribution names the requirements name directly (options and comments skipped)."""
    names = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        match = _REQ_NAME.match(line)
        if match:
            names.append(match.group("name"))
    return names


def inputs_digest(project: Project, target: Target) -> str:
    """What tfenv.lock was resolved from: when this changes, the lock is stale and is resolved again."""
    h = hashlib.sha256()
    h.update(f"{target.key} py{target.python} jupyter={project.jupyter} apt={','.join(project.apt)}\n".encode())
    for line in requirement_lines(project):
        h.update(line.encode() + b"\n")
    for path in constraint_paths(target, project.jupyter):
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# --- tfenv.lock ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProjectLock:
    path: Path
    inputs: str  # inputs_digest() when it was written
    pins: tuple[tuple[str, str], ...]  # what the project adds to the environment image
    text: str
    hashes: dict = None  # normalized name -> the sha256 digests of the files pip may install for it

    @property
    def digest(self) -> str:
        """The lock's content hash (the project image's tag): the header's inputs and the pins."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]

    def requirements(self) -> list[str]:
        return [f"{name}=={version}" for name, version in self.pins]

    def hashed(self) -> list[str]:
        """The pins as pip --require-hashes lines: name==version --hash=sha256:..."""
        return [env_lock.Pin(n, v, (self.hashes or {}).get(normalize(n), ())).hashed for n, v in self.pins]


def read_lock(path: Path) -> ProjectLock | None:
    """tfenv.lock, strictly: the pins are written into the Dockerfile's RUN line, and each needs its hashes."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    inputs = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("# inputs: ")), "")
    redo = "run `tfenv lock` to write it again"
    try:
        parsed = env_lock.parse(path)
    except env_lock.LockError as exc:
        raise ResolveFailed(f"{exc}: {redo}") from None
    for name, version in parsed.pins:
        if not re.fullmatch(_NAME, name) or not _VERSION.fullmatch(version):
            raise ResolveFailed(f"{path.name}: {name}=={version} is no 'name==version': {redo}")
    unhashed = parsed.unhashed()
    if unhashed:
        raise UnhashedLock(f"{path.name}: {unhashed[0]} has no --hash (a lock from before tfenv hashed pins): {redo}")
    pins = tuple(p for p in parsed.pins)
    return ProjectLock(path, inputs, pins, text, parsed.hashes)


def lock_text(project: Project, target: Target, inputs: str, pins: list[env_lock.Pin]) -> str:
    what = f"{target.env.name} ({target.os.name}, Python {target.python}{', Jupyter' if project.jupyter else ''})"
    header = (
        f"# tfenv.lock: what this project adds to {what}, resolved by `tfenv lock` from\n"
        f"# {project.requirements or 'no requirements'} with the environment's lock as constraints. "
        f"Commit it; do not edit.\n"
        f"# inputs: {inputs}\n"
        f"# Hashes: sha256 of the files pip may install on {env_lock.platform_label(platform(target))}, "
        f"CPython {target.python}; the image installs them with --require-hashes.\n"
    )
    if project.apt:
        header += f"# apt: {' '.join(project.apt)}\n"
    return header + "".join(p.requirement + "".join(f" \\\n    --hash=sha256:{h}" for h in p.hashes) + "\n"
                            for p in pins)


def platform(target: Target) -> str:
    """uv's platform for the project image: the manylinux level of the environment image's OS."""
    return env_lock.manylinux_platform(target.os.glibc)


def current_lock(project: Project, target: Target) -> ProjectLock | None:
    """tfenv.lock when it exists and matches tfenv.yaml, the requirements and the environment's locks."""
    try:
        existing = read_lock(project.lock_path)
    except UnhashedLock:
        return None  # written before tfenv hashed pins: resolve it again, with hashes
    if existing is None or existing.inputs != inputs_digest(project, target):
        return None
    return existing


def ensure_lock(project: Project, m: Matrix, index_url: str | None = None, ca_cert: str | None = None,
                refresh: bool = False) -> tuple[ProjectLock, bool]:
    """(the lock, whether it was resolved now): an up-to-date tfenv.lock is used as it is."""
    target = project.target(m)
    if not refresh:
        existing = current_lock(project, target)
        if existing is not None:
            return existing, False
    pins = resolve(project, target, index_url, ca_cert)
    text = lock_text(project, target, inputs_digest(project, target), pins)
    files.write_text(project.lock_path, text, what="lock")
    return read_lock(project.lock_path), True


# --- resolution ------------------------------------------------------------------------------------


def _uv() -> str:
    uv = shutil.which("uv")
    if not uv:
        raise ResolveFailed("resolving tfenv.lock needs uv: pip install uv")
    return uv


def compile_(lines: list[str], folder: Path, target: Target, jupyter: bool, index_url: str | None = None,
             ca_cert: str | None = None, pylock: Path | None = None) -> subprocess.CompletedProcess:
    """uv pip compile for the image's Python and platform, with the environment's lock(s) as constraints.

    The requirements go to a short-lived hidden file in `folder` (the requirements file's), so that its
    relative `-r`/`-c` includes resolve as they do for pip. With `pylock`, the result (every file with its
    hash, only those the platform installs) is written there as pylock.toml.
    """
    fd, name = tempfile.mkstemp(prefix=".tfenv-resolve-", suffix=".txt", dir=str(folder))
    req = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        cmd = [_uv(), "pip", "compile", str(req), "--quiet", "--no-header", "--no-annotate",
               "--python-version", target.python, "--python-platform", platform(target)]
        if pylock:
            cmd += ["--generate-hashes", "--format", "pylock.toml", "-o", str(pylock)]
        for path in constraint_paths(target, jupyter):
            cmd += ["--constraint", str(path)]
        if index_url:
            cmd += ["--index-url", index_url]
        environ = dict(os.environ)
        if ca_cert:
            environ["SSL_CERT_FILE"] = ca_cert
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=UV_TIMEOUT_S, env=environ)
        except subprocess.TimeoutExpired:
            raise ResolveFailed(f"uv did not resolve within {UV_TIMEOUT_S} s: is the package index reachable?") \
                from None
    finally:
        req.unlink()


def resolve(project: Project, target: Target, index_url: str | None = None,
            ca_cert: str | None = None) -> list[env_lock.Pin]:
    """The packages the project adds, with their hashes, sorted; Conflict when a pin would have to move."""
    lines = requirement_lines(project)
    if not top_level_names(lines):
        return []
    with files.temp_dir("resolve") as tmp:
        out = tmp / "pylock.toml"
        result = compile_(lines, project.requirements_path.parent, target, project.jupyter, index_url, ca_cert, out)
        if result.returncode != 0:
            raise explain_failure(result.stderr, lines, project, target, index_url, ca_cert)
        resolved = env_lock.pins_of_pylock(out.read_text(encoding="utf-8"), "tfenv.lock")
    pins = env_pins(target, project.jupyter)
    return [p for p in resolved if normalize(p.name) not in pins]


def parse_conflict(stderr: str, pins: dict[str, str], top_names: list[str]) -> ConflictInfo | None:
    """The pin uv's explanation says cannot hold, and what wanted otherwise; None when it is no pin conflict."""
    text = " ".join(stderr.split())
    tops = {normalize(n): n for n in top_names}
    for match in _DIRECT.finditer(text):
        dep = match.group("dep")
        if pins.get(normalize(dep)) == match.group("pin"):
            return ConflictInfo(dep, "", dep, match.group("spec"), match.group("pin"))
    for match in _DEPENDS.finditer(text):
        dep, pkg = match.group("dep"), match.group("pkg")
        if pins.get(normalize(dep)) != match.group("pin"):
            continue
        top = None
        if normalize(pkg) not in tops:
            # a dependency of a requirement: name the first requirement uv's explanation mentions
            mentioned = [n for key, n in tops.items() if re.search(rf"\b{re.escape(n)}\b", text, re.I)]
            top = mentioned[0] if mentioned else None
        return ConflictInfo(pkg, match.group("pkgspec") or "", dep, match.group("spec"), match.group("pin"), top)
    return None


def newest_fit(name: str, lines: list[str], folder: Path, target: Target, jupyter: bool, index_url: str | None,
               ca_cert: str | None) -> str | None:
    """The newest version of requirement `name` that resolves with the pins, its version bound dropped."""
    relaxed = []
    for line in lines:
        match = _REQ_NAME.match(line.split("#", 1)[0])
        if match and not line.lstrip().startswith("-") and normalize(match.group("name")) == normalize(name):
            relaxed.append(match.group("name") + (match.group("extras") or ""))
        else:
            relaxed.append(line)
    result = compile_(relaxed, folder, target, jupyter, index_url, ca_cert)
    if result.returncode != 0:
        return None
    for line in result.stdout.splitlines():
        found, sep, version = line.split("#", 1)[0].strip().partition("==")
        if sep and normalize(found) == normalize(name):
            return version.strip()
    return None


def conflict_message(info: ConflictInfo, env_name: str, source: str, fit: str | None) -> str:
    """One line: who wants what, which pin that breaks, and what fits instead."""
    pkg_version = info.package_version.lstrip("=") if info.package_version.startswith("==") \
        else info.package_version
    if normalize(info.package) == normalize(info.dep):
        who = f"{source} wants {info.dep}{info.wanted}"
    else:
        who = f"{info.package} {pkg_version}".rstrip() + f" needs {info.dep}{info.wanted}"
        if info.top:
            who += f" (through {info.top})"
    subject = info.top or info.package
    if normalize(subject) == normalize(info.dep):
        fits = f"{info.dep} {info.pin} fits: drop the bound or use {info.dep}=={info.pin}"
    elif fit:
        fits = f"{subject} {fit} fits"
    else:
        fits = f"no version of {subject} fits"
    return f"{who}, {env_name} pins {info.dep} {info.pin}; {fits} (nothing was built)"


def explain_failure(stderr: str, lines: list[str], project: Project, target: Target, index_url: str | None,
                    ca_cert: str | None) -> TfenvError:
    source = project.requirements or "tfenv.yaml"
    info = parse_conflict(stderr, env_pins(target, project.jupyter), top_level_names(lines))
    if info is None:
        cause = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
        detail = " ".join(" ".join(cause[1:3]).split()) if len(cause) > 1 else (cause[0] if cause else "uv failed")
        detail = re.sub(r"^cause:\s*", "", detail)
        return ResolveFailed(f"cannot resolve {source} for {target.env.name}: {detail[:400]}")
    subject = info.top or info.package
    fit = None
    if normalize(subject) != normalize(info.dep):
        fit = newest_fit(subject, lines, project.requirements_path.parent, target, project.jupyter, index_url,
                         ca_cert)
    message = conflict_message(info, target.env.name, source, fit)
    return Conflict(message if message.startswith(source) else f"{source}: {message}")
