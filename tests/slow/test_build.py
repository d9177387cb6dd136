"""tfenv build for real: tf29 on debian11, its tags and labels, and that TensorFlow imports in it.

Also `tfenv base debian11` end to end (debootstrap, about a minute), under a throw-away tag.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import uuid

import pytest

from builder.matrix import tags
from tests.helpers import tfenv


def run_in(client, ref, command, label):
    """Run a command in a fresh container of ref; the container is removed whatever happens."""
    container = client.containers.create(ref, command, labels={"io.tfenv.test": label})
    try:
        container.start()
        code = container.wait(timeout=600)["StatusCode"]
        return code, container.logs(stdout=True, stderr=True).decode("utf-8", "replace")
    finally:
        container.remove(force=True)


def test_tags_point_at_one_image_per_stage(docker_client, tf29_image):
    assert tf29_image.refs == [f"{tf29_image.repo}:2.9.3-gpu-cuda11.2-cudnn8.6-py3.9-debian11",
                               f"{tf29_image.repo}:tf29-debian11"]
    assert tf29_image.jupyter_refs == [r + "-jupyter" for r in tf29_image.refs]
    base_ids = {docker_client.images.get(r).id for r in tf29_image.refs}
    jupyter_ids = {docker_client.images.get(r).id for r in tf29_image.jupyter_refs}
    assert len(base_ids) == 1 and len(jupyter_ids) == 1 and base_ids != jupyter_ids


def test_labels_carry_the_matrix_values(docker_client, tf29_image):
    labels = docker_client.images.get(tf29_image.refs[0]).labels
    for key, value in tags.labels(tf29_image.target).items():
        assert labels[key] == value, key
    assert labels["org.opencontainers.image.version"] == "2.9.3-gpu-cuda11.2-cudnn8.6-py3.9-debian11"
    assert labels["org.opencontainers.image.title"] == "TensorFlow 2.9.3 GPU (debian11)"
    assert labels["org.opencontainers.image.licenses"] == "Apache-2.0"
    assert "io.tfenv.stage" not in labels
    jupyter = docker_client.images.get(tf29_image.jupyter_refs[0]).labels
    assert jupyter["io.tfenv.stage"] == "jupyter" and jupyter["io.tfenv.env"] == "tf29"


def test_tensorflow_imports(docker_client, tf29_image):
    label = f"test-build-{uuid.uuid4().hex[:8]}"
    code, logs = run_in(docker_client, tf29_image.refs[1],
                        ["python", "-c", "import tensorflow as tf; print('TF', tf.__version__)"], label)
    assert code == 0, logs
    assert "TF 2.9.3" in logs
    # Without a GPU only the driver library may be missing; every CUDA library of the image must load.
    missing = [line for line in logs.splitlines() if "Could not load dynamic library" in line]
    assert all("libcuda.so.1" in line for line in missing), missing


def test_no_apt_caches_left(docker_client, tf29_image):
    label = f"test-build-{uuid.uuid4().hex[:8]}"
    code, logs = run_in(docker_client, tf29_image.refs[1], ["bash", "-c",
                        "ls /var/cache/apt/archives/*.deb /var/cache/apt/*.bin /var/lib/apt/lists/*Packages* "
                        "2>/dev/null | wc -l"], label)
    assert code == 0 and logs.split() == ["0"], logs


def test_cublas_is_installed_once(docker_client, tf29_image):
    """Debian's libcublas11 is installed for libcusolver11's sake, but dpkg leaves its files out."""
    label = f"test-build-{uuid.uuid4().hex[:8]}"
    code, logs = run_in(docker_client, tf29_image.refs[1], ["bash", "-c",
                        "find / -xdev -name 'libcublas*.so.11*' 2>/dev/null | sort"], label)
    wheel = "/opt/venv/lib/python3.9/site-packages/nvidia/cublas/lib"
    assert logs.split() == [f"{wheel}/libcublas.so.11", f"{wheel}/libcublasLt.so.11"], logs


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("debootstrap") is None
                    or os.geteuid() != 0, reason="tfenv base needs Linux, root and debootstrap")
def test_base_debian11_is_a_small_working_apt_base(docker_client):
    tag = f"tfenv-ci/debian:test-{uuid.uuid4().hex[:8]}"
    try:
        result = tfenv("base", "debian11", "--tag", tag, "--plain", timeout=900)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr
        image = docker_client.images.get(tag)
        assert image.attrs["Config"]["Cmd"] == ["bash"]
        assert image.attrs["Size"] < 120e6  # the official debian:bullseye is about 124 MB; ours has no docs
        script = ("echo debs-before=$(ls /var/cache/apt/archives/*.deb 2>/dev/null | wc -l) "
                  "&& apt-get update -qq && apt-get install -y -qq --no-install-recommends python3.9 >/dev/null "
                  "&& python3.9 -c 'import ssl, json; print(\"python=ok\")' "
                  "&& echo debs-after=$(ls /var/cache/apt/archives/*.deb /var/cache/apt/*.bin 2>/dev/null | wc -l) "
                  "&& echo man-pages=$(find /usr/share/man -type f | wc -l)")
        code, logs = run_in(docker_client, tag, ["bash", "-c", script], f"test-base-{uuid.uuid4().hex[:8]}")
        assert code == 0, logs
        facts = dict(line.split("=", 1) for line in logs.splitlines() if "=" in line and " " not in line)
        assert facts == {"debs-before": "0", "python": "ok", "debs-after": "0", "man-pages": "0"}, logs
    finally:
        from docker.errors import ImageNotFound

        with contextlib.suppress(ImageNotFound):
            docker_client.images.remove(tag)
