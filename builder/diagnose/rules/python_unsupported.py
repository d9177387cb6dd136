"""pip finds no TensorFlow for this Python (version outside TF's range), or Windows refuses TF's DLLs in a 32-bit
Python ("%1 is not a valid Win32 application")."""

import re

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import _tested
from builder.diagnose.rules._common import lines, tfenv_way
from builder.diagnose.versions import line_of, vkey

ID = "python-unsupported"
PINNED = re.compile(r"(?:==|~=)(\d+\.\d+)")
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
    asked = _asked(evidence[0], ctx)
    cause = t("pip installs only wheels built for this Python version and a 64-bit interpreter; for Python "
              "{python} the requested TensorFlow has none.", python=ctx.python.value) if ctx.python else t(
        "pip installs only wheels built for this Python version and a 64-bit interpreter; for this Python the "
        "requested TensorFlow has none.")
    return Finding(ID, t("No TensorFlow wheel for this Python"), lines(evidence), cause, _fix(log, ctx, asked),
                   tfenv_way(ctx), rank=14)


def _asked(event, ctx):
    """The TF line a pinned requirement names ('tensorflow==1.9.0', 'tensorflow-gpu~=2.4.0'), else the log's TF."""
    m = PINNED.search(event.groups[0])
    if m:
        return line_of(m.group(1))
    return ctx.tf.value if ctx.tf else ""


def _venv(ctx, python):
    if ctx.windows:
        return t("`py -{python} -m venv .venv`", python=python)
    if ctx.container:
        return t("a python:{python} base image", python=python)
    return t("pyenv or conda", python=python)


def _fix(log, ctx, asked):
    """One fix with the versions in it: the Python range of the TF asked for (TensorFlow's tested configurations,
    matrix.yaml tensorflow:) and the TF that fits the log's Python (or the oldest release pip offers for it)."""
    pythons, python = _tested.python_range(ctx, asked) if asked else None, ctx.python.value
    offered = [v for v in (log.first("pip_from_versions").groups[0].split(", ") if log.has("pip_from_versions")
                           else ()) if vkey(v)[:1] in ((1,), (2,))]
    fit = _tested.tf_for_python(ctx, python) if python else None
    if pythons and python and _tested.fits(python, pythons):
        return t("TF {tf} has wheels for Python {python}, so this interpreter is a 32-bit one (or the platform has no "
                 "TF build): use a 64-bit Python, check with `{check}`", tf=asked, python=python, check=BITS)
    if python and not fit:
        last = _tested.newest(ctx)
        low, high = _tested.python_range(ctx, last) if last else ("?", "?")
        return t("no TF release up to {tf} has wheels for Python {python}: create the venv with Python {low}-{high} "
                 "({venv})", tf=last or "?", python=python, low=low, high=high, venv=_venv(ctx, high))
    if pythons:
        low, high = pythons
        fix = t("TF {tf} has wheels for Python {low}-{high} only: create the venv with Python {high} ({venv})",
                tf=asked, low=low, high=high, venv=_venv(ctx, high))
        if fit and vkey(python) > vkey(high):
            return fix + t(", or move to TF {first} or later, the first with wheels for Python {python}",
                           first=fit[0], python=python)
        if fit:
            return fix + t(", or use TF {last} at most, the last with wheels for Python {python}", last=fit[1],
                           python=python)
        if offered and vkey(offered[0]) > vkey(asked):
            return fix + t(", or move to TF {first} or later, the oldest release pip offers for this Python",
                           first=line_of(offered[0]))
        return fix
    if fit:
        return t("for Python {python} pick a TF from {first} to {last} (the releases with wheels for it), e.g. "
                 "`pip install \"tensorflow=={last}.*\"`", python=python, first=fit[0], last=fit[1])
    last = _tested.newest(ctx)
    if last:
        low, high = _tested.python_range(ctx, last)
        return t("use a 64-bit Python of a Python version TF supports (TF {tf}: Python {low}-{high}) in a venv "
                 "({venv}); check with `{check}`", tf=last, low=low, high=high, venv=_venv(ctx, high), check=BITS)
    return t("use a 64-bit Python of a Python version TF supports (see tensorflow.org's tested configurations) in a "
             "venv; check with `{check}`", check=BITS)


def _gpu_after_210(requirement):
    name, _, version = requirement.partition("=")
    return name.startswith("tensorflow-gpu") and vkey(version.strip("=<>~!")) >= (2, 11)
