"""Jetson (L4T): the NVIDIA runtime mounts CUDA and cuDNN from the host into the container, by CSV lists; an
image for another L4T release, or a broken CSV mount, leaves the container without them."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "jetson-container"


def check(log, ctx):
    jetson = log.all("jetson")[:2]
    trouble = [ev for kind in ("so_missing", "load_fail", "file_too_short", "nvc_error", "cuinit", "gpu_none",
                               "nvml_failed", "hook_not_legacy")
               for ev in log.all(kind)[:1]]
    if not jetson or not trouble:
        return None
    cause = t("On Jetson the container gets CUDA, cuDNN and TensorRT from the host (JetPack), mounted by the NVIDIA "
              "runtime from the CSV lists in /etc/nvidia-container-runtime/host-files-for-container.d; the "
              "image's L4T release must match the host's JetPack, and the container must start with that runtime.")
    fix = t("start the container with `--runtime nvidia`; use an l4t image whose tag matches the L4T release of the "
            "host (`cat /etc/nv_tegra_release`: r32.x is JetPack 4 with CUDA 10.2, r34/r35 JetPack 5 with CUDA "
            "11.4); if the CSV files under host-files-for-container.d are missing or empty, re-install the "
            "nvidia-container-csv-* (JetPack container) packages")
    if log.has("file_too_short"):  # the empty placeholders the runtime mounts over, left where it did not run
        fix += "; " + t("`docker build` takes no --runtime flag: set \"default-runtime\": \"nvidia\" in "
                        "/etc/docker/daemon.json and restart Docker so that builds get the host's libraries too")
    return Finding(ID, t("Jetson container without the host's CUDA libraries"), lines(jetson[:1] + trouble), cause,
                   fix, t("tfenv's images are for x86-64 hosts; on Jetson use NVIDIA's l4t images"), rank=6,
                   supersedes=("missing-cuda-runtime", "missing-cudnn", "libcuda-missing", "no-gpu-visible",
                               "container-nvml-lost", "container-no-host-driver"))
