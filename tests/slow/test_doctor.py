"""The standalone doctor inside the tf29 image, where TF and the CUDA libraries really are."""

from __future__ import annotations

import json
import uuid

from tests.helpers import tfenv


def test_standalone_doctor_inside_the_tf29_image(docker_client, tf29_image, tmp_path):
    standalone = tmp_path / "doctor.py"
    made = tfenv("doctor", "--write-standalone", str(standalone))
    assert made.returncode == 0, made.stderr
    container = docker_client.containers.create(
        tf29_image.refs[1], ["python", "/tmp/doctor.py", "--env", "tf29", "--json", "--import"],
        volumes={str(standalone): {"bind": "/tmp/doctor.py", "mode": "ro"}},
        labels={"io.tfenv.test": f"doctor-{uuid.uuid4().hex[:8]}"},
    )
    try:
        container.start()
        code = container.wait(timeout=600)["StatusCode"]
        out = container.logs(stdout=True, stderr=False).decode()
    finally:
        container.remove(force=True)
    data = json.loads(out)
    checks = {c["id"]: c for c in data["checks"]}
    assert data["host"]["container"] is True
    assert checks["python"]["status"] == "ok" and checks["tensorflow"]["message"].endswith("2.9.3 installed")
    # every CUDA library is in the image; only the driver (mounted by --gpus, absent here) is missing
    assert [c["id"] for c in data["checks"] if c["id"].startswith("lib:")] == ["lib:driver"]
    assert checks["gpu"]["status"] == "fail" and "--gpus all" in checks["gpu"]["fix"]
    missing = [c["message"] for c in data["checks"] if c["id"] == "import:lib"]
    assert missing == ["TensorFlow could not load libcuda.so.1: libcuda.so.1: cannot open shared object file: "
                       "No such file or directory"]
    assert checks["import"]["message"].startswith("TensorFlow 2.9.3 sees no GPU")
    assert code == 1
