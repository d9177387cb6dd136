"""Pin sets: resolve each environment's full Python package set as of its lock_date.

A lock is the complete, exact list an image installs (pip --no-deps), so the same image comes out next
year. Resolution uses uv's --exclude-newer so unpinned dependencies are taken as they were when the TF
release was current; today's numpy 2 or protobuf 4 would break the old TF lines at import.
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


@dataclass(frozen=True)
class Lock:
    path: Path
    pins: tuple[tuple[str, str], ...]  # (name, version), sorted by name

    def requirements(self) -> list[str]:
        return [f"{name}=={version}" for name, version in self.pins]


def read(target: Target, jupyter: bool = False, root: Path | None = None) -> Lock:
    path = paths.lock_path(target, jupyter, root)
    if not path.is_file():
        raise LockError(f"no lock {path.name} for {target.key}: run `tfenv lock {target.env.name}`")
    return parse(path)


def parse(path: Path) -> Lock:
    pins = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name or not version:
            raise LockError(f"{path.name}:{number}: expected 'name==version', got {line!r}")
        pins.append((name.strip(), version.strip()))
    return Lock(path, tuple(sorted(pins, key=lambda p: normalize(p[0]))))


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


def write(out: Path, title: str, lock_date: str, pins: list[str]) -> Path:
    """A lock file: a header saying what it is and when it was resolved, then the pins; atomic."""
    header = f"# {title},\n# resolved from matrix.yaml as of {lock_date} by `tfenv lock`. Do not edit.\n"
    files.make_folder(out.parent, "locks folder")
    files.write_text(out, header + "\n".join(pins) + "\n", what="lock")  # atomic: never half a lock
    return out


def resolve(target: Target, matrix: Matrix, jupyter: bool = False, root: Path | None = None) -> Path:
    """Resolve one lock with uv and write it; the jupyter lock is constrained by the base lock."""
    out = paths.lock_path(target, jupyter, root)
    check_writable(out)
    constraint = paths.lock_path(target, False, root) if jupyter else None
    pins = compile_pins(requirements_for(target, matrix, jupyter), target.python, LINUX_PLATFORM,
                        target.env.lock_date, out.name, constraint)
    title = f"tfenv lock for {target.env.name} on Python {target.python}{' with Jupyter' if jupyter else ''}"
    return write(out, title, target.env.lock_date, pins)


LINUX_PLATFORM = "x86_64-manylinux_2_17"
WINDOWS_PLATFORM = "x86_64-pc-windows-msvc"


def compile_pins(requirements: list[str], python: str, platform: str, lock_date: str, name: str,
                 constraint: Path | None = None) -> list[str]:
    """uv's exact pins for `requirements` on one Python and platform, as published up to lock_date."""
    uv = shutil.which("uv")
    if not uv:
        raise LockError("`tfenv lock` needs uv, a dependency of tfenv: pip install uv")
    # --exclude-newer is exclusive: take everything published up to the end of lock_date.
    cutoff = datetime.date.fromisoformat(lock_date) + datetime.timedelta(days=1)

    with files.temp_dir("lock") as tmp:
        req = tmp / "requirements.in"
        req.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        cmd = [
            uv, "pip", "compile", str(req), "--quiet", "--no-header", "--no-annotate",
            "--python-version", python, "--python-platform", platform,
            "--exclude-newer", cutoff.isoformat(),
        ]
        if constraint:
            cmd += ["--constraint", str(constraint)]
        result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["uv failed"])[-1]
        raise LockError(f"cannot resolve {name}: {last}")
    return [line for line in result.stdout.splitlines() if line and not line.startswith("#")]


def lock_targets(matrix: Matrix) -> list[Target]:
    """One target per (environment, Python): variants that share a Python share a lock."""
    seen: dict[tuple[str, str], Target] = {}
    for target in matrix.targets():
        seen.setdefault((target.env.name, target.python), target)
    return list(seen.values())
