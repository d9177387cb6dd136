"""SIGTERM (a cancelled CI job) in the middle of an uncached build step: `tfenv build` exits 143 and leaves
no build container, no untagged layer of that build and no temporary folder.

The build is the real tf29 Dockerfile on a tiny base made here from the debian11 base, whose `mkdir` sleeps:
the Dockerfile's first RUN (`mkdir /ca ...`) then runs long enough to be interrupted, and it is uncached
because the base is new. Nothing is downloaded.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import time
import uuid

import pytest

from builder.docker import images
from tests.conftest import BASE_IMAGE
from tests.helpers import ROOT, TFENV

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

# /usr/local/bin comes before /bin on PATH: every `mkdir` of a RUN step sleeps first.
SLEEPY_BASE = f"""FROM {BASE_IMAGE}
LABEL io.tfenv.test="{{label}}"
RUN printf '#!/bin/sh\\nsleep 120\\nexec /bin/mkdir "$@"\\n' > /usr/local/bin/mkdir && chmod 755 /usr/local/bin/mkdir
"""


@pytest.fixture
def sleepy_base(client, label):
    ref = f"tfenv-ci/sleepy-base:{label}"
    dockerfile = SLEEPY_BASE.format(label=label)
    for event in client.api.build(fileobj=images.context_tar(dockerfile), custom_context=True, tag=ref, rm=True,
                                  forcerm=True, decode=True):
        assert "error" not in event, event
    yield ref  # the label fixture removes it and every layer on it


def build_containers(client, label) -> list[str]:
    return [c["Id"] for c in client.api.containers(all=True, filters={"label": f"io.tfenv.test={label}"})]


def layers_on(client, base_ref) -> list[str]:
    """Images whose parent chain reaches the sleepy base: what a build on it made (classic builder layers)."""
    base_id = client.images.get(base_ref).id
    parent_of = {img["Id"]: img.get("ParentId") for img in client.api.images(all=True)}
    made = []
    for image_id in parent_of:
        parent = parent_of[image_id]
        while parent and parent != base_id:
            parent = parent_of.get(parent)
        if parent == base_id:
            made.append(image_id)
    return made


def test_sigterm_during_an_uncached_build_step_exits_143_and_leaves_nothing(client, label, sleepy_base, tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    repo = f"tfenv-ci/sigterm-{uuid.uuid4().hex[:8]}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TFENV_")}
    env.update(PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir), TFENV_CONFIG=str(tmp_path / "none.toml"))
    proc = subprocess.Popen([*TFENV, "build", "tf29", "--os", "debian11", "--base-image", sleepy_base, "--no-pull",
                             "--repo", repo, "--plain"], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not client.api.containers(filters={"label": f"io.tfenv.test={label}", "status": "running"}):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the RUN step never started"
            time.sleep(0.3)
        time.sleep(1)  # mid-step: the sleeping mkdir runs
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert err.strip().splitlines()[-1] == "tfenv: interrupted", err
    # The daemon may remove the cancelled step's container before tfenv asks: either way none is left.
    assert re.search(r"build interrupted at step \d+/\d+: (removed its container [0-9a-f]{12}|no container was "
                     r"left), and the 1 untagged layer\(s\) it had made", out + err), out + err
    assert "Traceback" not in err
    left = build_containers(client, label)
    for _ in range(20):  # the daemon may still be tearing the step down
        if not left:
            break
        time.sleep(0.5)
        left = build_containers(client, label)
    assert left == [], out + err
    assert layers_on(client, sleepy_base) == [], out + err  # the COPY step's layer went too: no <none> image
    assert client.images.list(name=repo) == []
    assert list(tmpdir.iterdir()) == []


def test_a_silent_build_step_longer_than_the_docker_timeout_is_not_cut(client, label, monkeypatch):
    """The daemon answered at once; a step that prints nothing for longer than TFENV_DOCKER_TIMEOUT goes on."""
    from builder.core import progress
    from builder.docker import daemon

    monkeypatch.setenv("TFENV_DOCKER_TIMEOUT", "1")
    c = daemon.client()
    dockerfile = f'FROM {BASE_IMAGE}\nLABEL io.tfenv.test="{label}"\nRUN sleep 4 && echo slept\n'
    built = images.run_build(c, io.BytesIO(images.context_tar(dockerfile).getvalue()),
                             tag=f"tfenv-ci/silent-step:{label}", display=progress.display(True), nocache=True)
    assert built.image_id.startswith("sha256:")
    c.close()
