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


def windows_templates() -> Path:
    return _PACKAGE / "templates" / "windows"


def locks_dir() -> Path:
    return data_root() / "locks"


def checkout_root() -> Path | None:
    """The source checkout, when tfenv runs from one (render --check compares against it)."""
    root = _PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "matrix.yaml").is_file() else None
