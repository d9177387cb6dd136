"""--import: import TensorFlow once and read its log with the diagnosis core (what it could not load, what
cuInit said, and any problem `tfenv explain` recognises in it)."""

from typing import List, Optional

from builder import diagnose
from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, Check, Host
from builder.doctor.tfimport import IMPORT_CODE, parse_tf_log

ID = "import"


def check(ctx) -> List[Check]:
    return check_import(ctx.host, ctx.facts) if ctx.do_import else []


def check_import(host: Host, facts: Optional[dict] = None) -> List[Check]:
    r = host.run([host.python_exe, "-c", IMPORT_CODE], timeout=600, extra_env={"TF_CPP_MIN_LOG_LEVEL": "0"})
    if r is None:
        return [Check(ID, FAIL, t("{python} did not finish importing TensorFlow", python=host.python_exe), "")]
    text = r.out + "\n" + r.err
    result = diagnose.explain(text, facts)
    log = parse_tf_log(text, result.log)
    explained = [Check("explain:" + f.id, OK if f.harmless else FAIL, f.title, "" if f.harmless else f.fix)
                 for f in result.findings]
    if r.rc != 0 or log["version"] is None:
        error = log["error"] or t("exit status {rc}", rc=r.rc)
        return [Check(ID, FAIL, t("import tensorflow failed: {error}", error=error),
                      t("install TensorFlow in this Python, or use the Docker image"))] + explained
    checks = [Check("import:lib", FAIL, t("TensorFlow could not load {lib}: {why}", lib=lib, why=why),
                    t("see the library checks above")) for lib, why in log["missing"].items()]
    checks += explained
    if log["gpus"]:
        checks.append(Check(ID, OK, t("TensorFlow {version} sees {count} GPU(s)", version=log["version"],
                                            count=log["gpus"])))
    else:
        message = (t("TensorFlow {version} sees no GPU; cuInit: {error}", version=log["version"], error=log["cuinit"])
                   if log["cuinit"] else t("TensorFlow {version} sees no GPU", version=log["version"]))
        checks.append(Check(ID, FAIL, message, t("fix the failures above") if checks or log["cuinit"]
                            else t("check the driver and libraries above")))
    return checks
