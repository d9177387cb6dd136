"""Where tfenv's data lives: the checkout when run from one, else the copy inside the wheel.

The wheel carries matrix.yaml, the templates and the locks under builder/_data (see pyproject.toml),
so an installed tfenv works outside the checkout.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_root() -> Path:
    """The folder holding matrix.yaml, dockerfiles/, wsl/ and locks/."""
    packaged = _PACKAGE / "_data"
    if (packaged / "matrix.yaml").is_file():
        return packaged
    return _PACKAGE.parent


def matrix_file() -> Path:
    return data_root() / "matrix.yaml"


def dockerfile_templates() -> Path:
    return data_root() / "dockerfiles" / "templates"


def wsl_templates() -> Path:
    return data_root() / "wsl" / "templates"


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
