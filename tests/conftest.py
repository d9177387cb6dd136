"""Shared fixtures for tfenv's own tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def matrix_data() -> dict:
    """The shipped matrix.yaml as plain data, to edit into invalid variants."""
    return yaml.safe_load((ROOT / "matrix.yaml").read_text(encoding="utf-8"))


@pytest.fixture
def write_matrix(tmp_path):
    """Write matrix data (or raw text) to a temporary matrix.yaml and return its path."""

    def write(data, name="matrix.yaml") -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write


@pytest.fixture
def checkout_copy(tmp_path) -> Path:
    """A copy of the files render --check compares: matrix.yaml and the rendered dockerfiles/ and wsl/."""
    dest = tmp_path / "checkout"
    dest.mkdir()
    shutil.copy(ROOT / "matrix.yaml", dest / "matrix.yaml")
    for folder in ("dockerfiles", "wsl"):
        shutil.copytree(ROOT / folder, dest / folder, ignore=shutil.ignore_patterns("templates"))
    return dest
