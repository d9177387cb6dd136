"""The findings in order, root cause first, as plain text or JSON-ready data."""

from builder.diagnose import rules
from builder.diagnose.context import infer
from builder.diagnose.i18n import columns, t, wrap
from builder.diagnose.parse import parse

SCHEMA = 1
CONTEXT_SEPARATOR = "; "  # between the facts of the context line (a message: Chinese writes '；')
UNDECIDED = ("Nothing in this log matches a known problem. Facts that would decide: the output of `nvidia-smi`, "
             "`tfenv doctor --json` (or the standalone `python doctor.py --json`) on that machine, and the full log of "
             "`python -c \"import tensorflow as tf; print(tf.config.list_physical_devices())\"` with "
             "TF_CPP_MIN_LOG_LEVEL=0.")
# NVIDIA's images print these notes at every start (the SHMEM and MOFED checks of their entrypoint): advice, no cause
NGC_NOTES = ("The NGC image's start-up notes (the 64MB shared-memory default, no MOFED driver for multi-node "
             "communication) are advice for performance, not a failure.")


class Diagnosis:
    def __init__(self, log, ctx, findings):
        self.log, self.context, self.findings = log, ctx, findings
        self.fatal_lines = sorted({ev.line for ev in log.all("fatal")})

    @property
    def explained(self):
        """Something recognised; a log that ends in a fatal line is explained only by a finding that is no note."""
        if self.fatal_lines:
            return any(not f.harmless for f in self.findings)
        return bool(self.findings)

    def as_dict(self):
        return {"schema": SCHEMA, "explained": self.explained, "lines": self.log.line_count,
                "context": self.context.as_dict(),
                "fatal": [{"line": n, "text": self.log.line_text(n)} for n in self.fatal_lines],
                "findings": [f.as_dict(self.log) for f in self.findings],
                "next": None if self.explained else self.undecided()}

    def undecided(self):
        """What would decide; where the log shows only an NGC image's advice notes, that they are no failure."""
        notes = not self.findings and self.log.has("ngc_shmem", "ngc_mofed")
        return (t(NGC_NOTES) + " " if notes else "") + t(UNDECIDED)


def explain(text, facts=None, platform=None, tf=None, cuda=None):
    """Parse, infer the context, run every rule: a Diagnosis."""
    log = parse(text)
    ctx = infer(log, facts, platform=platform, tf=tf, cuda=cuda)
    return Diagnosis(log, ctx, rules.run(log, ctx))


def context_line(ctx):
    parts = []
    if ctx.platform:
        name = {"windows": "Windows", "wsl1": "WSL 1", "wsl2": "WSL 2", "linux": "Linux"}[ctx.platform.value]
        parts.append(t("{platform} (container)", platform=name) if ctx.container else name)
    elif ctx.posix:
        parts.append(t("Linux or WSL 2"))
    labels = ((t("TF {value}"), ctx.tf), (t("CUDA wanted {value}"), ctx.cuda_wanted),
              (t("CUDA present {value}"), ctx.cuda_present), (t("GPU {value}"), ctx.gpu),
              (t("compute capability {value}"), ctx.compute_capability), (t("driver {value}"), ctx.driver),
              (t("Python {value}"), ctx.python))
    for label, fact in labels:
        if fact:
            parts.append(label.format(value=fact.value))
    if ctx.envs:
        parts.append(t("tfenv environment: {envs}", envs=", ".join(ctx.envs[:3])))
    return t(CONTEXT_SEPARATOR).join(parts) or t("nothing known about the platform")


def format_text(diagnosis, width=100):
    """Plain text: a context line, the fatal lines, then each finding: evidence, cause, fix, the tfenv way."""
    out = [t("Read {count} line(s): {context}.", count=diagnosis.log.line_count,
             context=context_line(diagnosis.context))]
    if diagnosis.fatal_lines:
        out += [""] + wrap(t("The process stopped with a fatal error:"), width)
        out += ["   " + t("line {number}: {text}", number=n, text=diagnosis.log.line_text(n))
                for n in diagnosis.fatal_lines[:3]]
    if not diagnosis.explained:
        out += [""] + wrap(diagnosis.undecided(), width)
        if not diagnosis.findings:
            return "\n".join(out) + "\n"
        out += [""] + wrap(t("Also in the log, not the cause of the fatal error:"), width)
    headings = (("why", t("why")), ("fix", t("fix")), ("tfenv", t("tfenv")))
    for i, f in enumerate(diagnosis.findings, 1):
        out.append("")
        out.append(f"{i}. {f.title} [{f.id}]")
        for n in f.evidence:
            out.append("   " + t("line {number}: {text}", number=n, text=diagnosis.log.line_text(n)))
        for key, label in headings:
            body = getattr(f, {"why": "cause"}.get(key, key))
            if body:
                out += wrap(body, width, initial_indent=f"   {label}: ", subsequent_indent=" " * (columns(label) + 5))
    return "\n".join(out) + "\n"
