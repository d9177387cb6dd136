"""`tfenv ps` (CPU, memory, GPU memory) and `tfenv shell` on a real running container of the base image, and
a project build that stops before resolving when its environment image is missing.

GPU memory comes from the FAKE nvidia-smi (tests/fakes), copied into the container: there is no GPU here.
"""

from __future__ import annotations

import io
import re
import tarfile
import uuid

import pytest

from tests.helpers import ROOT, tfenv


@pytest.fixture
def running_container(base_image, docker_client):
    """A container labelled as `tfenv run` labels its own, running as uid 1000, with the FAKE nvidia-smi in it."""
    name = f"tfenv-it-project-shell-{uuid.uuid4().hex[:6]}"
    container = docker_client.containers.run(base_image, ["sleep", "infinity"], name=name, detach=True, user="1000",
                                             labels={"io.tfenv.managed": "run", "io.tfenv.env": "tf29"})
    try:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            tar.add(str(ROOT / "tests" / "fakes" / "nvidia-smi"), arcname="nvidia-smi")
        container.put_archive("/usr/local/bin", buf.getvalue())
        yield container
    finally:
        container.remove(force=True)


def test_ps_shows_cpu_memory_and_gpu_memory(running_container, tmp_path):
    result = tfenv("ps", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    header = result.stdout.splitlines()[0].split()
    assert header[:4] == ["NAME", "ENV", "STATUS", "CPU"] and "MEMORY" in header
    row = next(line for line in result.stdout.splitlines() if line.startswith(running_container.name))
    assert re.search(r"  \d+\.\d%  ", row), row  # CPU share
    assert re.search(r"  \d+(\.\d)?(B|KiB|MiB|GiB) / \d+(\.\d)?(B|KiB|MiB|GiB)  ", row), row  # memory used / limit
    assert "1234MiB / 16384MiB" in row  # from the FAKE nvidia-smi copied into the container


def test_shell_opens_bash_in_the_named_container(running_container, tmp_path):
    result = tfenv("shell", running_container.name, cwd=tmp_path, input="id -u; echo $0\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1000", "bash"]
    missing = tfenv("shell", "tfenv-it-no-such-container", cwd=tmp_path)
    assert missing.returncode == 2 and "no running tfenv container named tfenv-it-no-such-container" in \
        missing.stderr


def test_project_build_without_the_environment_image_says_how_to_build_it(tmp_path, docker_client):
    (tmp_path / "tfenv.yaml").write_text("environment: tf28\nos: debian11\njupyter: true\n", encoding="utf-8")
    result = tfenv("build", "--repo", "tfenv-it-absent/tensorflow", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "tfenv: error: the tf28/debian11 image tfenv-it-absent/tensorflow:tf28-debian11-jupyter is not built: "
        "build it with `tfenv build tf28 --os debian11 --jupyter --repo tfenv-it-absent/tensorflow`, or run "
        "`tfenv build --build-env` here")
    assert not (tmp_path / "tfenv.lock").exists()  # refused before resolving
