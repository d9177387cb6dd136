"""`tfenv run` end to end with the real tf29 debian11 images: a command, and Jupyter through its own API.

Every container gets a unique --name and is removed here, also on failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
import uuid

import pytest

from builder.docker import daemon
from tests.helpers import ROOT, TFENV, as_from_a_terminal, tfenv

URL = re.compile(r"^http://127\.0\.0\.1:(\d+)/lab\?token=([\w-]+)$")


@pytest.fixture
def client(docker_client):
    return docker_client


@pytest.fixture
def name(client):
    """A unique container name; afterwards nothing by that name may be left (removed here if it is)."""
    n = f"tfenv-test-run-{uuid.uuid4().hex[:8]}"
    yield n
    left = client.containers.list(all=True, filters={"name": n})
    for c in left:
        c.remove(force=True)
    assert not left, f"tfenv left container {n} behind"


def base_args(image, name):
    return ["run", "tf29", "--os", "debian11", "--repo", image.repo, "--name", name]


# --- a command -------------------------------------------------------------------------------------


def test_command_writes_owned_file_and_passes_exit_code(tf29_image, name, tmp_path):
    code = "import os, tensorflow as tf; open('out.txt', 'w').write(tf.__version__); print('uid', os.getuid())"
    res = tfenv(*base_args(tf29_image, name), "-e", "TFENV_T=1", "--", "python", "-c", code, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "out.txt"
    assert out.read_text() == tf29_image.target.env.tensorflow
    if hasattr(os, "getuid"):
        # The image's user is uid 1000; the file belongs to whoever ran tfenv instead.
        assert (out.stat().st_uid, out.stat().st_gid) == (os.getuid(), os.getgid())
        assert f"uid {os.getuid()}" in res.stdout

    res = tfenv(*base_args(tf29_image, name), "--", "python", "-c", "import sys; print('bye'); sys.exit(7)",
                cwd=tmp_path)
    assert (res.returncode, res.stdout) == (7, "bye\n")
    if not daemon.has_nvidia_runtime(daemon.client()):
        assert res.stderr.count("running without a GPU") == 1  # said once, not per stream or per retry


@pytest.mark.skipif(shutil.which("script") is None or sys.platform == "win32", reason="needs util-linux script")
def test_terminal_gets_an_interactive_shell(tf29_image, name, tmp_path):
    # script(1) gives tfenv a real terminal, so it hands over to `docker run -it` with the same options.
    cmd = " ".join(shlex.quote(a) for a in [*TFENV, *base_args(tf29_image, name)])
    res = subprocess.run(["script", "-qec", cmd, "/dev/null"], input="echo shell:$PWD:$HOME; exit 4\n",
                         capture_output=True, text=True, timeout=120, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert res.returncode == 4, res.stdout
    assert "shell:/workspace:/tmp" in res.stdout


def test_read_only_volume_and_env(tf29_image, name, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "in.txt").write_text("hello")
    code = ("import os; print(open('/data/in.txt').read(), os.environ['GREETING']); "
            "open('/data/x', 'w')")
    res = tfenv(*base_args(tf29_image, name), "-v", f"{data}:/data:ro", "-e", "GREETING=hi=there", "--",
                "python", "-c", code, cwd=tmp_path)
    assert res.returncode == 1
    assert res.stdout == "hello hi=there\n"
    assert "Read-only file system" in res.stderr


# --- Jupyter -------------------------------------------------------------------------------------


def get(url):
    """(status, Location) without following redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(url, timeout=30) as resp:
            return resp.status, resp.headers.get("Location")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Location")


def own_non_loopback_ipv4():
    """This machine's own non-loopback IPv4 addresses (a UDP connect sends nothing; it picks the route)."""
    found = set()
    with contextlib.suppress(OSError):
        found.update(socket.gethostbyname_ex(socket.gethostname())[2])
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s, contextlib.suppress(OSError):
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent; connect only picks the source address
        found.add(s.getsockname()[0])
    return sorted(a for a in found if not a.startswith("127."))


def run_cell(port, token, code):
    """Start a kernel through the REST API, run `code` over its websocket channel, return stdout text."""
    websocket = pytest.importorskip("websocket")  # websocket-client, a dev dependency
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/kernels?token={token}", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        kernel = json.load(resp)["id"]
    ws = websocket.create_connection(f"ws://127.0.0.1:{port}/api/kernels/{kernel}/channels?token={token}",
                                     timeout=180)
    try:
        msg_id = uuid.uuid4().hex
        ws.send(json.dumps({
            "header": {"msg_id": msg_id, "username": "tfenv", "session": uuid.uuid4().hex,
                       "msg_type": "execute_request", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True},
        }))
        out = []
        while True:
            msg = json.loads(ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "stream" and msg["content"]["name"] == "stdout":
                out.append(msg["content"]["text"])
            elif kind == "error":
                pytest.fail("cell failed: " + "\n".join(msg["content"]["traceback"]))
            elif kind == "execute_reply":
                assert msg["content"]["status"] == "ok"
            elif kind == "status" and msg["content"]["execution_state"] == "idle":
                return "".join(out)
    finally:
        ws.close()


def test_jupyter_detached_end_to_end(tf29_image, client, name, tmp_path):
    res = tfenv(*base_args(tf29_image, name), "--jupyter", "--detach", cwd=tmp_path)
    try:
        assert res.returncode == 0, res.stderr
        url = res.stdout.strip().splitlines()[-1]
        match = URL.match(url)
        assert match, res.stdout
        port, token = int(match.group(1)), match.group(2)
        assert len(token) >= 32

        assert get(url)[0] == 200
        status, location = get(f"http://127.0.0.1:{port}/lab")
        assert status == 403 or (status in (302, 303) and "/login" in location), (status, location)
        assert get(f"http://127.0.0.1:{port}/api/status")[0] == 403

        container = client.containers.get(name)
        bindings = container.attrs["NetworkSettings"]["Ports"]["8888/tcp"]
        assert {b["HostIp"] for b in bindings} == {"127.0.0.1"}
        assert {int(b["HostPort"]) for b in bindings} == {port}
        for addr in own_non_loopback_ipv4():
            with socket.socket() as s, pytest.raises(OSError):  # refused: nothing listens there
                s.settimeout(5)
                s.connect((addr, port))

        ps = tfenv("ps", cwd=tmp_path)
        assert any(line.split()[0] == name and line.endswith(url) for line in ps.stdout.splitlines()), ps.stdout

        out = run_cell(port, token, "import tensorflow as tf; print(tf.__version__)")
        assert out.strip() == tf29_image.target.env.tensorflow
    finally:
        stop = tfenv("stop", name, cwd=tmp_path)
    assert stop.returncode == 0 and stop.stdout.strip() == f"stopped {name}", stop.stderr
    assert not client.containers.list(all=True, filters={"name": name})
    assert name not in tfenv("ps", cwd=tmp_path).stdout


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_jupyter_foreground_ctrl_c_removes_the_container(tf29_image, client, name, tmp_path):
    proc = subprocess.Popen([*TFENV, *base_args(tf29_image, name), "--jupyter"], cwd=tmp_path,
                            preexec_fn=as_from_a_terminal, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            stdin=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        line = proc.stdout.readline()
        assert line.startswith("Jupyter is ready: http://127.0.0.1:"), line
        assert client.containers.get(name).status == "running"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        proc.wait()
    assert not client.containers.list(all=True, filters={"name": name})


def test_jupyter_busy_port_is_one_clear_line(tf29_image, client, name, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = tfenv(*base_args(tf29_image, name), "--jupyter", "--detach", "--port", str(port), cwd=tmp_path)
    assert res.returncode == 2
    assert res.stderr.strip().splitlines()[-1] == (
        f"tfenv: error: port {port} on 127.0.0.1 is already in use: pass another --port, or leave --port out "
        "to take the first free one from 8888 (`tfenv ps` lists tfenv's own servers)")
