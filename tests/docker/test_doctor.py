"""doctor's Docker check against the real daemon."""

from __future__ import annotations

from builder import doctor


def test_docker_check_against_the_real_daemon(docker_client):
    has_nvidia = "nvidia" in (docker_client.info().get("Runtimes") or {})
    check = doctor.check_docker(doctor.Host.current(), have_gpu=False)
    assert check.status == ("ok" if has_nvidia else "warn")
    if not has_nvidia:
        assert check.message.startswith("Docker ") and "has no NVIDIA runtime" in check.message
        assert "nvidia-ctk runtime configure --runtime=docker" in check.fix
