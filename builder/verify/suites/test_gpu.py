"""GPU checks: only when `tfenv test` passed a GPU into the container; otherwise skipped with the reason."""

from __future__ import annotations

import pytest

from builder.diagnose import loader
from builder.verify.suites._support import check

pytestmark = pytest.mark.gpu


def test_nvidia_smi(host, gpu):
    """nvidia-smi works in the container"""
    out = host.run("nvidia-smi -L")
    check(out.rc == 0 and "GPU" in out.stdout, (out.stderr or out.stdout).strip() or f"exit status {out.rc}",
          gpu["fix"])


def test_cuda_device_count(libs, expect, gpu):
    """cudaGetDeviceCount through ctypes is at least 1"""
    data = libs.require("the library probe", gpu["fix"])
    info = data["cudart"]
    check(info["ok"], f"dlopen('{expect['cudart_soname']}'): {info.get('error')}", gpu["fix"])
    check(info["device_count_rc"] == 0 and info["device_count"] >= 1,
          f"cudaGetDeviceCount returned error {info['device_count_rc']} with {info['device_count']} devices "
          f"(35: driver older than the CUDA runtime, 100: no device)",
          "update the NVIDIA driver to at least " + expect["driver_min_linux"] + " and check `nvidia-smi`")


def test_tf_lists_gpu(tf_probe, expect, gpu):
    """tf.config.list_physical_devices('GPU') is not empty"""
    data = tf_probe.require("import tensorflow", gpu["fix"])
    log = loader.loader_log(tf_probe.stderr)
    why = f"; cuInit: {log.cuinit_error}" if log.cuinit_error else ""
    fix = loader.cuinit_hint(log.cuinit_error, expect.get("wsl_lib")) if log.cuinit_error else gpu["fix"]
    check(bool(data["gpus"]), f"TensorFlow lists no GPU{why}", fix)


def test_loader_log_clean(tf_probe, expect, gpu):
    """with a GPU, TF logs no `Could not load dynamic library` at all"""
    tf_probe.require("import tensorflow", gpu["fix"])
    failures = loader.loader_log(tf_probe.stderr).failures_except(())
    check(not failures, "; ".join(f.line for f in failures),
          " / ".join(loader.fix_hint(f, present=expect["sonames"], wsl_lib=expect.get("wsl_lib")) for f in failures))


def test_gpu_matmul(tf_probe, gpu):
    """a matmul on /GPU:0 equals the CPU result"""
    data = tf_probe.require("import tensorflow", gpu["fix"])
    check(bool(data["gpus"]), "TensorFlow lists no GPU, so nothing ran on /GPU:0", gpu["fix"])
    mm = data["matmul"]
    check("GPU" in mm["device"], f"the matmul ran on {mm['device']}, not a GPU", gpu["fix"])
    check(mm["allclose"], f"GPU and CPU results differ by up to {mm['max_abs_diff']:.3g}",
          "a wrong result on the GPU: check the driver version and the GPU's compute capability against the "
          "TF build (PTX JIT for GPUs newer than the wheel's SASS)")
