"""TensorFlow itself: version, what it was built against, what its loader logs, a CPU op."""

from __future__ import annotations

from builder.diagnose import loader
from builder.verify.suites._support import check

IMPORT_FIX = "`import tensorflow` must work before anything else: rebuild the image ({hint})"


def _data(tf_probe, expect) -> dict:
    return tf_probe.require("import tensorflow", IMPORT_FIX.format(hint=expect["build_hint"]))


def _prefix(found: str, wanted: str) -> bool:
    """'8' matches '8.1': TF reports cuDNN's major version only."""
    f, w = str(found).split("."), str(wanted).split(".")
    return f == w[: len(f)]


def test_tensorflow_version(tf_probe, expect):
    """TensorFlow version matches the matrix"""
    found = _data(tf_probe, expect)["version"]
    check(found == expect["tensorflow"], f"tf.__version__ is {found}, the matrix says {expect['tensorflow']}",
          f"rebuild it: {expect['build_hint']}")


def test_build_info(tf_probe, expect):
    """TF was built against the matrix's CUDA and cuDNN"""
    info = _data(tf_probe, expect)["build_info"]
    where = info["source"]
    check(bool(info.get("is_cuda_build", True)), f"{where}: is_cuda_build is False (a CPU-only TensorFlow)",
          "install the GPU build of TensorFlow (tensorflow-gpu for 2.2/2.3 if the plain wheel is CPU-only)")
    check(str(info.get("cuda")) == expect["cuda_built"],
          f"{where} says CUDA {info.get('cuda')}, the matrix says {expect['cuda_built']}",
          f"this TensorFlow is not {expect['tensorflow']} as the matrix pins it: rebuild ({expect['build_hint']})")
    check(_prefix(info.get("cudnn"), expect["cudnn_built"]),
          f"{where} says cuDNN {info.get('cudnn')}, the matrix says {expect['cudnn_built']}",
          f"rebuild it: {expect['build_hint']}")


def test_loader_log(tf_probe, expect):
    """importing TF and listing devices logs no `Could not load dynamic library` but for the driver"""
    _data(tf_probe, expect)
    log = loader.loader_log(tf_probe.stderr)
    ignored = [loader.DRIVER_LIBRARY, *expect["optional_sonames"]]  # the driver comes with --gpus; TensorRT is optional
    failures = log.failures_except(ignored)
    shims = [(s["link"], s["to"]) for s in expect["shims"]]
    check(not failures, "; ".join(f.line for f in failures),
          " / ".join(loader.fix_hint(f, present=expect["sonames"], shims=shims,
                                   wsl_lib=expect.get("wsl_lib")) for f in failures))


def test_cpu_op(tf_probe, expect):
    """a small op runs on the CPU"""
    found = _data(tf_probe, expect)["cpu_sum"]
    check(found == 10.0, f"reduce_sum([[1, 2], [3, 4]]) on /CPU:0 gave {found}, not 10",
          "TensorFlow is broken in this image: rebuild it")
