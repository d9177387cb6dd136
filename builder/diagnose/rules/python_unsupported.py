"""pip finds no TensorFlow for this Python (version outside TF's range, or 32-bit)."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import line_of, vkey

ID = "python-unsupported"


def check(log, ctx):
    evidence = log.all("pip_no_version")[:2] + log.all("not_supported_wheel")[:1]
    if not evidence:
        return None
    ranges = _ranges(ctx)
    py = " ({})".format("Python " + ctx.python.value) if ctx.python else ""
    cause = (f"pip installs only wheels built for this Python version and a 64-bit interpreter; for this Python{py} "
             f"the "
             "requested TensorFlow has none.")
    fix = ("use a 64-bit Python that TF supports ({}) in a venv: e.g. `py -3.8 -m venv .venv` on Windows, pyenv or "
           "python3.X-venv on Linux; check with `python -c \"import struct,sys; print(sys.version, "
           "struct.calcsize('P')*8)\"`".format(ranges or "see tensorflow.org's tested configurations"))
    return Finding(ID, "No TensorFlow wheel for this Python", [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx), rank=14)


def _ranges(ctx):
    envs = (ctx.facts or {}).get("envs", {})
    seen = {}
    for env in envs.values():
        if ctx.tf and line_of(env["tensorflow"]) != ctx.tf.value:
            continue
        seen.setdefault(line_of(env["tensorflow"]), "{}-{}".format(env["python_min"], env["python_max"]))
    return ", ".join(f"TF {k} on Python {v}" for k, v in sorted(seen.items(), key=lambda kv: vkey(kv[0])))
