"""The findings in order, root cause first, as plain text or JSON-ready data."""

import textwrap

from builder.diagnose import rules
from builder.diagnose.context import infer
from builder.diagnose.parse import parse

SCHEMA = 1
UNDECIDED = ("Nothing in this log matches a known problem. Facts that would decide: the output of `nvidia-smi`, "
             "`tfenv doctor --json` (or the standalone `python doctor.py --json`) on that machine, and the full log of "
             "`python -c \"import tensorflow as tf; print(tf.config.list_physical_devices())\"` with "
             "TF_CPP_MIN_LOG_LEVEL=0.")


class Diagnosis:
    def __init__(self, log, ctx, findings):
        self.log, self.context, self.findings = log, ctx, findings

    @property
    def explained(self):
        return bool(self.findings)

    def as_dict(self):
        return {"schema": SCHEMA, "explained": self.explained, "lines": self.log.line_count,
                "context": self.context.as_dict(),
                "findings": [f.as_dict(self.log) for f in self.findings],
                "next": None if self.explained else UNDECIDED}


def explain(text, facts=None, platform=None, tf=None, cuda=None):
    """Parse, infer the context, run every rule: a Diagnosis."""
    log = parse(text)
    ctx = infer(log, facts, platform=platform, tf=tf, cuda=cuda)
    return Diagnosis(log, ctx, rules.run(log, ctx))


def context_line(ctx):
    parts = []
    if ctx.platform:
        parts.append({"windows": "Windows", "wsl1": "WSL 1", "wsl2": "WSL 2", "linux": "Linux"}[ctx.platform.value]
                     + (" (container)" if ctx.container else ""))
    for label, fact in (("TF", ctx.tf), ("CUDA wanted", ctx.cuda_wanted), ("CUDA present", ctx.cuda_present),
                        ("GPU", ctx.gpu), ("compute capability", ctx.compute_capability), ("driver", ctx.driver),
                        ("Python", ctx.python)):
        if fact:
            parts.append(f"{label} {fact.value}")
    if ctx.envs:
        parts.append("tfenv environment: " + ", ".join(ctx.envs[:3]))
    return "; ".join(parts) or "nothing known about the platform"


def format_text(diagnosis, width=100):
    """Plain text: a context line, then each finding with its evidence, cause, fix and the tfenv way."""
    out = [f"Read {diagnosis.log.line_count} line(s): {context_line(diagnosis.context)}."]
    if not diagnosis.findings:
        out += [""] + textwrap.wrap(UNDECIDED, width)
        return "\n".join(out) + "\n"
    for i, f in enumerate(diagnosis.findings, 1):
        out.append("")
        out.append(f"{i}. {f.title} [{f.id}]")
        for n in f.evidence:
            out.append(f"   line {n}: {diagnosis.log.line_text(n)}")
        for label, body in (("why", f.cause), ("fix", f.fix), ("tfenv", f.tfenv)):
            if body:
                out += textwrap.wrap(body, width, initial_indent=f"   {label}: ",
                                     subsequent_indent=" " * (len(label) + 5))
    return "\n".join(out) + "\n"
