# Runs inside the image (any Python 3.6+): import TensorFlow once and report everything the suites check,
# so TF's start-up cost is paid once per run. TF's own log goes to stderr, where the suites parse it.
# argv: "--matmul" also multiplies on /GPU:0 and on /CPU:0.
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "0")  # keep the loader's warnings

import tensorflow as tf  # noqa: E402

out = {"version": tf.__version__}
try:
    info = dict(tf.sysconfig.get_build_info())  # TF 2.3+
    out["build_info"] = {"source": "tf.sysconfig.get_build_info()", "cuda": info.get("cuda_version"),
                         "cudnn": info.get("cudnn_version"), "is_cuda_build": info.get("is_cuda_build")}
except AttributeError:  # TF 2.2 has only the generated module
    from tensorflow.python.platform import build_info as bi

    out["build_info"] = {"source": "tensorflow.python.platform.build_info",
                         "cuda": getattr(bi, "cuda_version_number", None),
                         "cudnn": getattr(bi, "cudnn_version_number", None),
                         "is_cuda_build": getattr(bi, "is_cuda_build", None)}

gpus = tf.config.list_physical_devices("GPU")
out["gpus"] = [d.name for d in gpus]
out["cpus"] = [d.name for d in tf.config.list_physical_devices("CPU")]

with tf.device("/CPU:0"):
    out["cpu_sum"] = float(tf.reduce_sum(tf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy())

if "--matmul" in sys.argv and gpus:
    import numpy as np

    if hasattr(tf.config.experimental, "enable_tensor_float_32_execution"):
        tf.config.experimental.enable_tensor_float_32_execution(False)  # TF32 (2.4+, Ampere) rounds differently
    rng = np.random.RandomState(0)
    a = rng.rand(256, 256).astype("float32")
    b = rng.rand(256, 256).astype("float32")
    with tf.device("/GPU:0"):
        g = tf.matmul(a, b)
    with tf.device("/CPU:0"):
        c = tf.matmul(a, b)
    diff = np.abs(g.numpy() - c.numpy())
    out["matmul"] = {"device": g.device, "max_abs_diff": float(diff.max()),
                     "allclose": bool(np.allclose(g.numpy(), c.numpy(), rtol=1e-4, atol=1e-3))}

print("TFENV_PROBE " + json.dumps(out))
