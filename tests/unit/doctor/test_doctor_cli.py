"""tfenv doctor as users run it: the CLI on this machine, the standalone file, and Docker checks."""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from builder import doctor
from tests.helpers import tfenv


def test_doctor_here_reports_this_machine_truthfully():
    result = tfenv("doctor", "--env", "tf29", "--json")
    data = json.loads(result.stdout)
    checks = {c["id"]: c for c in data["checks"]}
    assert result.returncode == (1 if not data["ok"] else 0)
    if result.returncode:
        assert result.stderr.strip().endswith("doctor check(s) failed; the fixes are above")
    has_smi = shutil.which("nvidia-smi") is not None
    assert (checks["gpu"]["status"] == "ok") == has_smi
    assert data["host"]["platform"] == ("windows" if os.name == "nt" else "linux")
    assert data["host"]["container"] == os.path.exists("/.dockerenv")
    supported = (3, 7) <= sys.version_info[:2] <= (3, 10)
    assert checks["python"]["status"] == ("ok" if supported else "warn")


def test_text_report_and_exit_codes():
    result = tfenv("doctor", "--env", "tf29")
    assert result.stdout.startswith("tfenv doctor: tf29 (TensorFlow 2.9.3, CUDA 11.2.2, cuDNN 8.1)\n")
    failed = [ln for ln in result.stdout.splitlines() if ln.startswith("  FAIL ")]
    assert result.returncode == (1 if failed else 0)
    assert "Traceback" not in result.stderr


def test_unknown_env_is_one_line_exit_2():
    result = tfenv("doctor", "--env", "tf-29")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "tfenv: error: unknown environment 'tf-29'; did you mean 'tf29'? "
        "(known: tf22, tf22-cuda101, tf23, tf24, tf25, tf26, tf27, tf28, tf29, tf210)"]
    assert "doctor" in tfenv("--help").stdout


@pytest.fixture
def standalone(tmp_path):
    path = tmp_path / "doctor.py"
    result = tfenv("doctor", "--write-standalone", str(path))
    assert result.returncode == 0, result.stderr
    return path


PYTHONS = ("3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13")


def _python(version):
    """~/.pyenv's interpreter of that version; absent: skip here, fail in CI (the CI machine has them all)."""
    found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))
    if not found:
        if os.environ.get("CI") == "true":
            pytest.fail(f"Python {version} is not under ~/.pyenv/versions")
        pytest.skip(f"Python {version} is not under ~/.pyenv/versions")
    return found[-1]


@pytest.mark.parametrize("version", PYTHONS)
def test_standalone_runs_with_the_standard_library_only(standalone, tmp_path, version):
    python = _python(version)
    # -S -I: no site-packages, no PYTHONPATH: click, yaml, docker and rich cannot be imported
    result = subprocess.run([python, "-S", "-I", str(standalone), "--env", "tf22", "--json"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    data = json.loads(result.stdout)
    assert data["env"] == "tf22" and data["ok"] is (result.returncode == 0)
    assert any(c["id"] == "libraries" for c in data["checks"])
    assert data["host"]["python"].startswith(version + ".")


@pytest.mark.parametrize("version", PYTHONS)
def test_standalone_explains_a_log(standalone, tmp_path, version):
    """What a Windows user with nothing but Python does: paste the log into a file (PowerShell 5.1 writes
    UTF-16), run the doctor with --explain."""
    python = _python(version)
    log = tmp_path / "log.txt"
    log.write_bytes(b"\xff\xfe" + ("W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
                                    "dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\r\n"
                                    ).encode("utf-16-le"))
    result = subprocess.run([python, "-S", "-I", str(standalone), "--explain", str(log), "--json"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    top = data["findings"][0]
    assert top["id"] == "missing-cuda-runtime" and "v10.1\\bin" in top["fix"] and "LD_LIBRARY_PATH" not in top["fix"]
    assert data["context"]["envs"][0] == "tf23"  # the facts inside the file name the environment
    text = subprocess.run([python, "-S", "-I", str(standalone), "--explain", str(tmp_path)],
                          capture_output=True, text=True)
    assert text.returncode == 2 and "is a directory" in text.stderr and "Traceback" not in text.stderr


def test_standalone_is_one_file_with_the_packages_and_facts(standalone):
    import zipfile

    with zipfile.ZipFile(standalone) as z:
        names = z.namelist()
        facts = json.loads(z.read("builder/doctor/doctor-facts.json"))
    assert "__main__.py" in names and "builder/diagnose/rules/wsl1.py" in names
    assert not any(n.endswith((".pyc", ".j2", ".yaml")) for n in names)
    assert "tf22" in facts["envs"] and "tf210" in facts["envs"] and facts["envs"]["tf29"]["pins"]["numpy"] == "1.24.1"


def test_standalone_bad_input_and_missing_facts(standalone, tmp_path):
    bad = subprocess.run([sys.executable, "-S", str(standalone), "--env", "tf99"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("doctor: error: unknown environment 'tf99'")
    from builder.doctor import standalone as bundle

    bare = tmp_path / "bare" / "doctor.py"
    bare.parent.mkdir()
    bare.write_bytes(bundle.build(facts=None))  # the same file without the facts inside
    no_facts = subprocess.run([sys.executable, "-S", str(bare), "--env", "tf29"], capture_output=True, text=True)
    assert no_facts.returncode == 2 and "no matrix facts" in no_facts.stderr
    assert tfenv("doctor", "--write-facts", str(bare.parent / "doctor-facts.json")).returncode == 0
    beside = subprocess.run([sys.executable, "-S", str(bare), "--env", "tf29", "--json"],
                            capture_output=True, text=True)
    assert json.loads(beside.stdout)["env"] == "tf29"


# --- Docker -------------------------------------------------------------------------------------


class _FakeDaemon(BaseHTTPRequestHandler):
    """A FAKE Docker daemon answering /info, as one with the NVIDIA runtime configured would."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = json.dumps({"ServerVersion": "24.0.7", "OperatingSystem": "Ubuntu 22.04.3 LTS",
                           "Runtimes": {"runc": {"path": "runc"}, "nvidia": {"path": "nvidia-container-runtime"}}})
        self.send_response(200 if self.path == "/info" else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


class _UnixServer(HTTPServer):
    address_family = socket.AF_UNIX

    def server_bind(self):
        self.socket.bind(self.server_address)

    def get_request(self):
        conn, _ = self.socket.accept()
        return conn, ("local", 0)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_docker_check_with_nvidia_runtime_and_unreachable_daemon(tmp_path):
    sock = str(tmp_path / "d.sock")
    server = _UnixServer(sock, _FakeDaemon)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host = doctor.Host(root=str(tmp_path), environ={"DOCKER_HOST": f"unix://{sock}", "PATH": ""})
        check = doctor.check_docker(host, have_gpu=True)
        assert check.status == "ok"
        assert check.message == "Docker 24.0.7 with the nvidia runtime: tfenv run --gpus can work"
    finally:
        server.shutdown()
        server.server_close()
    gone = doctor.check_docker(doctor.Host(root=str(tmp_path), environ={"DOCKER_HOST": f"unix://{sock}x"}), True)
    assert gone.status == "warn" and gone.message.startswith("Docker daemon not reachable")
