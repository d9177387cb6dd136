"""The shared image for the slow tests: tf29 on debian11, both stages, built once per session.

Contract (other test modules rely on it): the session fixture `tf29_image` yields an object with
.repo, .refs (tensorflow stage: content tag first, alias second), .jupyter_refs and .target (tf29/debian11).

- TFENV_TEST_REUSE_REPO=REPO: when REPO:tf29-debian11 and REPO:tf29-debian11-jupyter exist, use them and
  never delete them (development mode).
- Otherwise build through builder.docker.images into tfenv-ci/tensorflow on the debian11 base (base.TAGS)
  (TFENV_TEST_BASE_IMAGE overrides), trusting /etc/ssl/certs/ca-certificates.crt when it exists, and
  remove the tags it created at the end of the session.

Like every test under tests/docker and tests/slow, these fail when no daemon answers in CI (CI=true) and
are skipped elsewhere, with the reason (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

import pytest

from builder.core import files, progress
from builder.docker import daemon, images
from builder.matrix import tags
from builder.matrix.model import Target
from tests.conftest import BASE_IMAGE
from tests.helpers import matrix

CI_REPO = "tfenv-ci/tensorflow"
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"


@dataclass
class BuiltImage:
    repo: str
    refs: list[str]
    jupyter_refs: list[str]
    target: Target
    created: list[str] = field(default_factory=list)  # refs this session made and must remove


def _existing(c, refs) -> bool:
    return all(daemon.has_image(c, ref) for ref in refs)


@pytest.fixture(scope="session")
def tf29_image(docker_client):
    m = matrix()
    target = m.target("tf29", "debian11")
    reuse = os.environ.get("TFENV_TEST_REUSE_REPO")
    if reuse:
        refs, jupyter_refs = tags.image_refs(target, reuse), tags.image_refs(target, reuse, jupyter=True)
        if _existing(docker_client, [refs[1], jupyter_refs[1]]):
            yield BuiltImage(reuse, refs, jupyter_refs, target)
            return
    options = images.BuildOptions(
        repo=CI_REPO,
        jupyter=True,
        base_image=BASE_IMAGE,
        ca_cert=HOST_CA if os.path.isfile(HOST_CA) else None,
        ca_pem=files.read_ca_cert(HOST_CA) if os.path.isfile(HOST_CA) else None,
        pull=False,
    )
    # Tags that exist before the build belong to someone else's run: leave them alone.
    all_refs = tags.image_refs(target, CI_REPO) + tags.image_refs(target, CI_REPO, jupyter=True)
    before = {ref for ref in all_refs if daemon.has_image(docker_client, ref)}
    result = None
    try:
        result = images.build(m, target, options, progress.Display(), docker_client)
        built = BuiltImage(CI_REPO, result.refs, result.jupyter_refs, target,
                           created=[r for r in all_refs if r not in before])
        yield built
    finally:
        from docker.errors import DockerException

        for ref in [r for r in all_refs if r not in before]:
            with contextlib.suppress(DockerException):  # never built (the build failed) or already gone
                docker_client.images.remove(ref)
        if result is not None and not before:
            # The layers this build added that nothing else uses (the small CA stage's cache).
            images.remove_layers(docker_client, [layer for s in result.stages for layer in s.new_layers])
