"""tf210 (TensorFlow 2.10.1) on debian11, built for real and verified with the shipped `tfenv test` suite.

It is built after the session's tf29 image, so the OS, CUDA, Python and cuDNN/cuBLAS layers come from
the layer cache and only TensorFlow's layer is new (what the matrix's layer order promises). The tags
and the layers this build made are removed at the end; the shared CUDA layers stay with tf29.
"""

from __future__ import annotations

import contextlib
import os

import pytest

from builder.core import files, progress
from builder.docker import daemon, images
from builder.matrix import tags
from tests.helpers import matrix, tfenv

REPO = "tfenv-ci-tf210/tensorflow"
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"


@pytest.fixture(scope="module")
def tf210_image(docker_client, base_image, tf29_image):
    m = matrix()
    target = m.target("tf210", "debian11")
    refs = tags.image_refs(target, REPO)
    before = {ref for ref in refs if daemon.has_image(docker_client, ref)}
    options = images.BuildOptions(repo=REPO, base_image=base_image, pull=False,
                                  ca_cert=HOST_CA if os.path.isfile(HOST_CA) else None,
                                  ca_pem=files.read_ca_cert(HOST_CA) if os.path.isfile(HOST_CA) else None)
    result = None
    try:
        result = images.build(m, target, options, progress.Display(), docker_client)
        yield result
    finally:
        from docker.errors import DockerException

        for ref in [r for r in refs if r not in before]:
            with contextlib.suppress(DockerException):
                docker_client.images.remove(ref)
        if result is not None and not before:
            images.remove_layers(docker_client, [layer for s in result.stages for layer in s.new_layers])


def test_only_the_tensorflow_layers_differ_from_tf29(docker_client, tf210_image, tf29_image):
    assert tf210_image.refs == [f"{REPO}:2.10.1-gpu-cuda11.2-cudnn8.6-py3.9-debian11", f"{REPO}:tf210-debian11"]
    ours, theirs = (docker_client.images.get(ref).attrs["RootFS"]["Layers"]
                    for ref in (tf210_image.refs[1], tf29_image.refs[1]))
    if ours[0] != theirs[0]:
        pytest.skip("the tf29 image in use was built on another base image: there are no layers to share")
    shared = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), len(ours))
    # The base, CA, CUDA, venv and cuDNN/cuBLAS layers are tf29's; only TensorFlow's pip layer and the
    # WORKDIR after it are tf210's own.
    assert len(ours) - shared == 2, (ours, theirs)


def test_tfenv_test_suite_passes(tf210_image):
    result = tfenv("test", "tf210", "--os", "debian11", "--repo", REPO, "--gpus", "none", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "PASS  TensorFlow version matches the matrix" in lines
    assert "PASS  libcudnn.so.8 loads by name through ctypes" in lines
    assert "PASS  importing TF and listing devices logs no `Could not load dynamic library` but for the driver" \
        in lines
    assert lines[-1].startswith(f"tf210 on debian11 ({REPO}:tf210-debian11): ") and " 0 failed" in lines[-1]
