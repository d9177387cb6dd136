"""Render the WSL2 setup scripts (`tfenv wsl`): a bash script for inside the distribution, a PowerShell
script for the Windows side. Both come from the matrix; the renders are committed under wsl/ENV/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from builder.core import paths
from builder.core.errors import TfenvError
from builder.matrix.model import Env, Matrix, Target, unknown_name, version_key
from builder.render import lock
from builder.render.dockerfiles import exit_codes, jinja_env, powershell_version, wheel_lib_dirs
from builder.render.generated import Generated

# Windows variables setup.ps1 hands to install.sh through WSLENV (/u: Windows to WSL only; /p: a path,
# translated): the pip index and CA bundle, and the proxy. Nothing that turns TLS verification off.
WSLENV_VARIABLES = ("PIP_INDEX_URL/u", "PIP_EXTRA_INDEX_URL/u", "PIP_CERT/up", "HTTPS_PROXY/u", "HTTP_PROXY/u",
                    "NO_PROXY/u")

# Meta packages that pull a Linux NVIDIA driver into WSL, which hides the Windows driver (docs/sources.md §5).
_DRIVER_PACKAGES = re.compile(
    r"^(cuda|cuda-\d+-\d+|cuda-drivers.*|nvidia-driver.*|libnvidia-compute.*|nvidia-kernel.*)$"
)


class WslError(TfenvError):
    """The matrix cannot produce a WSL script for this request; one line, with the fix."""


@dataclass(frozen=True)
class Distro:
    name: str  # WSL's name, e.g. "Ubuntu-20.04"
    os: str  # the OS variant it matches, e.g. "ubuntu20.04"
    id: str
    version_id: str
    python: str
    family: str
    nvidia_repo: str  # apt route only, else ""


def distros(matrix: Matrix, env: Env) -> list[Distro]:
    """The WSL distributions this environment was tested on, in matrix order (the first is the default)."""
    if matrix.wsl is None:
        raise WslError(f"{matrix.path.name} has no 'wsl' section: it says which distributions WSL uses")
    found = []
    for d in matrix.wsl.distros.values():
        if d.os not in env.os:
            continue
        variant = matrix.os[d.os]
        repo = env.cuda.ubuntu.repos.get(d.os, "") if env.cuda.ubuntu else ""
        found.append(Distro(d.name, d.os, d.id, d.version_id, variant.python, variant.family, repo))
    if not found:
        raise WslError(f"{env.name} has no OS variant that a WSL distribution in {matrix.path.name} serves")
    return found


def driver_min(matrix: Matrix, env: Env) -> str:
    """The Windows driver a WSL GPU needs for this environment: WSL's own minimum or CUDA's, the higher."""
    versions = [matrix.wsl.driver_min_windows, env.cuda.driver_min["windows"]]
    best = max(versions, key=version_key)
    return powershell_version(best)


def context(matrix: Matrix, env: Env, distro: str | None = None, locks_root: Path | None = None) -> dict:
    stack = env.cuda
    if stack.wsl is None:
        raise WslError(f"CUDA {stack.version} has no 'wsl' section in {matrix.path.name}: "
                       f"add one saying where a WSL venv takes its runtime from")
    chosen = distros(matrix, env)
    if distro:
        if distro not in {d.name for d in chosen}:
            raise WslError(unknown_name(f"WSL distribution for {env.name}", distro, [d.name for d in chosen]))
        chosen = [d for d in chosen if d.name == distro]
    pip_route = stack.wsl.source == "pip"
    apt_packages = {} if pip_route else dict(stack.ubuntu.packages)
    bad = sorted(name for name in apt_packages if _DRIVER_PACKAGES.match(name))
    if bad:
        raise WslError(f"CUDA {stack.version}'s packages include {', '.join(bad)}, which pull a Linux NVIDIA "
                       f"driver into WSL: list runtime libraries only")
    requirements = {}
    for d in chosen:
        if d.python in requirements:
            continue
        target = Target(env, matrix.os[d.os])
        extra = [f"pip=={matrix.image.pip}"] + [f"{n}=={v}" for n, v in stack.wsl.pip.items()]
        wheels = lock.wheel_pins(d.python, extra, root=locks_root)
        requirements[d.python] = [wheels[0].hashed] + lock.read(target, False, locks_root).hashed() + \
            [p.hashed for p in wheels[1:]]
    links = list(env.shims) + list(stack.wsl.links)
    return {
        "env": env,
        "cuda": stack,
        "source": stack.wsl.source,
        "distros": chosen,
        "default_distro": chosen[0],
        "requirements": requirements,
        "pip_version": matrix.image.pip,
        "sonames": env.sonames,
        "links": links,
        "wheel_lib_dirs": wheel_lib_dirs(stack.wsl.pip),
        "apt_lib_dirs": [] if pip_route else list(stack.ubuntu.lib_dirs),
        "apt_packages": apt_packages,
        "ml_repo": (not pip_route) and stack.ubuntu.ml_repo,
        "driver_min": driver_min(matrix, env),
        "wsl_driver_min": matrix.wsl.driver_min_windows,
        "wsl_lib_dir": matrix.wsl.lib_dir,
        "windows_build_min": matrix.wsl.windows_build_min,
        "bash_name": paths.WSL_BASH,
        "exit_codes": exit_codes("wsl"),
        "wslenv": list(WSLENV_VARIABLES),
    }


def render(matrix: Matrix, env: Env, windows: bool = False, distro: str | None = None,
           locks_root: Path | None = None) -> Generated:
    name = paths.WSL_POWERSHELL if windows else paths.WSL_BASH
    jinja = jinja_env("wsl")
    text = jinja.get_template(name + ".j2").render(**context(matrix, env, distro, locks_root))
    if not text.isascii():  # Windows PowerShell 5.1 reads a BOM-less script as ANSI: keep it ASCII
        raise WslError(f"{name} render has non-ASCII text: fix the template")
    return Generated(paths.wsl_relpath(env, name), text, executable=not windows)


def render_all(matrix: Matrix, envs: list[str] | None = None) -> list[Generated]:
    """Both scripts for every environment whose CUDA stack has a WSL route: what wsl/ commits."""
    out = []
    for name in envs or list(matrix.envs):
        env = matrix.env(name)
        if env.cuda.wsl is None:
            continue
        out += [render(matrix, env), render(matrix, env, windows=True)]
    return out
