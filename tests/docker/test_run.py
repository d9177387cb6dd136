"""tfenv run's container handling against the real Docker daemon, with the small debootstrap base image.

These prove streaming, exit codes, uid mapping, Ctrl-C and ps/stop without needing a TensorFlow image;
tests/slow/test_run.py does the same end to end with tf29.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from builder.docker import daemon, run
from tests.conftest import BASE_IMAGE
from tests.helpers import ROOT, as_from_a_terminal, tfenv

BASE = BASE_IMAGE


@pytest.fixture
def client(docker_client, base_image):
    return docker_client


@pytest.fixture
def name(client, request):
    """A unique container name, and a check that nothing by that name is left afterwards."""
    n = f"tfenv-test-run-{os.getpid()}-{request.node.name[:30].strip('_[]')}".replace("[", "-").replace("]", "")
    yield n
    left = client.containers.list(all=True, filters={"name": n})
    for c in left:
        c.remove(force=True)
    assert not left, f"container {n} was left behind"


def spec(tmp_path, name, command, **kw):
    return run.make_spec(BASE, command, env_name="test", workdir="/workspace", cwd=str(tmp_path), volumes=[],
                         environment=[], gpu=False, name=name, **kw)


class Sink:
    def __init__(self):
        self.data = b""

    def write(self, b):
        self.data += b

    def flush(self):
        pass


def test_exit_code_streams_and_mount(client, name, tmp_path):
    s = spec(tmp_path, name, ["sh", "-c", "echo out; echo err >&2; echo hi > /workspace/f.txt; exit 3"])
    out, err = Sink(), Sink()
    assert run.run_streaming(client, s, out, err) == 3
    assert out.data == b"out\n" and err.data == b"err\n"
    assert (tmp_path / "f.txt").read_text() == "hi\n"


def test_files_belong_to_the_mapped_user(client, name, tmp_path):
    s = spec(tmp_path, name, ["sh", "-c", "touch /workspace/owned && echo $HOME"])
    s.user = "4321:4322"  # a uid that is neither the image's nor this test's, to prove the mapping is applied
    tmp_path.chmod(0o777)  # that uid does not own the mounted dir, unlike the host user tfenv maps
    out = Sink()
    assert run.run_streaming(client, s, out, Sink()) == 0
    st = (tmp_path / "owned").stat()
    assert (st.st_uid, st.st_gid) == (4321, 4322)
    assert out.data == b"/tmp\n"


def test_missing_executable_is_127_and_leaves_nothing(client, name, tmp_path):
    err = Sink()
    assert run.run_streaming(client, spec(tmp_path, name, ["no-such-program-tfenv"]), Sink(), err) == 127
    assert b"no-such-program-tfenv" in err.data  # tini (--init) says what failed, as `docker run` would


def test_ctrl_c_stops_and_removes(client, name, tmp_path):
    if not hasattr(signal, "SIGINT") or sys.platform == "win32":
        pytest.skip("POSIX signals")
    code = textwrap.dedent(f"""
        import sys
        from builder.docker import daemon, run
        s = run.make_spec({BASE!r}, ["sh", "-c", "echo started; sleep 300"], env_name="test", workdir="/workspace",
                          cwd=None, volumes=[], environment=[], gpu=False, name={name!r})
        sys.exit(run.run_streaming(daemon.client(), s))
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, preexec_fn=as_from_a_terminal,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert proc.stdout.readline() == b"started\n"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 130
    finally:
        proc.kill()
    assert not client.containers.list(all=True, filters={"name": name})


def test_ps_and_stop_manage_only_tfenv_containers(client, name, tmp_path):
    s = spec(tmp_path, name, ["sleep", "300"])
    kw, _ = run.docker_options(s)
    client.containers.run(detach=True, **kw)
    assert name in [c.name for c in run.list_managed(client)]
    with pytest.raises(run.NotManaged, match="no tfenv container named tfenv-test-nope"):
        run.stop_managed(client, ["tfenv-test-nope", name])
    assert name in [c.name for c in run.list_managed(client)]  # nothing touched on a bad name
    t0 = time.monotonic()
    assert run.stop_managed(client, [name]) == [name]
    assert time.monotonic() - t0 < 8  # --init forwards SIGTERM: no 10 s kill timeout
    assert not client.containers.list(all=True, filters={"name": name})


def test_missing_image_says_how_to_build(client):
    res = tfenv("run", "tf29", "--os", "debian11", "--repo", "tfenv-test/none", "--", "true")
    assert res.returncode == 2
    assert res.stderr.strip() == ("tfenv: error: image tfenv-test/none:tf29-debian11 not found locally: "
                                  "build it with `tfenv build tf29 --os debian11 --repo tfenv-test/none`")
    res = tfenv("run", "tf29", "--os", "debian11", "--repo", "tfenv-test/none", "--jupyter")
    assert "build it with `tfenv build tf29 --os debian11 --jupyter --repo tfenv-test/none`" in res.stderr


def test_gpus_all_without_nvidia_runtime_names_the_fix(client):
    if daemon.has_nvidia_runtime(client):
        pytest.skip("this daemon has the NVIDIA runtime")
    res = tfenv("run", "tf29", "--gpus", "all", "--", "true")
    assert res.returncode == 2
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("tfenv: error: --gpus all, but this Docker daemon has no NVIDIA runtime: ")
    assert "nvidia-container-toolkit" in line and "WSL 2" in line
