"""Render Dockerfiles from the matrix with Jinja2 (StrictUndefined: a missing value is an error).

Rendered files are committed under dockerfiles/ENV/OS/Dockerfile so anyone can `docker build` without
tfenv (builder/render/generated.py writes them and checks the committed copies).
"""

from __future__ import annotations

import re
from pathlib import Path

from builder.core import paths
from builder.matrix import tags
from builder.matrix.model import Matrix, Target
from builder.render import lock
from builder.render.generated import Generated


def jinja_env(kind: str):
    """The Jinja2 environment over builder/templates/KIND; a missing value is an error, not ''."""
    import jinja2  # lazy: keeps `tfenv --help` fast

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(paths.templates(kind))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def exit_codes(kind: str) -> list[dict]:
    """The exit-code table of a PowerShell script (builder/templates/KIND/exit-codes.yaml): code, name,
    meaning. The script's help, its $Exit table and the README are rendered from it."""
    import yaml

    rows = yaml.safe_load((paths.templates(kind) / "exit-codes.yaml").read_text(encoding="utf-8"))
    return [{"code": int(r["code"]), "name": str(r["name"]), "meaning": str(r["meaning"])} for r in rows]


def powershell_version(version: str) -> str:
    """A driver version as PowerShell's [version] parses it: it needs major.minor ("495" -> "495.0")."""
    return version if "." in version else version + ".0"


def ld_library_path(target: Target) -> str:
    """The driver folders the NVIDIA runtime mounts, then the CUDA folders ldconfig does not cover."""
    dirs = ["/usr/local/nvidia/lib", "/usr/local/nvidia/lib64"]
    if target.os.family == "ubuntu":
        dirs += list(target.env.cuda.ubuntu.lib_dirs)
    return ":".join(dirs)


def wheel_lib_dirs(pip: dict[str, str], leaf: str = "lib") -> list[str]:
    """site-packages-relative folders the NVIDIA wheels put their libraries in
    (nvidia-cudnn-cu11 -> nvidia/cudnn/lib, nvidia-cuda-runtime-cu11 -> nvidia/cuda_runtime/lib; the
    win_amd64 wheels use bin instead of lib)."""
    return [f"nvidia/{re.sub(r'^nvidia-|-cu[0-9]+$', '', name).replace('-', '_')}/{leaf}" for name in pip]


def pip_lib_dirs(target: Target, matrix: Matrix) -> list[str]:
    """Absolute library folders of the NVIDIA wheels in the image's venv (debian11 only)."""
    if target.os.family != "debian":
        return []
    site = f"{matrix.image.venv}/lib/python{target.python}/site-packages"
    return [f"{site}/{folder}" for folder in wheel_lib_dirs(target.env.cuda.debian.pip)]


def shim_dir(target: Target) -> str:
    """Where compatibility links go: a folder the loader searches on this variant."""
    if target.os.family == "ubuntu":
        return target.env.cuda.ubuntu.lib_dirs[0]
    return "/usr/lib/x86_64-linux-gnu"


def context(target: Target, matrix: Matrix, locks_root: Path | None = None) -> dict:
    base_lock = lock.read(target, False, locks_root)
    jupyter_lock = lock.read(target, True, locks_root)
    base_pins = set(base_lock.hashed())
    debian = target.os.family == "debian"
    cudnn = [f"{n}=={v}" for n, v in target.env.cuda.debian.pip.items()] if debian else []
    return {
        "env": target.env,
        "os": target.os,
        "cuda": target.env.cuda,
        "image": matrix.image,
        "nvidia_repo": target.env.cuda.ubuntu.repos[target.os.name] if not debian else "",
        "cudnn_version": target.cudnn_version,
        "cudnn_pip": [p.hashed for p in lock.wheel_pins(target.python, cudnn, root=locks_root)] if cudnn else [],
        "pip_lib_dirs": pip_lib_dirs(target, matrix),
        "ld_library_path": ld_library_path(target),
        "shim_dir": shim_dir(target),
        "pip_pin": lock.wheel_pins(target.python, [f"pip=={matrix.image.pip}"], root=locks_root)[0].hashed,
        "lock": base_lock.hashed(),
        "lock_file": base_lock.path.name,
        # The Jupyter stage installs only what the base stage does not have yet.
        "jupyter_lock": [r for r in jupyter_lock.hashed() if r not in base_pins],
        "jupyter_lock_file": jupyter_lock.path.name,
        "tags": tags.image_refs(target, matrix.image.repo),
        "labels": {**tags.oci_labels(target), **tags.labels(target)},
    }


def render_target(target: Target, matrix: Matrix, locks_root: Path | None = None) -> Generated:
    env = jinja_env("docker")
    text = env.get_template("Dockerfile.j2").render(**context(target, matrix, locks_root))
    return Generated(paths.dockerfile_relpath(target), text)


def render_all(matrix: Matrix, targets: list[Target] | None = None) -> list[Generated]:
    return [render_target(t, matrix) for t in (targets or matrix.targets())]


# The committed renders of every environment, for the stale-file check.
