"""pip finds no TensorFlow for this Python (version outside TF's range), or Windows refuses TF's DLLs in a 32-bit
Python ("%1 is not a valid Win32 application")."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, tfenv_way
from builder.diagnose.versions import line_of, vkey

ID = "python-unsupported"
BITS = "python -c \"import struct,sys; print(sys.version, struct.calcsize('P')*8)\""


def check(log, ctx):
    if log.has("win32_app"):
        return Finding(ID, t("TensorFlow needs a 64-bit Python"), lines(log.all("win32_app")[:1]),
                       t("Python and TensorFlow's DLLs differ in bitness: TF needs a 64-bit Python."),
                       t("install 64-bit Python (python.org, \"Windows installer (64-bit)\") and reinstall TensorFlow "
                         "in a new venv; `{check}` prints 64 for a 64-bit Python", check=BITS), tfenv_way(ctx),
                       rank=14)
    # tensorflow-gpu 2.11+ exists for no Python (windows-gpu-after-210 says why)
    evidence = [ev for ev in log.all("pip_no_version") if not _gpu_after_210(ev.groups[0])][:2]
    evidence += log.all("not_supported_wheel")[:1]
    if not evidence:
        return None
    ranges = _ranges(ctx) or t("see tensorflow.org's tested configurations")
    if ctx.python:
        cause = t("pip installs only wheels built for this Python version and a 64-bit interpreter; for Python "
                  "{python} the requested TensorFlow has none.", python=ctx.python.value)
    else:
        cause = t("pip installs only wheels built for this Python version and a 64-bit interpreter; for this Python "
                  "the requested TensorFlow has none.")
    if ctx.windows:
        fix = t("use a 64-bit Python of a Python version TF supports ({ranges}) in a venv, e.g. `py -3.8 -m venv "
                ".venv`; check with `{check}`", ranges=ranges, check=BITS)
    else:
        fix = t("use a 64-bit Python of a Python version TF supports ({ranges}) in a venv (pyenv, or your "
                "distribution's python3.X-venv); check with `{check}`", ranges=ranges, check=BITS)
    return Finding(ID, t("No TensorFlow wheel for this Python"), lines(evidence), cause, fix, tfenv_way(ctx),
                   rank=14)


def _gpu_after_210(requirement):
    name, _, version = requirement.partition("=")
    return name.startswith("tensorflow-gpu") and vkey(version.strip("=<>~!")) >= (2, 11)


def _ranges(ctx):
    envs = (ctx.facts or {}).get("envs", {})
    seen = {}
    for env in envs.values():
        if ctx.tf and line_of(env["tensorflow"]) != ctx.tf.value:
            continue
        seen.setdefault(line_of(env["tensorflow"]), "{}-{}".format(env["python_min"], env["python_max"]))
    return ", ".join(t("TF {tf} on Python {pythons}", tf=k, pythons=v)
                     for k, v in sorted(seen.items(), key=lambda kv: vkey(kv[0])))
