"""What a project's requirements become before the resolver sees them: the policy, in one place.

- TensorFlow (any of its names) and the packages the environment pins with it (keras, tensorboard,
  tensorflow-estimator, tensorflow-io-gcs-filesystem) belong to the environment: a requirement on the
  environment's line is taken as provided, with one note; another line is refused, naming the
  environment that has it.
- Backports of what the image's Python has in its standard library (dataclasses on 3.7+) and
  Windows-only packages are not installed, with a note.
- A local folder is not copied into the image: `-e .` (the project itself) stands for its own
  requirements; any other local path is refused in one line. `name @ file:///…` (a pip freeze of a conda
  environment) names a file on the author's machine: it is taken as `name`.
- Everything else goes to the resolver as written; exact pins are exempt from the environment's
  horizon (resolve.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from packaging.markers import default_environment

from builder.matrix.model import Matrix, Target
from builder.project import family, reader
from builder.project import sources as src
from builder.render.lock import normalize


@dataclass
class Plan:
    lines: list[str] = field(default_factory=list)  # requirements for the resolver
    constraints: list[str] = field(default_factory=list)  # the user's -c lines that pass
    options: list[str] = field(default_factory=list)  # index options
    by_name: dict[str, src.Requirement] = field(default_factory=dict)  # normalized name -> the user's line
    exact: set[str] = field(default_factory=set)  # normalized names pinned with ==
    provided: dict[str, str] = field(default_factory=dict)  # normalized name -> the environment's version
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # refusals found before resolving
    matrix: Matrix | None = None  # to name the environment another TF line is on
    vcs: list[src.Requirement] = field(default_factory=list)  # git requirements, for their messages


def marker_environment(target: Target) -> dict[str, str]:
    """PEP 508 marker values of the image: Linux x86_64, its CPython."""
    env = default_environment()
    full = family.python_version(target)
    env.update({"python_version": target.python, "python_full_version": full, "sys_platform": "linux",
                "platform_system": "Linux", "os_name": "posix", "platform_machine": "x86_64",
                "implementation_name": "cpython", "platform_python_implementation": "CPython",
                "implementation_version": full})
    return env


def make(sources: src.Sources, m: Matrix, target: Target, env_pins: dict[str, str], data: dict, root: Path) -> Plan:
    """data: matrix.yaml's `projects` section (backports, windows_only)."""
    plan = Plan(options=list(sources.options), notes=list(sources.notes))
    plan.matrix = m
    markers = marker_environment(target)
    for req in sources.requirements:
        _take(plan, req, target, env_pins, data, markers, root, constraint=False)
    for req in sources.constraints:
        _take(plan, req, target, env_pins, data, markers, root, constraint=True)
    return plan


def _take(plan: Plan, req: src.Requirement, target: Target, env_pins: dict[str, str], data: dict,
          markers: dict, root: Path, constraint: bool) -> None:
    env = target.env
    if req.req is not None and req.req.marker is not None and not req.req.marker.evaluate(markers):
        return  # not for this platform or Python, as pip would skip it
    if req.kind == "local":
        _local(plan, req, target, env_pins, data, markers, root)
        return
    name = normalize(req.name) if req.name else None
    spec = req.req.specifier if req.req else ""
    if name and family.is_tensorflow(name):
        if req.kind in ("pep508", "conda") and family.on_line(spec, env.tensorflow):
            plan.provided[name] = env.tensorflow
            note = family.provided_note(req.req.name, spec, env)
            if note:
                plan.notes.append(note)
        else:
            plan.problems.append(_other_line(req, env, plan.matrix))
        return
    if name in family.WITH_TENSORFLOW and name in env_pins:
        version = env_pins[name]
        # its own line, or the TF line it is versioned with (tensorboard 2.4.1 is TF 2.4's)
        if req.kind == "pep508" and (family.on_line(spec, version) or family.on_line(spec, env.tensorflow)):
            plan.provided[name] = version
            if not spec.contains(version, prereleases=True):
                plan.notes.append(f"{req.text}: {env.name} provides {req.req.name} {version} with TF "
                                  f"{env.tensorflow} (its TensorFlow's own)")
        else:
            plan.problems.append(f"{req.text} ({req.origin}): {env.name} provides {req.req.name} {version} "
                                 f"with TF {env.tensorflow}; {req.req.name} {version} fits")
        return
    backport = (data.get("backports") or {}).get(name)
    if backport and family.Version(family.python_version(target)) >= family.Version(backport):
        plan.notes.append(f"{req.text}: not installed: Python {target.python}'s standard library has it "
                          f"(since {backport})")
        return
    if name in (data.get("windows_only") or ()):
        plan.notes.append(f"{req.text}: not installed: it is for Windows only")
        return
    if constraint:
        plan.constraints.append(req.req and str(req.req) or req.text)
        return
    plan.lines.append(str(req.req) if req.req and req.kind != "url" else req.text)
    if req.kind == "vcs":
        plan.vcs.append(req)
    if name:
        plan.by_name[name] = req
        if any(s.operator in ("==", "===") and "*" not in s.version for s in spec):
            plan.exact.add(name)


def _other_line(req: src.Requirement, env, m: Matrix) -> str:
    spec = req.req.specifier if req.req else ""
    written = f"{req.text} ({req.origin})"
    if req.kind not in ("pep508", "conda"):
        return f"{written}: TensorFlow comes from the environment ({env.name}: TF {env.tensorflow}), not from a URL"
    other = family.env_for_line(m, spec)
    if other is not None:
        return (f"{written}: {env.name} has TF {env.tensorflow}; the TF {family.line(other.tensorflow)} line is "
                f"{other.name} (`tfenv init {other.name} --force`)")
    near = family.nearest(m, spec)
    return (f"{written}: no tfenv environment has that TensorFlow line; the nearest is {near.name} "
            f"(TF {near.tensorflow})")


def _local(plan: Plan, req: src.Requirement, target: Target, env_pins: dict[str, str], data: dict, markers: dict,
           root: Path) -> None:
    text = req.text
    path_text = text[3:].strip() if req.editable else text
    if req.req is not None and req.req.url and req.req.url.startswith("file:"):
        local = _file_url_path(req.req.url)
        if local is None or not local.exists():  # a conda freeze: the file was on the author's machine
            plan.notes.append(f"{req.req.name} @ {req.req.url} ({req.origin}): a file on the machine the list "
                              f"was made on; taken as {req.req.name}")
            extras = f"[{','.join(sorted(req.req.extras))}]" if req.req.extras else ""
            taken = src.Requirement(req.req.name + extras, req.origin, "pep508", src.parse(req.req.name, req.origin))
            _take(plan, taken, target, env_pins, data, markers, root, constraint=False)
            return
        path_text = str(local)
    folder = (root / path_text.split("#", 1)[0].split("[", 1)[0]).resolve() if not Path(path_text).is_absolute() \
        else Path(path_text)
    if folder == root.resolve():
        own = src.find_default(folder, packages_only=True)
        if own is not None:
            plan.notes.append(f"{text} ({req.origin}): the project itself is not installed (tfenv run mounts it at "
                              f"/workspace); the requirements its {own.name} names are locked instead")
            for inner in reader.read(own, root).requirements:
                _take(plan, inner, target, env_pins, data, markers, root, constraint=False)
            return
    plan.problems.append(f"{text} ({req.origin}): a local folder or file is not copied into the image: publish "
                         f"it as a package, or install it at run time from /workspace")


def _file_url_path(url: str) -> Path | None:
    from urllib.parse import unquote, urlparse

    parsed = urlparse(url)
    path = unquote(parsed.path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///C:/ci/...
        return None
    return Path(path) if path else None


def runtime_apt(pins, table: dict) -> list[str]:
    """The apt packages the pinned packages load at run time but do not ship (projects.runtime_apt), once each."""
    return list(dict.fromkeys(a for name, _ in pins for a in table.get(normalize(name), [])))
