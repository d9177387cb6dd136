"""A mirror that serves other bytes under a locked version is refused, in one line, and nothing is left.

A small PEP 503 index listens on 127.0.0.1 (a thread of this process). It serves one pinned wheel from a
folder, either the genuine file (downloaded once by pip, kept in the pip cache folder below) or the same
wheel repacked with one more file: same name and version, other bytes, the way a compromised mirror would
serve it. Every other project it redirects to pip's own configured index, so pip still fetches those itself.
Builds and containers reach the index with --network host (loopback only).

- A project build (`tfenv build` in a project folder) on a tiny stand-in for the environment image (a
  bullseye venv tagged under a test repository: the project layer is what is tested, not TensorFlow).
- The tf29 WSL install.sh in a bullseye container with a simulated WSL2 (as tests/slow/test_wsl.py).

TFENV_TEST_PIP_CACHE=/some/dir keeps pip's downloads between runs (the WSL run installs the whole tf29 set).
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import http.server
import io
import os
import re
import shutil
import subprocess
import sys
import threading
import uuid
import zipfile
from pathlib import Path

import pytest

from builder.matrix import tags, validate

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
CA_IN_BOX = "/tfenv-ca/ca-certificates.crt"
PROJECT_PIN = ("toml", "0.10.2")  # a 16 KB pure-Python wheel tf29 does not pin
WSL_PIN = ("six", "1.16.0")  # in tf29's lock: installed by install.sh's main pip step


def _upstream_index() -> str:
    """pip's configured index (PIP_INDEX_URL, pip config), else pip's default: where other projects go."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"].rstrip("/")
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    found = re.findall(r"^\S*\.index-url='([^']+)'$", out, re.M)
    if found:
        return found[-1].rstrip("/")
    from pip._internal.models.index import PyPI

    return PyPI.simple_url.rstrip("/")


def genuine_wheel(folder: Path, name: str, version: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    found = list(folder.glob(f"{name}-{version}-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        "--dest", str(folder), f"{name}=={version}"], check=True, timeout=300)
        found = list(folder.glob(f"{name}-{version}-*.whl"))
    return found[0]


def repack(wheel: Path, out: Path) -> Path:
    """The same wheel with one more file in it: a valid wheel under the same name, with other bytes."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / wheel.name
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item, src.read(item.filename))
        dst.writestr("substituted-by-a-mirror.txt", "other bytes under the same version\n")
    return target


class Index:
    """A PEP 503 index on 127.0.0.1 serving one wheel; other projects are redirected upstream."""

    def __init__(self, project: str, upstream: str):
        self.project, self.upstream, self.wheel = project, upstream, None
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                path = self.path.split("?", 1)[0]
                if path.rstrip("/") == f"/simple/{index.project}":
                    data = index.wheel.read_bytes()
                    digest = hashlib.sha256(data).hexdigest()
                    link = f'<a href="/files/{html.escape(index.wheel.name)}#sha256={digest}">{index.wheel.name}</a>'
                    return self._send(200, f"<!DOCTYPE html><html><body>{link}</body></html>".encode(), "text/html")
                if path == f"/files/{index.wheel.name}":
                    return self._send(200, index.wheel.read_bytes(), "application/octet-stream")
                if path.startswith("/simple/"):
                    self.send_response(302)
                    self.send_header("Location", index.upstream + path[len("/simple"):])
                    self.end_headers()
                    return None
                return self._send(404, b"not here", "text/plain")

            def _send(self, code, body, kind):
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def pip_cache(tmp_path_factory) -> Path:
    return Path(os.environ.get("TFENV_TEST_PIP_CACHE") or tmp_path_factory.mktemp("pip-cache"))


def tfenv(*args, cwd, timeout=900):
    return subprocess.run([sys.executable, "-m", "builder.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=dict(os.environ, PYTHONPATH=str(ROOT)), stdin=subprocess.DEVNULL)


# --- the project build ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stand_in_env(docker_client, base_image):
    """A bullseye venv at /opt/venv tagged as tf29/debian11's alias under a test repository."""
    m = validate.load()
    repo = f"tfenv-test-hashes-{uuid.uuid4().hex[:8]}/tensorflow"
    ref = tags.image_refs(m.target("tf29", "debian11"), repo)[1]
    python = m.os["debian11"].packages
    dockerfile = (f"FROM {base_image}\nRUN apt-get update && apt-get install -y --no-install-recommends "
                  f"python3.9={python['python3.9']} python3.9-venv={python['python3.9-venv']} "
                  f"&& rm -rf /var/lib/apt/lists/* && python3.9 -m venv /opt/venv && useradd -u 1000 -m tf\n"
                  f"ENV PATH=/opt/venv/bin:/usr/sbin:/usr/bin:/sbin:/bin PIP_DISABLE_PIP_VERSION_CHECK=1\n")
    image, _ = docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=ref, rm=True, forcerm=True,
                                          labels={"io.tfenv.test": "hashes"})
    try:
        yield repo
    finally:
        from docker.errors import ImageNotFound

        for image_id in _descendants(docker_client, image.id) + [image.id]:  # the project builds' cache too
            with contextlib.suppress(ImageNotFound):  # gone with its child: untagged parents are pruned
                docker_client.images.remove(image_id, force=True)


def _descendants(client, root: str) -> list[str]:
    """Images built on `root` (their layer cache included), children before their parents."""
    children: dict[str, list[str]] = {}
    for img in client.images.list(all=True):
        children.setdefault(img.attrs.get("Parent") or "", []).append(img.id)
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out[::-1]


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / f"tfenv-it-hashes-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "requirements.txt").write_text(f"{PROJECT_PIN[0]}=={PROJECT_PIN[1]}\n", encoding="utf-8")
    init = tfenv("init", "tf29", "--os", "debian11", cwd=folder)
    assert init.returncode == 0, init.stderr
    return folder


def _leftovers(client, project_name: str) -> list:
    """Images (intermediate layers too) and containers of this project's build."""
    label = f"io.tfenv.project={project_name}"
    return client.images.list(all=True, filters={"label": label}) + client.containers.list(
        all=True, filters={"label": label})


def test_project_build_refuses_a_substituted_wheel_and_accepts_the_genuine_one(
        docker_client, stand_in_env, project, pip_cache, tmp_path):
    wheel = genuine_wheel(pip_cache / "wheels", *PROJECT_PIN)
    index = Index(PROJECT_PIN[0], _upstream_index())
    ca = ["--ca-cert", HOST_CA] if os.path.isfile(HOST_CA) else []
    name = tags.project_name(project.name)
    try:
        # tfenv.lock is resolved once against pip's own index (as a project commits it), then built from the
        # local index: what is tested is the build's install, not the resolution.
        locked = tfenv("lock", cwd=project)
        assert locked.returncode == 0, locked.stderr
        assert "--hash=sha256:" in (project / "tfenv.lock").read_text(encoding="utf-8")
        index.wheel = repack(wheel, tmp_path / "bad")
        refused = tfenv("build", "--repo", stand_in_env, "--plain", "--network", "host",
                        "--pip-index-url", index.url, *ca, cwd=project)
        assert refused.returncode == 2, refused.stdout[-3000:] + refused.stderr
        errors = [ln for ln in refused.stderr.splitlines() if ln.strip()]
        assert len(errors) == 1, refused.stderr
        assert f"{PROJECT_PIN[0]} {PROJECT_PIN[1]} from 127.0.0.1:" in errors[0], errors[0]
        assert "is not the file" in errors[0] and "PIP_INDEX_URL" in errors[0], errors[0]
        assert _leftovers(docker_client, name) == []

        index.wheel = wheel
        built = tfenv("build", "--repo", stand_in_env, "--plain", "--network", "host",
                      "--pip-index-url", index.url, *ca, cwd=project)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr
    finally:
        index.close()
        for img in docker_client.images.list(name=f"tfenv-project/{name}"):
            docker_client.images.remove(img.id, force=True)


# --- the tf29 WSL install.sh ----------------------------------------------------------------------------

SIMULATE_WSL2 = (
    "mkdir -p /sim/proc /sim/dev /sim/usr/lib/wsl/lib"
    " && echo 'Linux version 5.15.153.1-microsoft-standard-WSL2 (simulated by tfenv tests)' > /sim/proc/version"
    " && touch /sim/dev/dxg"
    " && echo 'placeholder, not a driver' > /sim/usr/lib/wsl/lib/libcuda.so.1"
)
VENV = "/root/.venvs/tfenv-tf29"


@pytest.fixture(scope="module")
def wsl_box(docker_client, base_image, pip_cache):
    volumes = {str(ROOT / "wsl" / "tf29"): {"bind": "/w", "mode": "ro"},
               str(pip_cache / "pip"): {"bind": "/root/.cache/pip", "mode": "rw"}}
    if os.path.isfile(HOST_CA):
        volumes[HOST_CA] = {"bind": CA_IN_BOX, "mode": "ro"}
    (pip_cache / "pip").mkdir(parents=True, exist_ok=True)
    name = f"tfenv-test-hashes-{uuid.uuid4().hex[:8]}"
    box = docker_client.containers.run(base_image, ["sleep", "infinity"], name=name, detach=True, volumes=volumes,
                                       labels={"io.tfenv.test": "hashes"}, init=True, network_mode="host")
    try:
        yield box
    finally:
        box.remove(force=True)


def test_wsl_install_refuses_a_substituted_wheel_and_accepts_the_genuine_one(wsl_box, pip_cache, tmp_path):
    wheel = genuine_wheel(pip_cache / "wheels", *WSL_PIN)
    index = Index(WSL_PIN[0], _upstream_index())
    env = {"TFENV_WSL_ROOT": "/sim", "PIP_INDEX_URL": index.url, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    if os.path.isfile(HOST_CA):
        env["PIP_CERT"] = CA_IN_BOX
    try:
        index.wheel = repack(wheel, tmp_path / "bad")
        code, (out, err) = wsl_box.exec_run(["bash", "-c", SIMULATE_WSL2 + " && bash /w/install.sh"],
                                            environment=env, demux=True)
        stderr = (err or b"").decode("utf-8", "replace")
        assert code == 2, (out or b"").decode()[-3000:] + stderr[-3000:]
        ours = [ln for ln in stderr.splitlines() if ln.startswith("tfenv-wsl: error:")]
        assert len(ours) == 1, stderr[-3000:]
        assert f"{WSL_PIN[0]} {WSL_PIN[1]} from 127.0.0.1:" in ours[0] and "is not the file" in ours[0], ours[0]
        gone, _ = wsl_box.exec_run(["test", "-e", VENV])
        assert gone != 0, "the venv the refused run created is still there"

        index.wheel = wheel
        code, (out, err) = wsl_box.exec_run(["bash", "-c", SIMULATE_WSL2 + " && bash /w/install.sh"],
                                            environment=env, demux=True)
        text = (out or b"").decode("utf-8", "replace") + (err or b"").decode("utf-8", "replace")
        assert code == 0, text[-4000:]
        assert "ok   TensorFlow 2.9.3" in text
    finally:
        index.close()
        shutil.rmtree(tmp_path / "bad", ignore_errors=True)
