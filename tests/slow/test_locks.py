"""Every Python 3.9 lock installs and imports for real: the pin sets are tested, not guessed.

Each lock is installed with `pip install --no-deps` (as the Dockerfiles do) into a fresh venv in one
bullseye container, then `pip check` and a TensorFlow import with a small op must pass. TensorFlow runs
on the CPU here; CUDA loading is the image suite's job. The Python 3.8 locks (Ubuntu variants) need an
Ubuntu base, which this machine cannot make: the GitHub Actions image workflow tests those.
"""

from __future__ import annotations

import os
import uuid

import pytest

from builder.render import lock
from tests.conftest import BASE_IMAGE
from tests.helpers import matrix

BASE = BASE_IMAGE
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
CA_IN_CONTAINER = "/tmp/host-ca.crt"  # not at the same path: the ca-certificates package rewrites that file
M = matrix()
# tf29 is installed and imported by the image build test; these are the other debian11 locks (tf25-tf28,
# tf210: its image test proves the image, this proves the lock alone on a bare bullseye).
TARGETS = [t for t in lock.lock_targets(M) if t.python == "3.9" and t.env.name != "tf29"]


@pytest.fixture(scope="module")
def bullseye(docker_client):
    from docker.errors import ImageNotFound

    try:
        docker_client.images.get(BASE)
    except ImageNotFound:
        pytest.fail(f"the lock tests need the base image {BASE}: create it with `tfenv base debian11`")
    volumes = {HOST_CA: {"bind": CA_IN_CONTAINER, "mode": "ro"}} if os.path.isfile(HOST_CA) else {}
    environment = {"PIP_CERT": CA_IN_CONTAINER} if volumes else {}
    container = docker_client.containers.run(
        BASE, ["sleep", "infinity"], detach=True, volumes=volumes, environment=environment,
        labels={"io.tfenv.managed": "test-locks"}, name=f"tfenv-test-locks-{uuid.uuid4().hex[:8]}",
    )
    try:
        python = M.os["debian11"].packages
        code, out = container.exec_run(
            ["bash", "-c", "apt-get update -qq && apt-get install -y -qq --no-install-recommends "
             f"python3.9={python['python3.9']} python3.9-venv={python['python3.9-venv']} >/dev/null"]
        )
        assert code == 0, out.decode()[-2000:]
        yield container
    finally:
        container.remove(force=True)


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.env.name)
def test_lock_installs_and_imports(bullseye, target):
    pins = " ".join(lock.read(target).requirements())
    script = (
        "set -e; rm -rf /tmp/venv; python3.9 -m venv /tmp/venv; . /tmp/venv/bin/activate; "
        f"pip install -q --no-cache-dir --no-deps {pins}; pip check; "
        "python -c 'import tensorflow as tf; print(tf.__version__, int(tf.reduce_sum(tf.ones([3, 3]))))'"
    )
    # stdout and stderr apart: TF's log lines on stderr may interleave with the printed result.
    code, (out, err) = bullseye.exec_run(["bash", "-c", script], demux=True)
    stdout, stderr = (out or b"").decode(errors="replace"), (err or b"").decode(errors="replace")
    try:
        assert code == 0, (stdout + stderr)[-3000:]
        assert stdout.strip().splitlines()[-1] == f"{target.env.tensorflow} 9", stdout + stderr[-2000:]
    finally:
        bullseye.exec_run(["rm", "-rf", "/tmp/venv"])
