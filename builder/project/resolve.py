"""A project's tfenv.lock: what it adds to its environment's image, resolved once and reused while its
inputs (tfenv.yaml, every requirements file read, the environment's locks, the matrix's project data)
are unchanged. The resolution itself is solve.py's, on the policy of plan.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet

from builder.core import files
from builder.core import paths as env_paths
from builder.matrix.model import Matrix, Target
from builder.project import family, metadata, plan, reader, solve
from builder.project import sources as src
from builder.project.config import Project
from builder.project.solve import Conflict, ResolveFailed
from builder.render import lock as env_lock

normalize = env_lock.normalize

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_VERSION = re.compile(r"[0-9][A-Za-z0-9.+!_-]*")  # PEP 440, local versions included
_HASH = re.compile(r"^--hash=sha256:([0-9a-f]{64})$")
__all__ = ["Conflict", "ResolveFailed", "UnhashedLock"]


class UnhashedLock(ResolveFailed):
    """tfenv.lock from before tfenv hashed pins: resolved again when it is needed."""


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


def project_sources(project: Project) -> src.Sources:
    """The project's requirements as read from the file tfenv.yaml names (none: empty)."""
    path = project.requirements_path
    if path is None:
        return src.Sources()
    if not path.is_file():
        raise ResolveFailed(f"tfenv.yaml: requirements: {project.requirements} does not exist in {project.root}")
    return reader.read(path, project.root)


def top_level_names(project: Project) -> list[str]:
    """The distribution names the requirements name directly, as written (what the project test imports)."""
    names = []
    for req in project_sources(project).requirements:
        if req.name and not family.is_tensorflow(req.name) and req.kind != "conda":
            names.append(req.name)
    return list(dict.fromkeys(names))


def inputs_digest(project: Project, target: Target, m: Matrix | None = None) -> str:
    """What tfenv.lock was resolved from: when any of it changes, the lock is stale and is resolved again.
    Every requirements file read counts (an edited -r include too), by its path and its bytes."""
    h = hashlib.sha256()
    h.update(f"{target.key} py{target.python} jupyter={project.jupyter} apt={','.join(project.apt)} "
             f"as_of={project.resolve_as_of}\n".encode())
    for path in project_sources(project).files:
        h.update(path.resolve().relative_to(project.root).as_posix().encode() + b"\0" + path.read_bytes())
    for path in constraint_paths(target, project.jupyter):
        h.update(path.read_bytes())
    if m is not None:
        data = {"projects": m.projects, "ecosystem": target.env.ecosystem}
        h.update(json.dumps(data, sort_keys=True).encode())
    return h.hexdigest()[:16]


# --- tfenv.lock ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProjectLock:
    path: Path
    inputs: str  # inputs_digest() when it was written
    pins: tuple[tuple[str, str], ...]  # what the project adds to the environment image ("@ URL" for git pins)
    text: str
    notes: tuple[str, ...] = ()  # what resolving it said (TF provided, pins substituted, source builds)
    hashes: dict = None  # normalized name -> the sha256 digests of the files pip may install for it

    @property
    def digest(self) -> str:
        """The lock's content hash (the project image's tag): the header's inputs and the pins."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]

    def requirements(self) -> list[str]:
        return [f"{n} {v}" if v.startswith("@") else f"{n}=={v}" for n, v in self.pins]

    def hashed(self) -> list[str]:
        """The pins as pip --require-hashes lines (name==version --hash=sha256:...); git pins as they are."""
        hashes = self.hashes or {}
        return [f"{n} {v}" if v.startswith("@") else env_lock.Pin(n, v, hashes.get(normalize(n), ())).hashed
                for n, v in self.pins]


# a git requirement as uv locks it: the URL and the full commit id (what the Dockerfile's RUN line may quote)
_URL_PIN = re.compile(rf"^(?P<name>{_NAME}) @ (?P<url>git\+(?:https?|ssh|file)://[^\s'\"\\;]+@[0-9a-f]{{40}}"
                      rf"(?:#[^\s'\"\\;]*)?)$")


def read_lock(path: Path) -> ProjectLock | None:
    """tfenv.lock, strictly: the pins go into the Dockerfile's RUN line, and each (but a git pin, locked to its
    commit) needs its hashes."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    inputs, pins, notes, hashes = "", [], [], {}
    redo = "run `tfenv lock` to write it again"
    for number, line in enumerate(text.replace("\\\n", " ").splitlines(), 1):
        if line.startswith("# inputs: "):
            inputs = line.split(":", 1)[1].strip()
        elif line.startswith("# note: "):
            notes.append(line[len("# note: "):])
        line = line.split(" #", 1)[0].strip() if not line.startswith("#") else ""
        if not line:
            continue
        url = _URL_PIN.match(line)
        if url:
            pins.append((url.group("name"), "@ " + url.group("url")))
            continue
        fields = line.split()
        name, sep, version = fields[0].partition("==")
        digests = [_HASH.match(f) for f in fields[1:]]
        if not sep or not re.fullmatch(_NAME, name) or not _VERSION.fullmatch(version) or not all(digests):
            raise ResolveFailed(f"{path.name}:{number}: expected 'name==version --hash=sha256:...', got "
                                f"{line[:120]!r}: {redo}")
        if not digests:
            raise UnhashedLock(f"{path.name}: {name}=={version} has no --hash (a lock from before tfenv hashed "
                               f"pins): {redo}")
        pins.append((name, version))
        hashes[normalize(name)] = tuple(sorted(d.group(1) for d in digests))
    return ProjectLock(path, inputs, tuple(pins), text, tuple(notes), hashes)


def lock_text(project: Project, target: Target, inputs: str, pins: list[env_lock.Pin], notes: list[str] = ()) -> str:
    what = f"{target.env.name} ({target.os.name}, Python {target.python}{', Jupyter' if project.jupyter else ''})"
    header = (
        f"# tfenv.lock: what this project adds to {what}, resolved by `tfenv lock` from\n"
        f"# {project.requirements or 'no requirements'} on the environment (README: Your own project). "
        f"Commit it; do not edit.\n"
        f"# inputs: {inputs}\n"
        f"# Hashes: sha256 of the files pip may install on {env_lock.platform_label(platform(target))}, "
        f"CPython {target.python}; the image installs them with --require-hashes (git pins: at their commit).\n"
    )
    if project.apt:
        header += f"# apt: {' '.join(project.apt)}\n"
    header += "".join(f"# note: {' '.join(n.split())}\n" for n in notes)
    return header + "".join(f"{p.name} {p.version}\n" if p.version.startswith("@") else
                            p.requirement + "".join(f" \\\n    --hash=sha256:{h}" for h in p.hashes) + "\n"
                            for p in pins)


def platform(target: Target) -> str:
    """uv's platform for the project image: the manylinux level of the environment image's OS."""
    return env_lock.manylinux_platform(target.os.glibc)


def current_lock(project: Project, target: Target, m: Matrix) -> ProjectLock | None:
    """tfenv.lock when it exists and matches tfenv.yaml, the requirements and the environment's locks."""
    try:
        existing = read_lock(project.lock_path)
    except UnhashedLock:
        return None  # written before tfenv hashed pins: resolve it again, with hashes
    if existing is None or existing.inputs != inputs_digest(project, target, m):
        return None
    return existing


def ensure_lock(project: Project, m: Matrix, index_url: str | None = None, ca_cert: str | None = None,
                refresh: bool = False) -> tuple[ProjectLock, bool]:
    """(the lock, whether it was resolved now): an up-to-date tfenv.lock is used as it is."""
    target = project.target(m)
    if not refresh:
        existing = current_lock(project, target, m)
        if existing is not None:
            return existing, False
    pins, notes = resolve(project, m, target, index_url, ca_cert)
    text = lock_text(project, target, inputs_digest(project, target, m), pins, notes)
    files.write_text(project.lock_path, text, what="lock")
    return read_lock(project.lock_path), True


# --- resolution ------------------------------------------------------------------------------------


def resolve(project: Project, m: Matrix, target: Target, index_url: str | None = None,
            ca_cert: str | None = None) -> tuple[list[env_lock.Pin], list[str]]:
    """(what the project adds to the image, with the hashes of its files, sorted; the notes to show); Conflict
    when the requirements cannot be met on the environment (every requirement that does not fit, in one line)."""
    from builder.core.config import toml

    sources = project_sources(project)
    if not sources.requirements and not sources.constraints:
        return [], list(sources.notes)
    pins = env_pins(target, project.jupyter)
    the_plan = plan.make(sources, m, target, pins, m.projects, project.root)
    request = solve.Request(target, pins, env_constraints(m, target, pins) + the_plan.constraints,
                            project.resolve_as_of or target.env.lock_date, project.root, index_url, ca_cert,
                            tuple(m.jupyter_packages) if project.jupyter else ())
    with files.temp_dir("resolve") as work:
        for _ in range(3):  # a file whose Requires-Python excludes the image's Python is excluded, then again
            outcome = solve.solve(the_plan, request, work, m.projects.get("bounds") or [])
            added, notes = _added(outcome.pins, pins, target), the_plan.notes + outcome.notes
            pylock = solve.artifacts(added, request, work)
            misfits = metadata.python_misfits(toml().loads(pylock), family.python_version(target), ca_cert)
            if not misfits:
                break
            request.constraints = request.constraints + [f"{n}!={v}" for n, v, _ in misfits]
            the_plan.notes += [f"{n} {v} requires Python {spec} (the image has {family.python_version(target)}): "
                               f"another release of it is taken" for n, v, spec in misfits]
    notes += _image_notes(project, m, target, pins, added, toml().loads(pylock))
    hashed = env_lock.pins_of_pylock(pylock, "tfenv.lock") + [env_lock.Pin(n, v) for n, v in added if v[0] == "@"]
    return sorted(hashed, key=lambda p: normalize(p.name)), notes


def _image_notes(project: Project, m: Matrix, target: Target, pins: dict[str, str], added, pylock: dict) -> list[str]:
    """What the user should know about the image: moved pins, source builds, apt packages it gets."""
    notes = []
    moved = [f"{n} {v} (was {pins[normalize(n)]})" for n, v in added if normalize(n) in pins]
    if moved:
        notes.append(f"installed over {target.env.name}'s own, fitting what TensorFlow {target.env.tensorflow} and "
                     f"its packages declare: {', '.join(moved)}")
    note = solve.source_build_note(solve.source_builds(pylock), target, project.apt)
    notes += [note] if note else []
    needs = [a for a in plan.runtime_apt(added, m.projects.get("runtime_apt") or {}) if a not in project.apt]
    if needs:
        notes.append(f"the image also gets apt {', '.join(needs)}: libraries its packages load but do not ship")
    return notes


def _added(resolved: list[tuple[str, str]], pins: dict[str, str], target: Target) -> list[tuple[str, str]]:
    """What the image gets on top of the environment's: never a second TensorFlow."""
    added = []
    for name, version in resolved:
        key = normalize(name)
        if family.is_tensorflow(key) and (version != target.env.tensorflow or key != "tensorflow"):
            raise solve.Conflict(f"{name} {version} would be a second TensorFlow in the image (pulled in by a "
                                 f"requirement): {target.env.name} provides TF {target.env.tensorflow}")
        if pins.get(key) != version and key != "tensorflow":
            added.append((name, version))
    return added


def env_constraints(m: Matrix, target: Target, pins: dict[str, str]) -> list[str]:
    """What a project never moves: TF and the family pinned with it, the known breakages of this line,
    and the bounds of the TF ecosystem packages (matrix.yaml)."""
    env = target.env
    out = [f"tensorflow=={env.tensorflow}"]
    out += [f"{name}=={pins[name]}" for name in family.WITH_TENSORFLOW if name in pins]
    from packaging.version import Version

    for rule in m.projects.get("breakages") or []:
        if Version(env.tensorflow) in SpecifierSet(rule["tensorflow"]):
            out.append(rule["keep"])
    out += [f"{name}{spec}" for name, spec in sorted(env.ecosystem.items()) if spec[0] in "<>=!~"]
    return out
