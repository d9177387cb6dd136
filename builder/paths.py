"""Where tfenv's files live.

The templates are package data (builder/templates/). matrix.yaml and the locks are the checkout's; the
wheel carries copies under builder/_data (see pyproject.toml), so an installed tfenv needs no checkout.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_root() -> Path:
    """The folder holding matrix.yaml and locks/."""
    packaged = _PACKAGE / "_data"
    if (packaged / "matrix.yaml").is_file():
        return packaged
    return _PACKAGE.parent


def matrix_file() -> Path:
    return data_root() / "matrix.yaml"


def templates(kind: str) -> Path:
    """builder/templates/KIND: the Jinja2 partials of one kind of generated file (docker, wsl)."""
    return _PACKAGE / "templates" / kind


def locks_dir() -> Path:
    return data_root() / "locks"


def checkout_root() -> Path | None:
    """The source checkout, when tfenv runs from one (render --check compares against it)."""
    root = _PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "matrix.yaml").is_file() else None
