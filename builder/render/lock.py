"""Pin sets: resolve each environment's full Python package set as of its lock_date, with file hashes.

A lock is the complete, exact list an image installs (pip --no-deps), so the same image comes out next
year. Resolution uses uv's --exclude-newer so unpinned dependencies are taken as they were when the TF
release was current; today's numpy 2 or protobuf 4 would break the old TF lines at import.

Every pin carries the sha256 of each file the target can install (its wheels for the target's Python and
platform; the sdist only where no wheel exists), and every install uses pip's --require-hashes: a mirror
or proxy that serves other bytes under the same version is refused instead of installed.
"""

from __future__ import annotations

import datetime
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from builder.core import files, paths
from builder.core.errors import TfenvError
from builder.matrix.model import Matrix, Target


class LockError(TfenvError):
    """A lock is missing or cannot be resolved; the message is one line."""


class SubstitutedFile(TfenvError):
    """pip refused a file whose sha256 is not its lock's (a build's step): bad input from the index."""

    exit_code = 2


@dataclass(frozen=True)
class Pin:
    name: str
    version: str
    hashes: tuple[str, ...] = ()  # sha256 hex digests, sorted

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def hashed(self) -> str:
        """One requirements-file line pip's --require-hashes accepts: name==version --hash=sha256:..."""
        return " ".join([self.requirement] + [f"--hash=sha256:{h}" for h in self.hashes])


@dataclass(frozen=True)
class Lock:
    path: Path
    pins: tuple[tuple[str, str], ...]  # (name, version), sorted by name
    hashes: dict[str, tuple[str, ...]]  # normalized name -> sha256 digests

    def requirements(self) -> list[str]:
        return [f"{name}=={version}" for name, version in self.pins]

    def pin_list(self) -> list[Pin]:
        return [Pin(n, v, self.hashes.get(normalize(n), ())) for n, v in self.pins]

    def hashed(self) -> list[str]:
        """The pins as --require-hashes lines, one per package."""
        return [p.hashed for p in self.pin_list()]

    def unhashed(self) -> list[str]:
        return [p.requirement for p in self.pin_list() if not p.hashes]


def read(target: Target, jupyter: bool = False, root: Path | None = None) -> Lock:
    path = paths.lock_path(target, jupyter, root)
    if not path.is_file():
        raise LockError(f"no lock {path.name} for {target.key}: run `tfenv lock {target.env.name}`")
    return parse(path)


_HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})$")


def parse(path: Path) -> Lock:
    """A lock in pip's requirements format: `name==version`, each followed by its `--hash=sha256:` options
    (on continuation lines, as uv writes them)."""
    pins, hashes = [], {}
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        name, sep, version = fields[0].partition("==")
        digests = [_HASH.match(f) for f in fields[1:]]
        if not sep or not name or not version or not all(digests):
            raise LockError(f"{path.name}:{number}: expected 'name==version [--hash=sha256:HEX ...]', "
                            f"got {line.strip()[:120]!r}")
        pins.append((name, version))
        hashes[normalize(name)] = tuple(sorted(d.group(1) for d in digests))
    return Lock(path, tuple(sorted(pins, key=lambda p: normalize(p[0]))), hashes)


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them: lower case, runs of -_. as one '-'."""
    return re.sub(r"[-_.]+", "-", name).lower()


def env_requirements(env) -> list[str]:
    """TensorFlow and the environment's own pins: what every lock of it (Linux, Windows) starts from."""
    return [f"tensorflow=={env.tensorflow}"] + [f"{n}=={v}" for n, v in sorted(env.pins.items())]


def requirements_for(target: Target, matrix: Matrix, jupyter: bool = False) -> list[str]:
    """The top-level requirements a lock is resolved from."""
    return env_requirements(target.env) + (list(matrix.jupyter_packages) if jupyter else [])


def check_writable(out: Path) -> None:
    """Locks are written into a checkout, never into an installed copy of tfenv."""
    if files.inside_installed_package(out):
        raise LockError(f"{out}: inside an installed package; run `tfenv lock` in a tfenv checkout")


def lock_text(title: str, lock_date: str | None, platform: str, python: str, pins: list[Pin]) -> str:
    """A lock file: a header saying what it is, when it was resolved and what its hashes cover, then the pins."""
    when = f"as of {lock_date} " if lock_date else ""
    header = (f"# {title},\n# resolved from matrix.yaml {when}by `tfenv lock`. Do not edit.\n"
              f"# Hashes: sha256 of the files pip may install on {platform_label(platform)}, CPython {python}\n"
              f"# (its wheels; the sdist only where there is none): install with pip --require-hashes.\n")
    body = "".join(pin.requirement + "".join(f" \\\n    --hash=sha256:{h}" for h in pin.hashes) + "\n"
                   for pin in pins)
    return header + body


def write(out: Path, text: str) -> Path:
    files.make_folder(out.parent, "locks folder")
    files.write_text(out, text, what="lock")  # atomic: never half a lock
    return out


def resolve(target: Target, matrix: Matrix, jupyter: bool = False, root: Path | None = None) -> Path:
    """Resolve one lock with uv and write it; the jupyter lock is constrained by the base lock."""
    out = paths.lock_path(target, jupyter, root)
    check_writable(out)
    constraint = paths.lock_path(target, False, root) if jupyter else None
    platform = linux_platform(matrix, target)
    pins = compile_pins(requirements_for(target, matrix, jupyter), target.python, platform,
                        target.env.lock_date, out.name, constraint)
    title = f"tfenv lock for {target.env.name} on Python {target.python}{' with Jupyter' if jupyter else ''}"
    return write(out, lock_text(title, target.env.lock_date, platform, target.python, pins))


WINDOWS_PLATFORM = "x86_64-pc-windows-msvc"
# The manylinux levels uv can target (`uv pip compile --python-platform`); 2_17 is manylinux2014.
UV_MANYLINUX = (17, 28, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40)


def manylinux_platform(glibc: str) -> str:
    """uv's platform for an OS with this glibc: the highest manylinux level it can install."""
    minor = int(glibc.split(".")[1])
    return f"x86_64-manylinux_2_{max(m for m in UV_MANYLINUX if m <= minor)}"


def linux_platform(matrix: Matrix, target: Target) -> str:
    """The platform of a lock shared by the OS variants that have the target's Python: their lowest glibc,
    so that the hashes are those of files every one of them can install."""
    glibcs = [t.os.glibc for t in matrix.targets() if t.env == target.env and t.python == target.python]
    return manylinux_platform(min(glibcs or [target.os.glibc], key=lambda v: tuple(map(int, v.split(".")))))


def platform_label(platform: str) -> str:
    if platform == WINDOWS_PLATFORM:
        return "win_amd64"
    return platform.replace("x86_64-", "") + "_x86_64"


def _uv() -> str:
    uv = shutil.which("uv")
    if not uv:
        raise LockError("`tfenv lock` needs uv, a dependency of tfenv: pip install uv")
    return uv


def compile_pins(requirements: list[str], python: str, platform: str, lock_date: str | None, name: str,
                 constraint: Path | None = None, no_deps: bool = False) -> list[Pin]:
    """uv's exact pins for `requirements` on one Python and platform, as published up to lock_date, each
    with the hashes of the files that platform can install."""
    with files.temp_dir("lock") as tmp:
        req = tmp / "requirements.in"
        req.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        out = tmp / "pylock.toml"  # PEP 751: each file with its name and hash, only those the platform takes
        cmd = [_uv(), "pip", "compile", str(req), "--quiet", "--no-header", "--generate-hashes",
               "--format", "pylock.toml", "-o", str(out), "--python-version", python, "--python-platform", platform]
        if lock_date:
            # --exclude-newer is exclusive: take everything published up to the end of lock_date.
            cutoff = datetime.date.fromisoformat(lock_date) + datetime.timedelta(days=1)
            cmd += ["--exclude-newer", cutoff.isoformat()]
        if constraint:
            cmd += ["--constraint", str(constraint)]
        if no_deps:
            cmd += ["--no-deps"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["uv failed"])[-1]
            raise LockError(f"cannot resolve {name}: {last}")
        return pins_of_pylock(out.read_text(encoding="utf-8"), name)


def pins_of_pylock(text: str, name: str) -> list[Pin]:
    """The pins of a pylock.toml: every wheel's sha256, or the sdist's where a package has no wheel."""
    from builder.core.config import toml

    pins = []
    for package in toml().loads(text).get("packages", []):
        wheels = [w["hashes"]["sha256"] for w in package.get("wheels", [])]
        digests = wheels or ([package["sdist"]["hashes"]["sha256"]] if "sdist" in package else [])
        if not digests:
            raise LockError(f"cannot lock {name}: {package['name']} {package['version']} has no file with a hash")
        pins.append(Pin(package["name"], package["version"], tuple(sorted(digests))))
    return sorted(pins, key=lambda p: normalize(p.name))


# --- pip's refusal of a file that is not the locked one -------------------------------------------

_MISMATCH_HEAD = "DO NOT MATCH THE HASHES"
# "    six==1.16.0 from https://mirror.example.org/.../six-1.16.0-py2.py3-none-any.whl#sha256=... (from -r ...):"
_MISMATCH_PIN = re.compile(r"^\s+(?P<name>[A-Za-z0-9._-]+)==(?P<version>\S+)"
                           r"(?: from (?P<scheme>[a-z+]+)://(?:[^@/\s]*@)?(?P<host>[^/\s]+))?")


def hash_mismatch(lines: list[str], lock_name: str = "the lock") -> str | None:
    """One line for pip's "THESE PACKAGES DO NOT MATCH THE HASHES" in a log: the package, its version, the
    index (host only: a URL may carry credentials) and what to do; None when the log has no such refusal."""
    seen = False
    for line in lines:
        if _MISMATCH_HEAD in line:
            seen = True
            continue
        match = _MISMATCH_PIN.match(line) if seen else None
        if match:
            source = match.group("host") or "the index"
            return (f"{match.group('name')} {match.group('version')} from {source} is not the file {lock_name} "
                    f"names (its sha256 differs): a mirror or proxy changed it, and nothing was installed or kept. "
                    f"Use another index (--pip-index-url / PIP_INDEX_URL) and tell whoever runs this one")
    return None


# --- the wheels outside TensorFlow's set: pip itself and NVIDIA's CUDA wheels ------------------------

def wheel_requirements(matrix: Matrix, windows: bool = False) -> list[str]:
    """pip and every NVIDIA wheel the matrix names for Linux (the debian11 images, WSL) or for Windows."""
    pins = {"pip": matrix.image.pip}
    for stack in matrix.cuda.values():
        sources = [stack.windows.pip if stack.windows else {}] if windows else \
            [stack.debian.pip if stack.debian else {}, stack.wsl.pip if stack.wsl else {}]
        for source in sources:
            for name, version in source.items():
                if pins.setdefault(name, version) != version:
                    raise LockError(f"the matrix pins {name} at both {pins[name]} and {version} for "
                                    f"{'Windows' if windows else 'Linux'}: one wheels lock holds one version")
    return [f"{n}=={v}" for n, v in sorted(pins.items())]


def resolve_wheels(matrix: Matrix, python: str, platform: str, windows: bool = False,
                   root: Path | None = None) -> Path:
    """Hash pip and the CUDA wheels for one Python and platform (exact pins: no resolution, no date)."""
    out = paths.wheels_lock_path(python, windows, root)
    check_writable(out)
    pins = compile_pins(wheel_requirements(matrix, windows), python, platform, None, out.name, no_deps=True)
    title = f"tfenv wheels lock: pip and NVIDIA's CUDA wheels for Python {python}{' on Windows' if windows else ''}"
    return write(out, lock_text(title, None, platform, python, pins))


def wheel_pins(python: str, requirements: list[str], windows: bool = False, root: Path | None = None) -> list[Pin]:
    """The hashed pins of `requirements` (name==version) from the wheels lock of that Python."""
    path = paths.wheels_lock_path(python, windows, root)
    if not path.is_file():
        raise LockError(f"no wheels lock {path.name}: run `tfenv lock`")
    have = {normalize(p.name): p for p in parse(path).pin_list()}
    pins = []
    for requirement in requirements:
        name, _, version = requirement.partition("==")
        pin = have.get(normalize(name))
        if pin is None or pin.version != version:
            raise LockError(f"{path.name} has no {requirement}: run `tfenv lock` (the matrix changed)")
        pins.append(pin)
    return pins


def linux_wheel_platforms(matrix: Matrix) -> dict[str, str]:
    """Python -> platform of each Linux wheels lock: the lowest glibc among the OS variants with that Python."""
    out: dict[str, str] = {}
    for os_variant in sorted(matrix.os.values(), key=lambda o: tuple(map(int, o.glibc.split(".")))):
        out.setdefault(os_variant.python, manylinux_platform(os_variant.glibc))
    return out


def lock_targets(matrix: Matrix) -> list[Target]:
    """One target per (environment, Python): variants that share a Python share a lock."""
    seen: dict[tuple[str, str], Target] = {}
    for target in matrix.targets():
        seen.setdefault((target.env.name, target.python), target)
    return list(seen.values())
