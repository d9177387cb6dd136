"""`tfenv test` on real images: the tf29 image passes, a broken one fails naming the soname, every
container is removed (on failure, on an interrupt inside the suite, and on a real SIGINT)."""

from __future__ import annotations

import io
import os
import secrets
import signal
import subprocess
import tarfile
import time
import xml.etree.ElementTree as ET

import pytest

from builder.docker import daemon
from builder.verify import runner
from tests.helpers import TFENV, as_from_a_terminal, matrix, tfenv

GPU_TITLES = ("nvidia-smi works in the container", "cudaGetDeviceCount through ctypes is at least 1",
              "tf.config.list_physical_devices('GPU') is not empty",
              "with a GPU, TF logs no `Could not load dynamic library` at all",
              "a matmul on /GPU:0 equals the CPU result")


def leftover(c, label_value: str):
    return c.containers.list(all=True, filters={"label": f"io.tfenv.test={label_value}"})


def test_tf29_debian11_passes_with_gpu_checks_skipped(tf29_image, docker_client, tmp_path):
    junit = tmp_path / "junit.xml"
    result = tfenv("test", "tf29", "--os", "debian11", "--repo", tf29_image.repo, "--junit-xml", str(junit))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert all(line[:4] in ("PASS", "SKIP") for line in lines[:-1]), result.stdout
    assert "PASS  libcusparse.so.11 loads by name through ctypes" in lines
    assert "PASS  importing TF and listing devices logs no `Could not load dynamic library` but for the driver" \
        in lines
    if not daemon.has_nvidia_runtime(docker_client):
        for title in GPU_TITLES:
            assert f"SKIP  {title}  -- no NVIDIA runtime in this Docker daemon (--gpus auto)" in lines
    assert lines[-1].startswith(f"tf29 on debian11 ({tf29_image.refs[1]}): ")
    suite = ET.parse(junit).getroot().iter("testsuite").__next__()
    assert int(suite.get("failures")) == 0 and int(suite.get("errors")) == 0
    assert int(suite.get("skipped")) >= len(GPU_TITLES)


def _broken_image(c, base: str, ref: str) -> None:
    """FROM base with libcusparse.so.11 removed; the base's labels are inherited (it still claims tf29)."""
    dockerfile = (f"FROM {base}\nUSER 0\nRUN rm -f /usr/lib/x86_64-linux-gnu/libcusparse.so.11*\nUSER 1000\n").encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("Dockerfile")
        info.size = len(dockerfile)
        tar.addfile(info, io.BytesIO(dockerfile))
    buf.seek(0)
    c.images.build(fileobj=buf, custom_context=True, tag=ref, rm=True, forcerm=True, pull=False,
                   labels={"io.tfenv.test": "verify-broken"})


def test_broken_image_fails_naming_the_missing_soname(tf29_image, docker_client):
    ref = f"tfenv-ci/broken:cusparse-{secrets.token_hex(4)}"
    _broken_image(docker_client, tf29_image.refs[1], ref)
    try:
        result = tfenv("test", "--image", ref, "--gpus", "none")
    finally:
        docker_client.images.remove(ref, force=True)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    i = lines.index("FAIL  libcusparse.so.11 loads by name through ctypes")
    assert lines[i + 1] == ("      found: dlopen('libcusparse.so.11'): libcusparse.so.11: cannot open shared object "
                            "file: No such file or directory")
    assert lines[i + 2].startswith("      fix:   install the CUDA library that provides libcusparse.so.11")
    assert "PASS  libcusolver.so.11 loads by name through ctypes" in lines
    assert [line for line in lines if line.startswith("FAIL")] == [lines[i]]
    checks = [line for line in lines if line[:4] in ("PASS", "FAIL", "SKIP")]
    assert result.stderr.strip() == f"tfenv: error: 1 of {len(checks)} checks failed on {ref}"


def test_image_claiming_another_env_fails(tf29_image):
    result = tfenv("test", "tf28", "--os", "debian11", "--image", tf29_image.refs[1], "--gpus", "none")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "FAIL  the image's labels match the matrix" in out
    assert "io.tfenv.env: image says 'tf29', matrix says 'tf28'" in out
    assert "tf.__version__ is 2.9.3, the matrix says 2.8.4" in out


def test_container_removed_when_the_suite_is_interrupted_midway(tf29_image, docker_client, monkeypatch):
    """Ctrl-C during the 3rd `docker exec`: pytest stops, the container still goes."""
    from testinfra.backend import docker as docker_backend

    token = secrets.token_hex(4)
    calls, seen = [], []
    real_run = docker_backend.DockerBackend.run

    def interrupting_run(self, command, *args, **kwargs):
        calls.append(command)
        if len(calls) == 3:
            seen.extend(leftover(docker_client, token))  # the container is up while the suite runs
            raise KeyboardInterrupt
        return real_run(self, command, *args, **kwargs)

    monkeypatch.setattr(docker_backend.DockerBackend, "run", interrupting_run)
    m = matrix()
    img = docker_client.images.get(tf29_image.refs[1])
    with pytest.raises(KeyboardInterrupt):
        runner.run(m, tf29_image.target, tf29_image.refs[1], img.labels, (False, "test"), "hint",
                   client=docker_client, extra_labels={"io.tfenv.test": token})
    assert len(seen) == 1 and len(calls) == 3
    assert leftover(docker_client, token) == []


def test_container_removed_when_starting_the_suite_fails(tf29_image, docker_client, monkeypatch):
    token = secrets.token_hex(4)

    def broken_suites(*args, **kwargs):
        assert len(leftover(docker_client, token)) == 1
        raise RuntimeError("suite crashed")

    monkeypatch.setattr(runner, "run_suites", broken_suites)
    img = docker_client.images.get(tf29_image.refs[1])
    with pytest.raises(RuntimeError, match="suite crashed"):
        runner.run(matrix(), tf29_image.target, tf29_image.refs[1], img.labels, (False, "test"), "hint",
                   client=docker_client, extra_labels={"io.tfenv.test": token})
    assert leftover(docker_client, token) == []


def _running(container, text: str) -> bool:
    from docker.errors import APIError

    try:
        return any(text in " ".join(p) for p in container.top().get("Processes") or [])
    except APIError:  # the container went away
        return False


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX signals")
def test_sigint_removes_the_container(tf29_image, docker_client):
    """A real Ctrl-C (SIGINT to `tfenv test`) while the checks run: exit 130 and no container left."""
    token = secrets.token_hex(4)
    ref = f"tfenv-ci/verify-sigint:{token}"  # a tag of our own, to find this run's container
    docker_client.images.get(tf29_image.refs[1]).tag("tfenv-ci/verify-sigint", token)
    proc = subprocess.Popen(TFENV + ["test", "--image", ref, "--gpus", "none"], preexec_fn=as_from_a_terminal,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        mine = []
        deadline = time.time() + 120
        while not mine and time.time() < deadline and proc.poll() is None:
            mine = [c for c in docker_client.containers.list(filters={"label": "io.tfenv.managed=test"})
                    if c.attrs["Config"]["Image"] == ref]
            time.sleep(0.5)
        assert mine, "tfenv test never started its container"
        # Signal while a check is under way: when the TF probe (seconds of `import tensorflow`) runs.
        while time.time() < deadline and proc.poll() is None and not _running(mine[0], "import tensorflow"):
            time.sleep(0.1)
        assert proc.poll() is None, "tfenv test ended before the TF probe was seen"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        assert "tfenv: interrupted" in err and "Traceback" not in err
        assert docker_client.containers.list(all=True, filters={"id": mine[0].id}) == []
    finally:
        if proc.poll() is None:
            proc.kill()
        docker_client.images.remove(ref)


def test_gpu_checks_fail_with_evidence_when_the_gpu_is_absent(tf29_image, docker_client, tmp_path):
    """The GPU checks run for real (a GPU claimed in the expectations, none in the container): each must fail
    and say why, so that on a GPU host a pass means something."""
    m = matrix()
    img = docker_client.images.get(tf29_image.refs[1])
    expect = runner.expectations(m, tf29_image.target, tf29_image.refs[1], img.labels, (True, "claimed"), "hint")
    expect_file = tmp_path / "expect.json"
    expect_file.write_text(__import__("json").dumps(expect), encoding="utf-8")
    token = secrets.token_hex(4)
    with runner.container(docker_client, tf29_image.refs[1], tf29_image.target, False, {"io.tfenv.test": token}) as c:
        results = {r.title: r for r in runner.run_suites(c.id, expect_file)}
    assert leftover(docker_client, token) == []
    for title in GPU_TITLES:
        assert results[title].outcome == "failed", title
    assert "cudaGetDeviceCount returned error 35" in results[GPU_TITLES[1]].evidence
    assert results[GPU_TITLES[2]].evidence == "TensorFlow lists no GPU; cuInit: UNKNOWN ERROR (303)"
    assert "LD_LIBRARY_PATH=/usr/lib/wsl/lib" in results[GPU_TITLES[2]].fix
    assert "Could not load dynamic library 'libcuda.so.1'" in results[GPU_TITLES[3]].evidence
    assert results[GPU_TITLES[4]].evidence == "TensorFlow lists no GPU, so nothing ran on /GPU:0"
    assert results["a small op runs on the CPU"].outcome == "passed"
