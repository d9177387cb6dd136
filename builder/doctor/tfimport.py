"""--import's probe: the code that imports TensorFlow once, and what its log says (what it could not load, the
GPU count, cuInit); checks/tf_import turns that into checks."""

import re

from builder import diagnose
from builder.diagnose.parse import split_dlerror

IMPORT_CODE = ("import tensorflow as tf; print('TFENV_TF=' + tf.__version__); "
               "print('TFENV_GPUS=%d' % len(tf.config.list_physical_devices('GPU')))")
_MARK = re.compile(r"^TFENV_(TF|GPUS)=(\S+)$", re.M)
_ERROR = re.compile(r"^\w*(?:Error|Exception): .*$", re.M)


def parse_tf_log(text: str, log=None) -> dict:
    """What TensorFlow's loader said: libraries it could not load (with dlerror), the GPU count, cuInit errors."""
    log = log or diagnose.parse(text)
    missing = {}
    for name, ev in log.failed_libraries():
        why = split_dlerror(ev.groups[1])[0] if ev.kind == "load_fail" and len(ev.groups) > 1 else None
        missing.setdefault(name, why or "")
    cuinit = log.first("cuinit")
    marks = dict(_MARK.findall(text))
    errors = _ERROR.findall(text)
    return {"missing": missing, "gpus": int(marks["GPUS"]) if "GPUS" in marks else None,
            "version": marks.get("TF"), "cuinit": cuinit.groups[0] if cuinit else None,
            "error": errors[-1].strip() if errors else None}
