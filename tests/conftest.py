"""Shared fixtures for tfenv's own tests, and the markers each test folder gets.

tests/unit    no Docker, seconds
tests/docker  the real Docker daemon, small images (marker `docker`)
tests/slow    the real daemon and real tf29 builds, minutes (markers `docker` and `slow`)
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT, matrix

# The debian11 base the docker tests start from (`tfenv base debian11` makes it).
BASE_IMAGE = os.environ.get("TFENV_TEST_BASE_IMAGE") or matrix().os["debian11"].local_base
FOLDER_MARKERS = {"unit": (), "docker": ("docker",), "slow": ("docker", "slow"), "web": ("web",)}


def pytest_collection_modifyitems(config, items):
    for item in items:
        folder = Path(str(item.fspath)).relative_to(ROOT / "tests").parts[0]
        for marker in FOLDER_MARKERS.get(folder, ()):
            item.add_marker(marker)


@pytest.fixture(autouse=True)
def _docker_tests_need_a_daemon(request):
    """Every test of tests/docker and tests/slow gets the daemon check (fail in CI, skip elsewhere)."""
    if request.node.get_closest_marker("docker"):
        request.getfixturevalue("docker_client")


@pytest.fixture(scope="session")
def m():
    """The shipped matrix.yaml, loaded (frozen dataclasses: one copy serves every test)."""
    return matrix()


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
    """A copy of the files render --check compares: matrix.yaml and the rendered dockerfiles/, wsl/, windows/."""
    dest = tmp_path / "checkout"
    dest.mkdir()
    shutil.copy(ROOT / "matrix.yaml", dest / "matrix.yaml")
    for folder in ("dockerfiles", "wsl", "windows"):
        shutil.copytree(ROOT / folder, dest / folder)
    return dest


@pytest.fixture(scope="session")
def docker_client():
    """The real Docker daemon: a failure in CI (CI=true), a skip elsewhere, saying why."""
    from builder.core.errors import TfenvError
    from builder.docker import daemon

    try:
        return daemon.client()
    except TfenvError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs a Docker daemon: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def base_image(docker_client) -> str:
    """The debian11 base the docker tests start from (`tfenv base debian11` makes it)."""
    from docker.errors import ImageNotFound

    ref = BASE_IMAGE
    try:
        docker_client.images.get(ref)
    except ImageNotFound:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{ref} is missing: .ci/run creates it with `tfenv base debian11`")
        pytest.skip(f"{ref} is missing: create it with `tfenv base debian11`")
    return ref
