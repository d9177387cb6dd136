"""STAND-IN for the build helper's fixture (reuse mode only): replace with the real conftest at merge.

Contract used by tests/integration/test_run.py: tf29_image.repo, .refs, .jupyter_refs, .target.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from builder import matrix, tags
from builder.matrix import Target


@dataclass(frozen=True)
class BuiltImage:
    repo: str
    target: Target
    refs: list
    jupyter_refs: list


@pytest.fixture(scope="session")
def tf29_image() -> BuiltImage:
    repo = os.environ.get("TFENV_TEST_REUSE_REPO")
    if not repo:
        pytest.skip("stand-in fixture: set TFENV_TEST_REUSE_REPO=tfenv/tensorflow to reuse built tf29 images")
    from builder import dockerhost

    m = matrix.load()
    target = m.target("tf29", "debian11")
    image = BuiltImage(repo, target, tags.image_refs(target, repo), tags.image_refs(target, repo, jupyter=True))
    c = dockerhost.client()
    for ref in (image.refs[1], image.jupyter_refs[1]):
        dockerhost.require_image(c, ref, "tfenv build tf29 --os debian11 --jupyter")
    return image
