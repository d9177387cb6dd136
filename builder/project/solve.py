"""The resolution of a project on its environment: the whole image's package set, as of the environment's time.

uv resolves TensorFlow at the environment's version together with the project's requirements, for the
image's Python and platform. The environment's lock is the preference (uv keeps an existing output
file's pins unless a requirement moves one), its TF family is a hard constraint, and so are the matrix's
known breakages (numpy 2, protobuf 4 on old lines, ...) and the bounds of its TF ecosystem packages.
Packages the user did not pin exactly are taken as published up to the environment's lock date.

A failure is explained, one requirement at a time, by uv; tfenv then either substitutes the
environment's version (an exact pin of a package the environment has: a freeze's `numpy==1.19.2`) or
drops the requirement's bound and resolves again, so that every conflict is found in one run and the
versions named as fitting were resolved together.
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import SpecifierSet

from builder.core.errors import TfenvError
from builder.matrix.model import Target
from builder.project import family
from builder.project.plan import Plan
from builder.render.lock import normalize

UV_TIMEOUT_S = 300  # a cold resolution downloads metadata; a stuck index must not hang the build
EMPTY_PYLOCK = 'lock-version = "1.0"\n'
MAX_ROUNDS = 12  # conflicts explained per run (each costs one resolution)
_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_SPEC = r"(?:[<>=!~]=?[^\s,]+(?:,[<>=!~]=?[^\s,]+)*)"


class Conflict(TfenvError):
    """The requirements cannot be met on the environment; nothing was built."""


class ResolveFailed(TfenvError):
    """uv is missing, or failed for another reason (no such package, index unreachable)."""


@dataclass
class Request:
    """One resolution: what the environment fixes, and what the project asks."""

    target: Target
    env_pins: dict[str, str]  # the environment's locks: normalized name -> version (the preferences)
    constraints: list[str]  # hard: the TF family, breakages, ecosystem bounds
    horizon: str | None  # YYYY-MM-DD: nothing newer, except what the user pinned exactly
    folder: Path  # where relative paths in the requirements resolve
    index_url: str | None = None
    ca_cert: str | None = None
    jupyter_packages: tuple[str, ...] = ()


@dataclass
class Outcome:
    pins: list[tuple[str, str]] = field(default_factory=list)  # the whole set, name -> version (or "@ URL")
    notes: list[str] = field(default_factory=list)


def _uv() -> str:
    uv = shutil.which("uv")
    if not uv:
        raise ResolveFailed("resolving tfenv.lock needs uv: pip install uv")
    return uv


def compile_(lines: list[str], request: Request, work: Path, exempt: set[str], horizon: bool,
             extra_constraints: list[str] = ()) -> subprocess.CompletedProcess:
    """uv pip compile of `lines` with the environment's lock as the existing output (its preferences)."""
    req, out, constraints = work / "requirements.in", work / "resolved.txt", work / "constraints.txt"
    req.write_text("\n".join(lines) + "\n", encoding="utf-8")
    constraints.write_text("\n".join(list(request.constraints) + list(extra_constraints)) + "\n", encoding="utf-8")
    out.write_text("".join(f"{n}=={v}\n" for n, v in sorted(request.env_pins.items())), encoding="utf-8")
    cmd = [_uv(), "pip", "compile", str(req), "-o", str(out), "--quiet", "--no-header", "--no-annotate",
           "--python-version", family.python_version(request.target), "--python-platform", platform(request.target),
           "--constraint", str(constraints)]
    if horizon and request.horizon:
        cutoff = datetime.date.fromisoformat(request.horizon) + datetime.timedelta(days=1)
        cmd += ["--exclude-newer", cutoff.isoformat()]
        tomorrow = (datetime.date.today() + datetime.timedelta(days=1)).isoformat()
        for name in sorted(exempt):
            cmd += ["--exclude-newer-package", f"{name}={tomorrow}"]
    if request.index_url:
        cmd += ["--index-url", request.index_url]
    environ = dict(os.environ)
    if request.ca_cert:
        environ["SSL_CERT_FILE"] = request.ca_cert
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=UV_TIMEOUT_S, env=environ,
                                cwd=str(request.folder))
    except subprocess.TimeoutExpired:
        raise ResolveFailed(f"uv did not resolve within {UV_TIMEOUT_S} s: is the package index reachable?") from None
    if result.returncode == 0:
        result.stdout = out.read_text(encoding="utf-8")
    return result


def platform(target: Target) -> str:
    """uv's platform for the image: the manylinux level of its OS's glibc (matrix.yaml os.*.glibc)."""
    from builder.render.lock import manylinux_platform

    return manylinux_platform(target.os.glibc)


def parse_pins(text: str) -> list[tuple[str, str]]:
    pins = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        if " @ " in line:
            name, url = line.split(" @ ", 1)
            pins.append((name.strip(), "@ " + url.strip().rstrip("\\").strip()))
            continue
        name, sep, version = line.partition("==")
        if sep:
            pins.append((name.strip(), version.strip().rstrip("\\").strip()))
    return pins


# --- explaining a failure ----------------------------------------------------------------------------


def blame(stderr: str, plan: Plan, done: set[str], relaxed_keys: set[str] = frozenset()) -> tuple[str, str] | None:
    """(normalized name, why) of the user's requirement uv's explanation says cannot hold, or None.
    One already relaxed comes first: its bound was not the problem, so it goes."""
    text = " ".join(stderr.split())
    candidates = []
    failed = re.search(r"Failed to build `(?P<name>[^`=]+)==", text)
    if failed and normalize(failed.group("name")) in plan.by_name and normalize(failed.group("name")) not in done:
        candidates.append(normalize(failed.group("name")))
    for match in re.finditer(rf"you require (?P<what>(?:{_NAME}(?:\[[^\]]*\])?{_SPEC}?(?:, | and )?)+)", text):
        for name in re.findall(rf"({_NAME})(?:\[[^\]]*\])?{_SPEC}?", match.group("what")):
            key = normalize(name)
            if key in plan.by_name and key not in done and key not in candidates:
                candidates.append(key)
    if not candidates:
        mentioned = [k for k in plan.by_name if k not in done
                     and re.search(rf"(?<![\w.-]){re.escape(plan.by_name[k].name)}(?![\w-])", text, re.I)]
        candidates = mentioned[:1]
    if not candidates:
        return None
    key = sorted(candidates, key=lambda k: k not in relaxed_keys)[0]
    return key, _why(text, plan.by_name[key].name)


def _why(text: str, name: str) -> str:
    """What uv says wants otherwise: 'tensorflow 2.9.3 needs numpy>=1.20', or its first clause."""
    pattern = re.escape(name).replace(r"\-", "[-_.]").replace(r"\_", "[-_.]")
    match = re.search(rf"(?P<pkg>{_NAME})(?:\[[^\]]*\])?(?:==(?P<ver>[^\s,]+))? depends? on "
                      rf"(?P<dep>{pattern})(?:\[[^\]]*\])?(?P<spec>{_SPEC})", text, re.I)
    if match:
        pkg = f"{match.group('pkg')} {match.group('ver')}" if match.group("ver") else match.group("pkg")
        return f"{pkg} needs {match.group('dep')}{match.group('spec')}"
    match = re.search(r"Failed to build `(?P<what>[^`=]+)==(?P<ver>[^`]+)`", text)
    if match:
        return f"{match.group('what')} {match.group('ver')} does not build here (its setup fails for this Python)"
    match = re.search(rf"(?P<what>{_NAME})==(?P<ver>\S+) has invalid metadata", text)
    if match:
        return f"{match.group('what')} {match.group('ver')}'s published metadata is invalid (uv cannot read it)"
    match = re.search(rf"there is no version of (?P<what>{pattern}\S*)", text, re.I)
    if match:
        return f"no version of {match.group('what').rstrip(',')} for {_platform_words(text)}"
    match = re.search(rf"(?P<what>{pattern})==(?P<ver>\S+) depends on (?P<dep>{_NAME})(?P<spec>{_SPEC}) and "
                      rf"(?P=dep)(?P<kept>{_SPEC})", text, re.I)
    if match:
        return (f"{match.group('what')} {match.group('ver')} needs {match.group('dep')}{match.group('spec')}, "
                f"the environment keeps {match.group('dep')}{match.group('kept')}")
    match = re.search(r"cause: (?:Because )?(.+?)(?:, we can conclude| and you require|$)", text)
    return match.group(1)[:200] if match else text[:200]


def _platform_words(text: str) -> str:
    return "this Python and platform" if "exclude-newer" not in text else "this date, Python and platform"


def relaxed(req_line: str, level: int) -> str | None:
    """The requirement with its version bound loosened one step (extras and marker kept), None past the last.
    An exact pin goes to its minor line, then its major line (the nearest release that fits is what the
    user wants: opencv-python==4.1.1.26 with no wheel for the Python becomes 4.1.*), then any version."""
    from packaging.requirements import Requirement as Pep508

    req = Pep508(req_line)
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    marker = f"; {req.marker}" if req.marker else ""
    exact = [s.version for s in req.specifier if s.operator in ("==", "===") and "*" not in s.version]
    steps = []
    if exact:
        parts = exact[0].split(".")
        steps = [f"=={'.'.join(parts[:2])}.*"] if len(parts) > 2 else []
        steps += [f"=={parts[0]}.*"] if len(parts) > 1 else []
    steps.append("")
    return f"{req.name}{extras}{steps[level]}{marker}" if level < len(steps) else None


# --- the loop -----------------------------------------------------------------------------------------


_NO_FILE = re.compile(r"has no (?:wheels with a matching|usable wheels|source distribution)|no matching distribution")


@dataclass
class _State:
    """Where the conflict loop stands: the requirement lines as they are now, and what was done to them."""

    lines: dict[str, str]  # normalized name -> the line the resolver gets
    conflicts: dict[str, str] = field(default_factory=dict)  # key -> why, in the order found
    levels: dict[str, int] = field(default_factory=dict)  # key -> how far its bound is loosened
    settled: set[str] = field(default_factory=set)  # substituted or dropped: not blamed again
    nearest: dict[str, str] = field(default_factory=dict)  # key -> why: an exact pin with no file for the image


def solve(plan: Plan, request: Request, work: Path, conditional: list[dict]) -> Outcome:
    """The whole package set, or Conflict listing every requirement that does not fit (with what fits)."""
    outcome = Outcome()
    state = _State({key: str(req.req) if req.req and req.kind == "pep508" else req.text
                    for key, req in plan.by_name.items()})
    unnamed = [ln for ln in plan.lines if ln not in state.lines.values()]
    extra: list[str] = []
    base = [f"tensorflow=={request.target.env.tensorflow}"] + list(request.jupyter_packages)
    for _ in range(MAX_ROUNDS):
        result, stderr = _attempt(base + plan.options + unnamed + list(state.lines.values()), plan, request, work,
                                  extra, outcome)
        if result is not None:
            pins = parse_pins(result)
            added = _conditional(pins, conditional, extra)
            if not added:
                break
            extra.extend(added)
            continue
        found = blame(stderr, plan, state.settled, set(state.levels))
        if found is None:
            raise ResolveFailed(_unexplained(stderr, plan, request.target.env.name))
        _step(state, plan, request, outcome, *found)
    else:
        raise ResolveFailed(f"more than {MAX_ROUNDS} requirements conflict with {request.target.env.name}: "
                            f"start from fewer pins")
    versions = {normalize(n): v for n, v in pins}
    for key, why in state.nearest.items():
        req = plan.by_name[key]
        outcome.notes.append(f"{req.text} ({req.origin}): {why}; {req.req.name} {versions.get(key)}, the nearest "
                             f"release of its line that has one, is used instead")
    if state.conflicts or plan.problems:
        raise Conflict(conflict_line(plan, list(state.conflicts.items()), dict(pins), request.target.env.name))
    outcome.pins = pins
    return outcome


def _step(state: _State, plan: Plan, request: Request, outcome: Outcome, key: str, why: str) -> None:
    """One conflict explained: substitute the environment's version, loosen the bound, or leave it out."""
    req = plan.by_name[key]
    level = state.levels.get(key, -1) + 1
    if key in plan.exact and key in request.env_pins and key not in state.levels:
        version = request.env_pins[key]
        state.lines[key] = f"{req.req.name}=={version}" + (f"; {req.req.marker}" if req.req.marker else "")
        state.settled.add(key)
        outcome.notes.append(f"{req.text} ({req.origin}): {why}; {request.target.env.name}'s "
                             f"{req.req.name} {version} is used instead")
        return
    if req.req is not None and req.kind == "pep508" and req.req.specifier and relaxed(str(req.req), level):
        if level == 0 and key in plan.exact and _NO_FILE.search(why):
            state.nearest[key] = why  # the same minor line, if it fits: a note, not a conflict
        else:
            state.nearest.pop(key, None)
            state.conflicts.setdefault(key, why)
        state.levels[key] = level
        state.lines[key] = relaxed(str(req.req), level)
        return
    state.nearest.pop(key, None)
    state.conflicts.setdefault(key, why)  # no version of it fits at all: leave it out to find the others
    del state.lines[key]
    state.settled.add(key)


def _attempt(lines: list[str], plan: Plan, request: Request, work: Path, extra: list[str],
             outcome: Outcome) -> tuple[str | None, str]:
    """(the resolved set as of the horizon, else today's with a note, or None; uv's explanation)."""
    first = compile_(lines, request, work, plan.exact, True, extra)
    if first.returncode == 0 or not request.horizon or "exclude-newer" not in first.stderr:
        return (first.stdout if first.returncode == 0 else None), first.stderr
    second = compile_(lines, request, work, plan.exact, False, extra)
    if second.returncode != 0:
        return None, first.stderr
    note = (f"resolved with packages newer than {request.target.env.name}'s date ({request.horizon}): "
            f"{_first_cause(first.stderr)}")
    if note not in outcome.notes:
        outcome.notes.append(note)
    return second.stdout, ""


def _unexplained(stderr: str, plan: Plan, env_name: str) -> str:
    """One line for a failure no requirement's bound explains: a git URL that cannot be fetched, or uv's cause."""
    fetch = re.search(r"git fetch [^`]*?'(?P<url>[a-z+]+://[^']+)'", stderr)
    if fetch or "failed to clone" in stderr:
        url = fetch.group("url") if fetch else ""
        vcs = [r for r in plan.vcs if not url or url.split("://", 1)[-1].rstrip("/") in r.text] or plan.vcs
        named = f"{vcs[0].text} ({vcs[0].origin})" if vcs else url or "a git requirement"
        return f"{named}: cannot fetch it with git (is its host reachable from here?); nothing was locked"
    return f"cannot resolve the requirements for {env_name}: {_first_cause(stderr)}"


def _conditional(pins: list[tuple[str, str]], rules: list[dict], extra: list[str]) -> list[str]:
    """Bounds that old releases forgot (Flask 1.1 and Jinja2 3.1): added when the set has such a release."""
    versions = {normalize(n): v for n, v in pins if not v.startswith("@")}
    added = []
    for rule in rules:
        name = re.match(_NAME, rule["when"]).group(0)
        spec = rule["when"][len(name):]
        version = versions.get(normalize(name))
        if version and SpecifierSet(spec).contains(version, prereleases=True):
            added += [b for b in rule["bounds"] if b not in extra and b not in added]
    return added


def _first_cause(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    text = " ".join(" ".join(lines[1:3] if len(lines) > 1 else lines).split())
    return re.sub(r"^cause:\s*", "", text)[:300] or "uv failed"


def conflict_line(plan: Plan, conflicts: list[tuple[str, str]], fits: dict[str, str], env_name: str) -> str:
    """All at once: each requirement that does not fit, why, and what was resolved to fit with the rest."""
    parts = list(plan.problems)
    versions = {normalize(n): v for n, v in fits.items()}
    for key, why in conflicts:
        req = plan.by_name[key]
        label = req.req.name + (f"[{','.join(sorted(req.req.extras))}]" if req.req and req.req.extras else "")
        fit = versions.get(key)
        fit_text = f"{label} {fit} fits" if fit and not fit.startswith("@") else f"no version of {label} fits"
        parts.append(f"{req.text} ({req.origin}): {why}; {fit_text}")
    count = len(parts)
    head = f"{count} requirement{'s' if count > 1 else ''} cannot be met on {env_name} (nothing was built)"
    return f"{head}: " + "; ".join(parts)


# --- what the image will install -----------------------------------------------------------------------


def artifacts(pins: list[tuple[str, str]], request: Request, work: Path) -> str:
    """pylock.toml (PEP 751) of exactly these pins for the image's platform: each one's files and hashes."""
    exact = [f"{n}=={v}" for n, v in pins if not v.startswith("@")]
    if not exact:
        return EMPTY_PYLOCK
    req, out = work / "pins.in", work / "pylock.toml"
    req.write_text("\n".join(exact) + "\n", encoding="utf-8")
    cmd = [_uv(), "pip", "compile", str(req), "--no-deps", "--quiet", "--generate-hashes", "--format",
           "pylock.toml", "-o", str(out), "--python-version", family.python_version(request.target),
           "--python-platform", platform(request.target)]
    if request.index_url:
        cmd += ["--index-url", request.index_url]
    environ = dict(os.environ, **({"SSL_CERT_FILE": request.ca_cert} if request.ca_cert else {}))
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=UV_TIMEOUT_S, env=environ)
    except subprocess.TimeoutExpired:
        raise ResolveFailed(f"uv did not list the files within {UV_TIMEOUT_S} s: is the package index reachable?") \
            from None
    if result.returncode != 0:
        raise ResolveFailed(f"cannot list the files of the resolved pins: {_first_cause(result.stderr)}")
    return out.read_text(encoding="utf-8")


def source_builds(pylock: dict) -> list[str]:
    """The pins with no wheel for the image (pip builds them from their sdist in the image)."""
    return [f"{p['name']}=={p['version']}" for p in pylock.get("packages", [])
            if not p.get("wheels") and p.get("sdist")]


def source_build_note(builds: list[str], target: Target, apt: tuple[str, ...]) -> str | None:
    """One note: what will be compiled in the image, and the apt packages a C extension needs for it."""
    if not builds:
        return None
    wanted = ["build-essential", f"python{target.python}-dev"]
    missing = [a for a in wanted if not any(x.split("=")[0] == a for x in apt)]
    text = (f"built from source in the image (no wheel for Linux x86_64, CPython {target.python}): "
            f"{', '.join(builds)}")
    if missing:
        text += f"; one with C code needs a compiler: add `apt: [{', '.join(missing)}]` to tfenv.yaml"
    return text
