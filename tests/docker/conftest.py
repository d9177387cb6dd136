"""Fixtures of the docker tests: the daemon on the local debian base, and a label that cleans up."""

from __future__ import annotations

import contextlib
import uuid

import pytest
from docker.errors import ImageNotFound


@pytest.fixture
def client(docker_client, base_image):
    return docker_client


@pytest.fixture
def label(client):
    """A unique io.tfenv.test value; everything carrying it is removed afterwards, also on failure."""
    value = f"test-images-{uuid.uuid4().hex[:10]}"
    yield value
    for ctr in client.containers.list(all=True, filters={"label": f"io.tfenv.test={value}"}):
        ctr.remove(force=True)
    for img in client.images.list(filters={"label": f"io.tfenv.test={value}"}):
        for ref in img.tags:
            client.images.remove(ref)
    # Untagged layers of a failed build; newest (children) first.
    leftovers = client.images.list(all=True, filters={"label": f"io.tfenv.test={value}"})
    for img in sorted(leftovers, key=lambda i: i.attrs["Created"], reverse=True):
        with contextlib.suppress(ImageNotFound):  # already gone with its child
            client.images.remove(img.id, force=True)
