"""tfenv test against the real Docker daemon, for the errors that need no image: exit 2 with the fix."""

from __future__ import annotations

import secrets

import pytest

from builder.docker import daemon
from tests.helpers import tfenv


@pytest.fixture
def docker_api(docker_client):
    return docker_client


def test_gpus_all_without_nvidia_runtime_fails_at_once(docker_api):
    if daemon.has_nvidia_runtime(docker_api):
        pytest.skip("this Docker daemon has an NVIDIA runtime: --gpus all is valid here")
    # A repository that does not exist: the GPU check must come first, before any image is looked up.
    repo = f"tfenv-ci/none-{secrets.token_hex(4)}"
    result = tfenv("test", "tf29", "--os", "debian11", "--gpus", "all", "--repo", repo)
    assert result.returncode == 2
    assert result.stderr.startswith("tfenv: error: --gpus all, but this Docker daemon has no NVIDIA runtime")
    assert "nvidia-ctk runtime configure --runtime=docker" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_missing_image_says_how_to_build_it(docker_api):
    repo = f"tfenv-ci/none-{secrets.token_hex(4)}"
    result = tfenv("test", "tf29", "--os", "debian11", "--gpus", "none", "--repo", repo)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"tfenv: error: image {repo}:tf29-debian11 not found locally: "
        f"build it with `tfenv build tf29 --os debian11 --repo {repo}`"
    )


def test_missing_image_ref_says_how_to_get_it(docker_api):
    ref = f"tfenv-ci/none-{secrets.token_hex(4)}:x"
    result = tfenv("test", "--image", ref, "--gpus", "none")
    assert result.returncode == 2 and f"image {ref} not found locally" in result.stderr
    assert f"docker pull {ref}" in result.stderr
