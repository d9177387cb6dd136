"""--import: import TensorFlow once and read its log with the diagnosis core (what it could not load, what
cuInit said, and any problem `tfenv explain` recognises in it)."""

import re
from typing import List, Optional

from builder import diagnose
from builder.diagnose.i18n import t
from builder.diagnose.parse import split_dlerror
from builder.doctor.host import FAIL, OK, Check, Host

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


def check_import(host: Host, facts: Optional[dict] = None) -> List[Check]:
    r = host.run([host.python_exe, "-c", IMPORT_CODE], timeout=600, extra_env={"TF_CPP_MIN_LOG_LEVEL": "0"})
    if r is None:
        return [Check("import", FAIL, t("{python} did not finish importing TensorFlow", python=host.python_exe), "")]
    text = r.out + "\n" + r.err
    result = diagnose.explain(text, facts)
    log = parse_tf_log(text, result.log)
    explained = [Check("explain:" + f.id, OK if f.harmless else FAIL, f.title, "" if f.harmless else f.fix)
                 for f in result.findings]
    if r.rc != 0 or log["version"] is None:
        error = log["error"] or t("exit status {rc}", rc=r.rc)
        return [Check("import", FAIL, t("import tensorflow failed: {error}", error=error),
                      t("install TensorFlow in this Python, or use the Docker image"))] + explained
    checks = [Check("import:lib", FAIL, t("TensorFlow could not load {lib}: {why}", lib=lib, why=why),
                    t("see the library checks above")) for lib, why in log["missing"].items()]
    checks += explained
    if log["gpus"]:
        checks.append(Check("import", OK, t("TensorFlow {version} sees {count} GPU(s)", version=log["version"],
                                            count=log["gpus"])))
    else:
        message = (t("TensorFlow {version} sees no GPU; cuInit: {error}", version=log["version"], error=log["cuinit"])
                   if log["cuinit"] else t("TensorFlow {version} sees no GPU", version=log["version"]))
        checks.append(Check("import", FAIL, message, t("fix the failures above") if checks or log["cuinit"]
                            else t("check the driver and libraries above")))
    return checks
