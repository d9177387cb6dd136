"""The rendered tf29 WSL script, run for real in a Debian bullseye container with a *simulated* WSL2.

What is simulated, and why: this machine has no Windows, no WSL and no GPU. The test sets
TFENV_WSL_ROOT=/sim and writes /sim/proc/version (a WSL2 kernel string), /sim/dev/dxg and a placeholder
/sim/usr/lib/wsl/lib/libcuda.so.1 (a text file, not a driver). Everything else is real: the distribution
(Debian 11, Python 3.9 installed by the script itself through apt), the venv, TensorFlow 2.9.3 and NVIDIA's
CUDA wheels from the package index, and every soname loading. The container trusts the host's CA bundle
through PIP_CERT, as users behind a TLS proxy do.

Development only: TFENV_TEST_PIP_CACHE=/some/dir keeps pip's downloads between runs.
"""

from __future__ import annotations

import os
import uuid

import pytest

from tests.helpers import ROOT

SCRIPT = ROOT / "wsl" / "tf29" / "install.sh"
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
CA_IN_BOX = "/tfenv-ca/ca-certificates.crt"  # not the box's own path: its ca-certificates package rewrites that
VENV = "/root/.venvs/tfenv-tf29"
SITE = f"{VENV}/lib/python3.9/site-packages"
SIM = {"TFENV_WSL_ROOT": "/sim", "PIP_CERT": CA_IN_BOX, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
SIMULATE_WSL2 = (
    "mkdir -p /sim/proc /sim/dev /sim/usr/lib/wsl/lib"
    " && echo 'Linux version 5.15.153.1-microsoft-standard-WSL2 (simulated by tfenv tests)' > /sim/proc/version"
    " && touch /sim/dev/dxg"
    " && echo 'placeholder, not a driver' > /sim/usr/lib/wsl/lib/libcuda.so.1"
)



@pytest.fixture(scope="module")
def container(docker_client, base_image):
    client = docker_client
    volumes = {str(SCRIPT.parent): {"bind": "/w", "mode": "ro"}, CA_BUNDLE: {"bind": CA_IN_BOX, "mode": "ro"}}
    cache = os.environ.get("TFENV_TEST_PIP_CACHE")
    if cache:
        volumes[cache] = {"bind": "/root/.cache/pip", "mode": "rw"}
    name = f"tfenv-test-wsl-{uuid.uuid4().hex[:8]}"
    box = client.containers.run(base_image, ["sleep", "infinity"], name=name, detach=True, volumes=volumes,
                                labels={"io.tfenv.test": "wsl"}, init=True)
    try:
        yield box
    finally:
        box.remove(force=True)


def sh(box, command: str, env: dict | None = None) -> tuple[int, str]:
    code, out = box.exec_run(["bash", "-c", command], environment=env or {})
    text = out.decode("utf-8", "replace")
    print(f"$ {command}\n{text}")  # pytest shows it when the test fails
    return code, text


def test_preflight_fails_outside_wsl(container):
    code, out = sh(container, "bash /w/install.sh --check")
    assert code == 2, out
    assert "not running inside WSL2" in out
    assert "no libcuda.so in /usr/lib/wsl/lib" in out
    assert "preflight found 2 problem(s)" in out


def test_preflight_fails_with_a_linux_driver_library(container):
    code, out = sh(container, SIMULATE_WSL2 + " && touch /usr/lib/x86_64-linux-gnu/libcuda.so.1"
                   " && bash /w/install.sh --check; rc=$?; rm /usr/lib/x86_64-linux-gnu/libcuda.so.1; exit $rc",
                   SIM)
    assert code == 2, out
    assert "ok: running in WSL2" in out
    assert "Linux NVIDIA driver libraries are installed inside WSL (/usr/lib/x86_64-linux-gnu/libcuda.so.1)" in out


def test_preflight_fails_with_a_linux_driver_package(container):
    stanza = ("Package: nvidia-driver-535\\nStatus: install ok installed\\nPriority: optional\\nSection: libs\\n"
              "Maintainer: fake <fake@example.org>\\nArchitecture: amd64\\nVersion: 535.0-0fake\\n"
              "Description: fake Linux driver package (test)\\n")
    code, out = sh(container, SIMULATE_WSL2 + " && cp /var/lib/dpkg/status /tmp/status.orig"
                   f" && printf '\\n{stanza}' >> /var/lib/dpkg/status"
                   " && bash /w/install.sh --check; rc=$?; cp /tmp/status.orig /var/lib/dpkg/status; exit $rc", SIM)
    assert code == 2, out
    assert "a Linux NVIDIA driver is installed inside WSL (nvidia-driver-535)" in out
    assert "sudo apt-get purge nvidia-driver-535" in out


def test_install_then_second_run_is_a_no_op(container):
    code, out = sh(container, SIMULATE_WSL2 + " && bash /w/install.sh", SIM)
    assert code == 0, out[-6000:]
    assert "installed python3.9 and python3.9-venv" in out
    assert "ok   TensorFlow 2.9.3" in out
    # Every soname comes from the NVIDIA wheels in the venv (cupti through the venv's link to .so.11.8).
    for so, folder in [("libcudart.so.11.0", "cuda_runtime"), ("libcublas.so.11", "cublas"),
                       ("libcublasLt.so.11", "cublas"), ("libcufft.so.10", "cufft"), ("libcurand.so.10", "curand"),
                       ("libcusolver.so.11", "cusolver"), ("libcusparse.so.11", "cusparse"),
                       ("libcudnn.so.8", "cudnn"), ("libcupti.so.11.2", "cuda_cupti")]:
        assert f"ok   {so} loads from {SITE}/nvidia/{folder}/lib/" in out, so
    assert "linked libcupti.so.11.2 -> " in out
    assert "TensorFlow lists no GPU" in out  # told, not hidden: there is no GPU here
    assert f"tfenv-wsl: pip: index the one pip.conf or pip names, CA bundle {CA_IN_BOX}" in out  # what arrived
    code, act = sh(container, f"grep -c /sim/usr/lib/wsl/lib {VENV}/bin/activate")
    assert act.strip() == "1"

    code, out = sh(container, "touch /tmp/before && sleep 1 && bash /w/install.sh", SIM)
    assert code == 0, out[-6000:]
    assert "already installed: nothing changed" in out
    assert f"checks passed without a GPU: source {VENV}/bin/activate" in out
    code, newer = sh(container, f"find {VENV} /usr/lib/python3.9 /var/lib/dpkg/status -newer /tmp/before")
    assert code == 0 and newer == "", newer  # the second run wrote nothing

    code, out = sh(container, "bash /w/install.sh --require-gpu", SIM)
    assert code == 1, out[-3000:]
    assert "error: TensorFlow lists no GPU" in out


def test_a_failed_install_removes_the_venv_it_created(container):
    """pip cannot reach its index (a closed port on the container's own loopback): the venv this run made is
    removed, so the next run does not trust a half-made one. Runs after the install above (python3.9 is there)."""
    venv = "/root/.venvs/tfenv-unreachable"
    env = {**SIM, "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2"}
    code, out = sh(container, SIMULATE_WSL2 + f" && bash /w/install.sh --venv {venv}", env)
    assert code == 2, out[-3000:]
    assert "pip: index http://127.0.0.1:9/simple" in out
    assert f"removing the unfinished venv {venv}" in out
    code, _ = sh(container, f"test ! -e {venv}")
    assert code == 0, f"{venv} was left behind"
