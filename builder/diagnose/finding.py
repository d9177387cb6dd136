"""A finding: one problem a rule recognised, with its evidence, cause, fix and the tfenv way around it."""

from builder.diagnose.i18n import punctuate


class Finding:
    """rank orders findings, root causes first (lower is earlier); supersedes names findings this one explains."""

    def __init__(self, id, title, evidence, cause, fix, tfenv="", harmless=False, rank=50, supersedes=()):
        self.id = id
        self.title = punctuate(title)  # the rules join translated sentences with '; ' and ' ': as the language does
        self.evidence = sorted({n for n in evidence if n})  # line numbers
        self.cause = punctuate(cause)
        self.fix = punctuate(fix)
        self.tfenv = punctuate(tfenv)
        self.harmless = harmless
        self.rank = rank
        self.supersedes = tuple(supersedes)

    def as_dict(self, log=None):
        quoted = [{"line": n, "text": log.line_text(n) if log else ""} for n in self.evidence]
        return {"id": self.id, "title": self.title, "harmless": self.harmless, "evidence": quoted,
                "cause": self.cause, "fix": self.fix, "tfenv": self.tfenv}

    def __repr__(self):
        return f"Finding({self.id!r}, lines={self.evidence})"
