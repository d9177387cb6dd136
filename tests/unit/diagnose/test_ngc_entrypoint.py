"""NVIDIA's NGC images' start-up messages (nvidia_entrypoint.sh, /opt/nvidia/entrypoint.d/*.sh, checkSMVER.sh; sources
in builder/diagnose/rules/SOURCES.md): the driver check, the SM version check, the driver version check, and the
SHMEM / MOFED notes, which are advice and never a cause."""

from builder import diagnose
from builder.diagnose.report import format_text
from builder.matrix.facts import facts_from_matrix
from tests.helpers import matrix

FACTS = facts_from_matrix(matrix())
BANNER = """================
== TensorFlow ==
================

NVIDIA Release 23.03-tf2 (build 56394584)
TensorFlow Version 2.11.0

Container image Copyright (c) 2023, NVIDIA CORPORATION & AFFILIATES. All rights reserved.
"""
NO_DRIVER = """
WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.
   Use the NVIDIA Container Toolkit to start this container with GPU support; see
   https://docs.nvidia.com/datacenter/cloud-native/ .
"""
SHMEM = """
NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be
   insufficient for TensorFlow.  NVIDIA recommends the use of the following flags:
   docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ...
"""
MOFED = """
NOTE: MOFED driver for multi-node communication was not detected.
      Multi-node communication performance may be reduced.
"""


def ids(text):
    return [f.id for f in diagnose.explain(text, FACTS).findings]


def test_the_banner_marks_a_container():
    result = diagnose.explain(BANNER + "2023-03-01 10:00:00.0: I tensorflow/core/platform/cpu_feature_guard.cc:193] x",
                              FACTS)
    assert result.context.container and result.context.platform.value == "linux"


def test_driver_not_detected_is_no_gpu_visible_with_gpus_all():
    result = diagnose.explain(BANNER + NO_DRIVER + SHMEM + MOFED, FACTS)
    top = result.findings[0]
    assert top.id == "no-gpu-visible" and "--gpus all" in top.fix and "container toolkit" in top.fix


def test_the_shmem_notes_docker_run_is_no_run_of_the_user():
    text = "$ docker run -it registry.example.org/nvidia/tensorflow:23.03-tf2-py3\n" + BANNER + NO_DRIVER + SHMEM
    top = diagnose.explain(text, FACTS).findings[0]
    assert top.id == "no-gpu-visible" and top.evidence[0] == 1  # the user's run, without --gpus


def test_toolkit_missing_outranks_the_driver_check():
    text = ("$ docker run --gpus all -it registry.example.org/nvidia/tensorflow:23.03-tf2-py3\n"
            "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n"
            + BANNER + NO_DRIVER)
    assert ids(text)[0] == "container-toolkit-missing"


def test_sm_check_is_gpu_too_new_and_the_notes_do_not_outrank_it():
    text = (BANNER + "WARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which is not yet supported in this version "
            "of the container\nERROR: No supported GPU(s) detected to run this container\n" + MOFED + SHMEM)
    result = diagnose.explain(text, FACTS)
    top = result.findings[0]
    assert top.id == "gpu-too-new" and "newer release" in top.fix and "NVIDIA GeForce RTX 4090" in top.cause
    assert "NVIDIA NVIDIA" not in top.cause


def test_may_not_yet_be_supported_is_no_failure():
    text = BANNER + ("WARNING: Detected NVIDIA H100 PCIe GPU, which may not yet be supported in this version of the "
                     "container\n")
    assert "gpu-too-new" not in ids(text)


def test_the_notes_alone_say_nothing_is_wrong():
    result = diagnose.explain(BANNER + MOFED + SHMEM, FACTS)
    assert not result.findings
    assert "advice" in format_text(result) and "advice" in result.as_dict()["next"]


def test_driver_check_reflowed_names_the_driver_and_no_forward_compat_unless_said():
    text = ("ERROR: This container was built for NVIDIA Driver Release 595.58 or later,\n"
            "       but version 580.126.09 was detected and compatibility mode is UNAVAILABLE.\n")
    top = diagnose.explain(text, FACTS).findings[0]
    assert top.id == "driver-too-old" and "595.58" in top.fix and "580.126.09" in top.cause
    assert "forward-compatibility" not in top.cause
    said = text + "\n       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 804)]]\n"
    assert "forward-compatibility" in diagnose.explain(said, FACTS).findings[0].cause


def test_pytorch_found_version_is_the_drivers_cuda():
    text = ("UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). "
            "Please update your GPU driver")
    top = diagnose.explain(text, FACTS).findings[0]
    assert top.id == "driver-too-old" and "CUDA is 11.4" in top.fix and "CUDA 11.x" in top.fix
    old = text.replace("11040", "10020")
    assert "CUDA 10.2 or older" in diagnose.explain(old, FACTS).findings[0].fix


def test_under_wsl2_the_driver_warning_of_older_images_is_no_cause():
    """Older images look for /dev/nvidiactl only and warn under WSL 2 too, whose GPU is /dev/dxg
    (nvidia-docker#1548)."""
    assert ids("Linux PC 5.15.153.1-microsoft-standard-WSL2\n" + BANNER + NO_DRIVER) == []


def test_a_framed_name_inside_a_line_is_no_banner():
    result = diagnose.explain("pytest says == FAILURES == here\n" + NO_DRIVER.replace("WARNING: The NVIDIA", "The"),
                              FACTS)
    assert not result.context.container
