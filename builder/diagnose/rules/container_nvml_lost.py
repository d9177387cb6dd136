"""A running container loses its GPU: "Failed to initialize NVML: Unknown Error" after systemd or the kubelet
rewrote its device cgroup (the NVIDIA container toolkit's documented cgroup/daemon-reload problem).

NVML says Unknown Error when the driver is loaded but the process may not open /dev/nvidia* (a driver that is
missing or mismatched has messages of its own): on Linux that is a device cgroup, so the log need not show the
container. WSL and Windows have their own rules."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "container-nvml-lost"


def check(log, ctx):
    lost = [ev for ev in log.all("nvml_failed") if "unknown error" in (ev.groups[0] or "").lower()]
    if not lost or ctx.wsl or ctx.windows:
        return None
    evidence = lost[:1] + log.all("daemon_reload")[:1] + log.all("dev_eperm")[:1]
    cause = t("The container saw the GPU when it started; then its device cgroup was rewritten (a `systemctl "
              "daemon-reload` with Docker's systemd cgroup driver, or the kubelet's static CPU manager) and no "
              "longer lets it open /dev/nvidia*, so NVML fails with Unknown Error.")
    fix = t("restart the container (or pod) to get the GPU back; to stop it happening, create the /dev/char "
            "symlinks with `sudo nvidia-ctk system create-dev-char-symlinks --create-all` (NVIDIA's udev rule "
            "keeps them), or switch Docker to the cgroupfs driver (\"exec-opts\": [\"native.cgroupdriver=cgroupfs\"] "
            "in /etc/docker/daemon.json), or drop the kubelet's static cpu-manager-policy")
    return Finding(ID, t("The container lost access to the GPU while running"), lines(evidence), cause, fix, "",
                   rank=7, supersedes=("driver-dso-mismatch", "no-gpu-visible"))
