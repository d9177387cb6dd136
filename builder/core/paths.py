"""Where tfenv's files live: the data folders (matrix.yaml, locks/, templates) and every committed path and lock
name the generated trees use (dockerfiles/ENV/OS/Dockerfile, wsl/ENV/*, windows/ENV/setup.ps1, locks/*.txt).

The templates are package data (builder/templates/). matrix.yaml and the locks are the checkout's; the
wheel carries copies under builder/_data (see pyproject.toml), so an installed tfenv needs no checkout.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # builder/


_checkout_data: Path | None = None  # set by use_checkout(): a drift check reads the checkout, not the install


def use_checkout(root: Path | None) -> None:
    """Read matrix.yaml, locks/ and the templates from this checkout (render/bake --check found it from the
    current folder while tfenv runs from an installed copy, whose files may be older). None: the default."""
    global _checkout_data
    _checkout_data = root


def data_root() -> Path:
    """The folder holding matrix.yaml and locks/."""
    if _checkout_data is not None:
        return _checkout_data
    packaged = _PACKAGE / "_data"
    if (packaged / "matrix.yaml").is_file():
        return packaged
    return _PACKAGE.parent


def matrix_file() -> Path:
    return data_root() / "matrix.yaml"


def templates(kind: str) -> Path:
    """builder/templates/KIND: the Jinja2 partials of one kind of generated file (docker, wsl)."""
    if _checkout_data is not None and (_checkout_data / "builder" / "templates" / kind).is_dir():
        return _checkout_data / "builder" / "templates" / kind
    return _PACKAGE / "templates" / kind


def locks_dir() -> Path:
    return data_root() / "locks"


def is_checkout(folder: Path) -> bool:
    """A tfenv source checkout: pyproject.toml naming the tfenv project, beside matrix.yaml."""
    pyproject = folder / "pyproject.toml"
    if not (pyproject.is_file() and (folder / "matrix.yaml").is_file()):
        return False
    try:
        head = pyproject.read_bytes()[:4096].decode("utf-8", errors="replace")
    except OSError:
        return False
    return 'name = "tfenv"' in head


def _package_checkout() -> Path | None:
    """The checkout this package is imported from (an editable install), else None."""
    return _PACKAGE.parent if is_checkout(_PACKAGE.parent) else None


def checkout_root(start: Path | None = None) -> Path | None:
    """The source checkout: the one tfenv runs from (editable install), else the one around the current
    folder, so `render --check` works in a checkout whatever way tfenv was installed."""
    own = _package_checkout()
    if own is not None:
        return own
    try:
        here = (start or Path.cwd()).resolve()
    except OSError:  # the current folder was removed
        return None
    for folder in (here, *here.parents):
        if is_checkout(folder):
            return folder
    return None


# --- the committed trees: one name for each generated file ---------------------------------------
# `target` is a builder.matrix.model.Target, `env` an Env (not imported: the matrix stands above this room).

WSL_BASH = "install.sh"
WSL_POWERSHELL = "setup.ps1"
WINDOWS_SCRIPT = "setup.ps1"
STALE_GLOBS = ("dockerfiles/*/*/Dockerfile", "wsl/*/*", "windows/*/*")  # what a full render may leave stale


def dockerfile_dir(target) -> str:
    """The build context of a target in the checkout: dockerfiles/ENV/OS."""
    return f"dockerfiles/{target.env.name}/{target.os.name}"


def dockerfile_relpath(target) -> str:
    return f"{dockerfile_dir(target)}/Dockerfile"


def wsl_relpath(env, name: str) -> str:
    return f"wsl/{env.name}/{name}"


def windows_relpath(env) -> str:
    return f"windows/{env.name}/{WINDOWS_SCRIPT}"


def lock_name(target, jupyter: bool = False) -> str:
    """A Linux lock: ENV-pyX.Y[-jupyter].txt."""
    return f"{target.env.name}-py{target.python}{'-jupyter' if jupyter else ''}.txt"


def lock_path(target, jupyter: bool = False, root: Path | None = None) -> Path:
    return (root or locks_dir()) / lock_name(target, jupyter)


def wheels_lock_path(python: str, windows: bool = False, root: Path | None = None) -> Path:
    """locks/wheels-pyX.Y.txt (Linux) or locks/wheels-win-pyX.Y.txt: pip and the CUDA wheels, hashed."""
    return (root or locks_dir()) / f"wheels-{'win-' if windows else ''}py{python}.txt"


def windows_lock_name(env, python: str) -> str:
    """A Windows lock: ENV-win-pyX.Y.txt (the Python line the Windows script installs)."""
    return f"{env.name}-win-py{python}.txt"


def windows_lock_path(env, python: str, root: Path | None = None) -> Path:
    return (root or locks_dir()) / windows_lock_name(env, python)
