"""SIGTERM (a cancelled CI job) and SIGHUP (a dropped SSH session) end `tfenv run` and `tfenv test` like
Ctrl-C: the container and the temporary folder go, and the exit status says which signal (143, 129).
Ctrl-C before a detached Jupyter answers exits 130 and removes its container. Real daemon, real tf29 image."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import time
import uuid

import pytest

from tests.helpers import ROOT, TFENV, as_from_a_terminal

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
SIGNALS = [pytest.param(signal.SIGTERM, 143, id="SIGTERM"), pytest.param(signal.SIGHUP, 129, id="SIGHUP")]


def start(args, tmp_path):
    """tfenv in its own process, its temporary folders in a private TMPDIR so leftovers can be counted."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir))
    return subprocess.Popen([*TFENV, *args], cwd=tmp_path, env=env, preexec_fn=as_from_a_terminal,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), tmpdir


def wait_for(predicate, proc, what, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        found = predicate()
        if found:
            return found
        time.sleep(0.3)
    err = proc.stderr.read() if proc.poll() is not None else ""
    raise AssertionError(f"{what} never happened (tfenv exited {proc.poll()}): {err}")


def containers(client, image: str | None = None, **filters) -> list[str]:
    """Ids of the containers matching, running or not. The low-level call: containers.list() inspects each
    one, which fails when another test removes one of its own meanwhile. `image`: started from exactly this
    reference (Docker's ancestor filter matches every tag of the same image, other people's included)."""
    found = client.api.containers(all=True, filters=filters)
    return [c["Id"] for c in found if image is None or c["Image"] == image]


def gone(client, **filters) -> list[str]:
    """What is still there after tfenv exited, allowing the daemon a few seconds to finish a removal."""
    deadline = time.time() + 10
    left = containers(client, **filters)
    while left and time.time() < deadline:
        time.sleep(0.5)
        left = containers(client, **filters)
    return left


def remove(client, ids) -> None:
    from docker.errors import NotFound

    for cid in ids:
        with contextlib.suppress(NotFound):
            client.api.remove_container(cid, force=True)


def finish(proc, timeout=120):
    try:
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return err


@pytest.mark.parametrize(("signum", "code"), SIGNALS)
def test_signal_during_run_removes_the_container(tf29_image, docker_client, tmp_path, signum, code):
    name = f"tfenv-test-signal-{uuid.uuid4().hex[:8]}"
    proc, _ = start(["run", "tf29", "--os", "debian11", "--repo", tf29_image.repo, "--name", name, "--gpus", "none",
                     "--", "sleep", "100"], tmp_path)
    try:
        wait_for(lambda: docker_client.api.containers(filters={"name": name, "status": "running"}), proc,
                 "the container running")
        proc.send_signal(signum)
        err = finish(proc)
    finally:
        left = gone(docker_client, name=name)
        remove(docker_client, left)
    assert proc.returncode == code, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "tfenv: interrupted"
    assert not left, f"{name} was left behind"


@pytest.mark.parametrize(("signum", "code"), SIGNALS)
def test_signal_during_test_removes_the_container_and_temp_folder(tf29_image, docker_client, tmp_path, signum, code):
    token = secrets.token_hex(4)
    ref = f"tfenv-ci/signal:{token}"  # a tag of our own, to find this run's container
    docker_client.images.get(tf29_image.refs[1]).tag("tfenv-ci/signal", token)
    proc, tmpdir = start(["test", "--image", ref, "--gpus", "none"], tmp_path)
    mine = []
    try:
        mine = wait_for(lambda: containers(docker_client, image=ref, label="io.tfenv.managed=test"), proc,
                        "the test container")
        seen = [p.name for p in tmpdir.iterdir() if p.name.startswith("tfenv-test-")]
        assert seen, f"no temporary folder seen in {tmpdir}: {list(tmpdir.iterdir())}"
        proc.send_signal(signum)
        err = finish(proc)
    finally:
        try:
            left = gone(docker_client, image=ref, label="io.tfenv.managed=test")
            remove(docker_client, left)
        finally:
            docker_client.images.remove(ref)  # only the tag: the image is the shared tf29 one
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert not left and mine, "the test container was left behind"
    assert list(tmpdir.iterdir()) == [], "a temporary folder was left behind"


def test_ctrl_c_before_a_detached_jupyter_answers_exits_130(tf29_image, docker_client, tmp_path):
    name = f"tfenv-test-signal-{uuid.uuid4().hex[:8]}"
    proc, _ = start(["run", "tf29", "--os", "debian11", "--repo", tf29_image.repo, "--name", name, "--gpus", "none",
                     "--jupyter", "--detach"], tmp_path)
    try:
        wait_for(lambda: containers(docker_client, name=name), proc, "the Jupyter container")
        proc.send_signal(signal.SIGINT)  # Jupyter takes seconds to answer: this is before it does
        err = finish(proc)
    finally:
        left = gone(docker_client, name=name)
        remove(docker_client, left)
    assert proc.returncode == 130, err
    assert "http://" not in (proc.stdout.read() if proc.stdout and not proc.stdout.closed else "")
    assert not left, f"{name} was left behind"


@pytest.mark.parametrize(("signum", "code"), SIGNALS)
def test_signal_during_an_interactive_shell_removes_the_container(tf29_image, docker_client, tmp_path, signum, code):
    """`tfenv run tf29` on a terminal hands it to `docker run -it`; a signal to tfenv alone must not leave the
    container running behind the killed docker CLI."""
    import pty
    import shutil

    if shutil.which("docker") is None:
        pytest.skip("the interactive shell needs the docker CLI")
    name = f"tfenv-test-signal-{uuid.uuid4().hex[:8]}"
    leader, follower = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([*TFENV, "run", "tf29", "--os", "debian11", "--repo",
                             tf29_image.repo, "--name", name, "--gpus", "none"], cwd=tmp_path, env=env,
                            stdin=follower, stdout=follower, stderr=follower, preexec_fn=as_from_a_terminal)
    os.close(follower)
    try:
        wait_for(lambda: docker_client.api.containers(filters={"name": name, "status": "running"}), proc,
                 "the shell's container running")
        proc.send_signal(signum)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
        left = gone(docker_client, name=name)
        remove(docker_client, left)
    assert proc.returncode == code
    assert not left, f"{name} was left behind"


def test_sigterm_to_a_ready_foreground_jupyter_exits_143_and_removes_it(tf29_image, docker_client, tmp_path):
    name = f"tfenv-test-signal-{uuid.uuid4().hex[:8]}"
    proc, _ = start(["run", "tf29", "--os", "debian11", "--repo", tf29_image.repo, "--name", name, "--gpus", "none",
                     "--jupyter"], tmp_path)
    try:
        line = proc.stdout.readline()
        assert line.startswith("Jupyter is ready: http://127.0.0.1:"), line
        proc.send_signal(signal.SIGTERM)
        err = finish(proc)
    finally:
        left = gone(docker_client, name=name)
        remove(docker_client, left)
    assert proc.returncode == 143, err
    assert not left, f"{name} was left behind"
