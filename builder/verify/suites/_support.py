"""Helpers the suites share: a failure that carries its evidence and fix, and running probes in the image."""

from __future__ import annotations

import json

from builder.verify.suites import PROBE_DIR

PROBE_MARK = "TFENV_PROBE "


class CheckFailed(AssertionError):
    """A failed check: `evidence` is what was found, `fix` what to try. builder.verify.runner prints both."""

    def __init__(self, evidence: str, fix: str | None = None):
        super().__init__(evidence if not fix else f"{evidence}\nfix: {fix}")
        self.evidence = evidence
        self.fix = fix


def check(condition: bool, evidence: str, fix: str | None = None) -> None:
    if not condition:
        raise CheckFailed(evidence, fix)


class ProbeResult:
    """A probe script's JSON answer (its last TFENV_PROBE line), stdout and stderr (TF logs to stderr)."""

    def __init__(self, rc: int, stdout: str, stderr: str):
        self.rc = rc
        self.stdout = stdout
        self.stderr = stderr
        self.data: dict | None = None
        for line in reversed(stdout.splitlines()):
            if line.startswith(PROBE_MARK):
                self.data = json.loads(line[len(PROBE_MARK):])
                break

    @property
    def ok(self) -> bool:
        return self.rc == 0 and self.data is not None

    def error_line(self) -> str:
        """The last line of stderr, where Python puts the exception of a crashed probe."""
        lines = [ln for ln in self.stderr.splitlines() if ln.strip()]
        return lines[-1].strip() if lines else f"exit status {self.rc}, no output"

    def require(self, what: str, fix: str) -> dict:
        """The data, or a CheckFailed naming the crash."""
        if not self.ok:
            raise CheckFailed(f"{what} failed in the image: {self.error_line()}", fix)
        return self.data


def run_probe(host, python: str, name: str, *args: str) -> ProbeResult:
    """Run builder/verify/suites/probes/NAME.py in the container with `python -c` (no file is copied in)."""
    script = (PROBE_DIR / f"{name}.py").read_text(encoding="utf-8")
    placeholders = " ".join(["%s"] * len(args))
    result = host.run(f"{python} -c %s {placeholders}".strip(), script, *args)
    return ProbeResult(result.rc, result.stdout, result.stderr)
