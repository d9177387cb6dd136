"""The loader messages the image checks read (builder.diagnose.loader over the one parser), on real log
lines quoted in public issues (cited per block) and on lines
captured from tfenv's own tf29 image."""

from __future__ import annotations

import pytest

from builder.diagnose import loader, parse
from builder.diagnose.parse import LONG_LINE
from tests.helpers import matrix

# TF 2.2.0rc2, CUDA 10.2 installed: TF asks for 10.1 (tensorflow/tensorflow#38578).
TF22_CUDART = """\
2020-04-15 20:58:07.177217: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library libcuda.so.1
2020-04-15 20:58:07.205269: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic library 'libcudart.so.10.1'; dlerror: libcudart.so.10.1: cannot open shared object file: No such file or directory
2020-04-15 20:58:07.207704: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library libcublas.so.10
2020-04-15 20:58:07.210137: I tensorflow/stream_executor/platform/default/dso_loader.cc:44] Successfully opened dynamic library libcufft.so.10
"""  # noqa: E501

# The same dso_loader.cc:55 with LD_LIBRARY_PATH set (TF 2.1, tensorflow/tensorflow#37689).
TF2X_LDPATH = (
    "2020-03-18 08:16:50.221103: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
    "dynamic library 'libnvinfer.so.6'; dlerror: libnvinfer.so.6: cannot open shared object file: No such file or "
    "directory; LD_LIBRARY_PATH: /usr/local/cuda/lib64:/.singularity.d/libs"
)

# TF 2.2 on Windows (tensorflow/tensorflow#41909): DLL names, dlerror without a colon.
TF22_WINDOWS = (
    "2020-07-30 16:17:56.453813: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
    "dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found"
)

# TF 2.4 (tensorflow/tensorflow#45848): the INFO lines TF <= 2.4 print for each library it opened.
TF24_OPENED = """\
2021-01-19 22:40:59.100213: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcudart.so.11.0
2021-01-19 22:41:00.124800: I tensorflow/compiler/jit/xla_cpu_device.cc:41] Not creating XLA devices, tf_xla_enable_xla_devices not set
2021-01-19 22:41:00.125384: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcuda.so.1
"""  # noqa: E501

# TF 2.4 without a GPU: dso_loader.cc:60 and cuInit 303 (microsoft/DirectML#80, quoting a TF 2.4 log).
TF24_NO_DRIVER = """\
2021-02-15 00:22:53.049892: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory
2021-02-15 00:22:53.049990: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
2021-02-15 00:26:30.774305: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory
2021-02-15 00:26:30.774405: W tensorflow/stream_executor/cuda/cuda_driver.cc:326] failed call to cuInit: UNKNOWN ERROR (303)
"""  # noqa: E501

# TF 2.4 with a library that needs another one (NVIDIA/tensorflow#110): dlerror names the dependency.
TF24_DEPENDENCY = """\
2024-06-19 16:06:44.996032: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'libcusolver.so.11'; dlerror: libnvJitLink.so.12: cannot open shared object file: No such file or directory
2024-06-19 16:06:44.996089: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened dynamic library libcusparse.so.11
2024-06-19 16:06:44.996140: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1689] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu
"""  # noqa: E501

# TF 2.9 (tensorflow/tensorflow#56413).
TF29_CUDART = (
    "2022-06-09 15:50:37.711160: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
    "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such "
    "file or directory"
)

# TF 2.9-era dso_loader.cc:64 and gpu_device.cc:1850, with LD_LIBRARY_PATH, the first line cut before its
# timestamp as it was pasted (JdeRobot/BehaviorMetrics#385).
TF29_SKIPPING = """\
tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcusolver.so.11'; dlerror: libcusolver.so.11: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/lib/python3.7/dist-packages/cv2/../../lib64:/opt/ros/noetic/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu/gazebo-11/plugins
2022-07-10 15:08:09.276131: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/lib/python3.7/dist-packages/cv2/../../lib64:/opt/ros/noetic/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu/gazebo-11/plugins
2022-07-10 15:08:09.276917: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU. Follow the guide at https://www.tensorflow.org/install/gpu for how to download and setup the required libraries for your platform.
Skipping registering GPU devices...
"""  # noqa: E501

# TF 2.9-era driver lines (secretflow/secretflow#255; cuda_driver.cc:263 is TF 2.9's line).
TF29_NO_DRIVER = """\
2023-01-09 14:54:41.439038: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory
2023-01-09 14:54:41.439076: W tensorflow/stream_executor/cuda/cuda_driver.cc:263] failed call to cuInit: UNKNOWN ERROR (303)
"""  # noqa: E501

# TF 2.3 with the driver library present but no device (tensorflow/tensorflow#44869).
TF23_NO_DEVICE = (
    "2020-11-11 10:46:37.467224: E tensorflow/stream_executor/cuda/cuda_driver.cc:314] failed call to cuInit: "
    "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
)

# Captured verbatim from tfenv/tensorflow:tf29-debian11 on the build machine (no GPU, 2026-12-01):
# stderr of `import tensorflow as tf; tf.config.list_physical_devices()`.
TF29_TFENV_IMAGE = """\
2026-12-01 08:17:12.175482: I tensorflow/core/util/util.cc:169] oneDNN custom operations are on. You may see slightly different numerical results due to floating-point round-off errors from different computation orders. To turn them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.
2026-12-01 08:17:15.065838: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory; LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64
2026-12-01 08:17:15.065895: W tensorflow/stream_executor/cuda/cuda_driver.cc:269] failed call to cuInit: UNKNOWN ERROR (303)
2026-12-01 08:17:15.065931: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not appear to be running on this host (1dfb1c9aea08): /proc/driver/nvidia/version does not exist
"""  # noqa: E501


def test_tf22_cudart_missing_and_opened_lines():
    log = loader.loader_log(TF22_CUDART)
    assert [f.library for f in log.failures] == ["libcudart.so.10.1"]
    failure = log.failures[0]
    assert failure.dlerror == "libcudart.so.10.1: cannot open shared object file: No such file or directory"
    assert failure.ld_library_path is None
    assert failure.missing_dependency is None
    assert parse(TF22_CUDART).opened_libraries() == ["libcuda.so.1", "libcublas.so.10", "libcufft.so.10"]
    assert not parse(TF22_CUDART).has("cannot_dlopen") and log.cuinit_error is None


def test_tf22_shim_hint_when_10_2_is_present():
    failure = loader.loader_log(TF22_CUDART).failures[0]
    hint = loader.fix_hint(failure, present=["libcudart.so.10.2"])
    assert "libcudart.so.10.1 -> libcudart.so.10.2" in hint
    # Without 10.2 around, the hint offers the 10.1 runtime first.
    assert "cuda-cudart-10-1" in loader.fix_hint(failure)
    # A matrix shim names the exact link.
    shim_hint = loader.fix_hint(failure, shims=[("libcudart.so.10.1", "libcudart.so.10.2")])
    assert "ln -s libcudart.so.10.2 libcudart.so.10.1" in shim_hint


def test_ld_library_path_is_split_from_dlerror():
    failure = loader.loader_log(TF2X_LDPATH).failures[0]
    assert failure.library == "libnvinfer.so.6"
    assert failure.dlerror == "libnvinfer.so.6: cannot open shared object file: No such file or directory"
    assert failure.ld_library_path == "/usr/local/cuda/lib64:/.singularity.d/libs"
    assert "optional" in loader.fix_hint(failure)


def test_windows_dll_names():
    failure = loader.loader_log(TF22_WINDOWS).failures[0]
    assert failure.library == "cudart64_101.dll"
    assert failure.dlerror == "cudart64_101.dll not found"
    assert failure.missing_dependency is None


def test_tf24_opened_lines_and_no_failures():
    log = loader.loader_log(TF24_OPENED)
    assert log.failures == []
    assert parse(TF24_OPENED).opened_libraries() == ["libcudart.so.11.0", "libcuda.so.1"]


def test_tf24_no_driver():
    log = loader.loader_log(TF24_NO_DRIVER)
    assert [f.library for f in log.failures_except(())] == ["libcudart.so.11.0", "libcuda.so.1"]
    assert [f.library for f in log.failures_except([loader.DRIVER_LIBRARY])] == ["libcudart.so.11.0"]
    assert log.cuinit_error == "UNKNOWN ERROR (303)"
    wsl_lib = matrix().wsl.lib_dir  # the folder comes from the matrix, as the suites' expectations carry it
    assert wsl_lib in loader.cuinit_hint(log.cuinit_error, wsl_lib)
    driver = log.failures[1]
    hint = loader.fix_hint(driver, wsl_lib=wsl_lib)
    assert "--gpus all" in hint and f"LD_LIBRARY_PATH={wsl_lib};" in hint
    assert "--gpus all" in loader.fix_hint(driver) and "WSL2" not in loader.fix_hint(driver)


def test_tf24_dependency_named_by_dlerror():
    log = loader.loader_log(TF24_DEPENDENCY)
    failure = log.failures[0]
    assert failure.library == "libcusolver.so.11"
    assert failure.missing_dependency == "libnvJitLink.so.12"
    assert "needs libnvJitLink.so.12" in loader.fix_hint(failure)
    assert parse(TF24_DEPENDENCY).opened_libraries() == ["libcusparse.so.11"]
    assert parse(TF24_DEPENDENCY).has("cannot_dlopen") and not parse(TF24_DEPENDENCY).has("skipping")


def test_tf24_cusolver10_hint():
    line = TF24_NO_DRIVER.splitlines()[0].replace("libcudart.so.11.0", "libcusolver.so.10")
    failure = loader.loader_log(line).failures[0]
    assert "CUDA 11.0" in loader.fix_hint(failure, present=["libcudart.so.11.0"])


def test_tf29_line_64():
    failure = loader.loader_log(TF29_CUDART).failures[0]
    assert failure.library == "libcudart.so.11.0"
    assert failure.ld_library_path is None


def test_tf29_cannot_dlopen_and_skipping():
    log = loader.loader_log(TF29_SKIPPING)
    assert [f.library for f in log.failures_except(())] == ["libcusolver.so.11", "libcudnn.so.8"]
    assert log.failures[0].ld_library_path.endswith("/usr/lib/x86_64-linux-gnu/gazebo-11/plugins")
    assert log.failures[0].dlerror == "libcusolver.so.11: cannot open shared object file: No such file or directory"
    assert parse(TF29_SKIPPING).has("cannot_dlopen") and parse(TF29_SKIPPING).has("skipping")
    assert "cuDNN" in loader.fix_hint(log.failures[1])
    assert "LD_LIBRARY_PATH is /usr/local/lib" in loader.fix_hint(log.failures[0])


def test_tf29_no_driver_and_no_device():
    log = loader.loader_log(TF29_NO_DRIVER)
    assert [f.library for f in log.failures_except(())] == ["libcuda.so.1"]
    assert log.failures_except(["libcuda.so.1"]) == []
    assert log.cuinit_error == "UNKNOWN ERROR (303)"
    error = loader.loader_log(TF23_NO_DEVICE).cuinit_error
    assert error == "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
    assert "--gpus" in loader.cuinit_hint(error)


def test_tfenv_image_log_only_driver_missing():
    log = loader.loader_log(TF29_TFENV_IMAGE)
    assert [f.library for f in log.failures_except(())] == ["libcuda.so.1"]
    assert log.failures[0].ld_library_path == "/usr/local/nvidia/lib:/usr/local/nvidia/lib64"
    assert log.cuinit_error == "UNKNOWN ERROR (303)"


def test_repeated_failures_are_reported_once():
    log = loader.loader_log(TF29_CUDART + "\n" + TF29_CUDART)
    assert len(log.failures) == 2
    assert len(log.failures_except(())) == 1


@pytest.mark.parametrize("noise", ["", "\n\n", "I tensorflow/core/platform/cpu_feature_guard.cc:193] This TensorFlow "
                                   "binary is optimized with oneAPI Deep Neural Network Library (oneDNN)"])
def test_noise_yields_nothing(noise):
    log = loader.loader_log(noise)
    events = parse(noise)
    assert log.failures == [] and events.opened_libraries() == [] and not events.has("cannot_dlopen")
    assert log.cuinit_error is None


@pytest.mark.parametrize("shift", [0, 7, 150, 160, 390, 399])  # 150, 160: a literal across a piece's end
def test_a_log_on_one_line_is_read_in_pieces(shift):
    """A line longer than LONG_LINE (a log that lost its line ends, a progress bar's `\\r` updates) is searched in
    pieces: its messages, wherever they fall across the pieces' ends, are found as in the log's own lines."""
    noise = "Epoch 1/10 - loss: 0.25 - accuracy: 0.91\r" * 600 + "x" * shift
    for glue in (" ", "\r"):
        one_line = noise + TF22_CUDART.replace("\n", glue) + noise
        assert len(one_line) > LONG_LINE
        got, want = parse(one_line), parse(TF22_CUDART)
        assert sorted(got.events) == sorted(want.events)
        assert [name for name, _ in got.failed_libraries()] == [name for name, _ in want.failed_libraries()]
        assert got.opened_libraries() == want.opened_libraries()
        assert {ev.line for kind in got.events for ev in got.all(kind)} == {1}
