"""--ca-cert means one thing for both kinds of image: apt and pip trust it while the image builds, and the
finished image does not (its trust store is the OS's own; no copy of the certificate is left in /tmp).

Small images on the local debian base: the environment image's own OS layer and its trust-store step, cut
from the real tf29/debian11 Dockerfile; the project image from the real project template."""

from __future__ import annotations

import subprocess

import pytest

from builder.core import progress
from builder.docker import images
from builder.matrix import tags
from builder.project import image as project_image
from builder.project.resolve import ProjectLock
from builder.render import dockerfiles
from tests.conftest import BASE_IMAGE
from tests.helpers import matrix

AFTER = ("cat /etc/ssl/certs/ca-certificates.crt; ls /usr/local/share/ca-certificates/ /tmp/; "
         "cat /etc/apt/apt.conf.d/* 2>/dev/null; true")


@pytest.fixture
def ca(tmp_path) -> tuple[bytes, str]:
    """A fresh self-signed CA (PEM) and one line of its base64 body, to look for in a trust store."""
    key, crt = tmp_path / "ca.key", tmp_path / "ca.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=tfenv test proxy CA", "-keyout", str(key), "-out", str(crt)], check=True,
                   capture_output=True)
    pem = crt.read_bytes()
    return pem, pem.decode().splitlines()[3]


def build(client, text: str, pem: bytes, label: str, buildargs: dict) -> str:
    ref = f"tfenv-test/ca-cert:{label}"
    options = images.BuildOptions(ca_pem=pem)
    images.build_stage(client, text, [ref], options, progress.Display(), buildargs, what="ca-cert test")
    return ref


def after_build(client, ref: str, label: str) -> str:
    return client.containers.run(ref, ["sh", "-c", AFTER], user="0", remove=True,
                                 labels={"io.tfenv.test": label}).decode()


def test_environment_image_trusts_the_ca_while_building_only(client, label, ca):
    pem, line = ca
    m = matrix()
    full = dockerfiles.render_target(m.target("tf29", "debian11"), m).text
    os_layer = full[: full.index("# --- CUDA")]  # the ca stage, the main stage and its OS layer
    # The TensorFlow layer's last step takes the certificate out again; run it alone, without the download.
    start = full.index(" && if [ -f /usr/local/share/ca-certificates/extra-ca.crt ]")
    untrust = "RUN true \\\n" + full[start: full.index("    fi\n", start) + len("    fi\n")]
    during = f'# The OS layer put it in the trust store for the steps that download.\nRUN grep -q "{line}" ' \
             "/etc/ssl/certs/ca-certificates.crt\n"
    text = os_layer + f"LABEL io.tfenv.test={label}\n" + during + untrust
    ref = build(client, text, pem, label, images.build_args(BASE_IMAGE, images.BuildOptions()))
    after = after_build(client, ref, label)
    assert "BEGIN CERTIFICATE" in after  # the OS's own bundle is still there
    assert line not in after and "extra-ca.crt" not in after and "tfenv-ca" not in after


@pytest.mark.parametrize("apt", [(), ("less",)])
def test_project_image_trusts_the_ca_while_building_only(client, label, ca, apt):
    pem, line = ca
    m = matrix()
    target = m.target("tf29", "debian11")
    lock = ProjectLock(path=None, inputs="ca-test", pins=(), text="# ca-test\n")
    described = project_image.ProjectImage("ca-test", target, False, BASE_IMAGE,
                                           tags.project_ref("ca-test", target, False, lock.digest), lock, apt)
    text = project_image.dockerfile(described, m) + f"LABEL io.tfenv.test={label}\n"
    args = images.build_args(BASE_IMAGE, images.BuildOptions(), base_arg="TFENV_BASE")
    ref = build(client, text, pem, label, args)
    after = after_build(client, ref, label)  # the bare debian base has no bundle of its own to compare
    assert line not in after and "tfenv-project" not in after and "99tfenv-project-ca" not in after
