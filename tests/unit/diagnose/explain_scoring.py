"""How a real log is scored against `tfenv explain`: one home for the corpus test and the held-out benchmark.

A case (a YAML file: platform, cause, keys, log) is right when explain, run as a user would, puts the labelled
cause first with the lines it relied on, its fix names one of the case's keys (words of the thread's working
fix), and its advice carries no other platform's commands (no Linux loader advice for Windows, no DLL advice
for Linux).

`judge(..., loose=True)` is a second, looser reading of the fix, for the held-out benchmark only: a key counts when
its words come in the fix in that order with at most three other words between two of them (the thread's
"update the driver" in "update the NVIDIA driver to 525.60 or newer"). The corpus test and the issue's figure are
the strict one."""

from __future__ import annotations

import re

from builder import diagnose

LINUX_ONLY = re.compile(r"LD_LIBRARY_PATH|ldconfig|ln -s|\bapt(-get)?\b")
WINDOWS_ONLY = re.compile(r"\.dll\b|%PATH%|C:\\|\bwhere\b", re.IGNORECASE)
# WSL 2 is made of Windows parts: its advice may name Windows folders (the driver's lxss\lib) and steps run in
# Windows (`wsl --update`, `winver`, mklink), not DLLs, %PATH% or the `where` command (the English word is fine)
WSL_WINDOWS_ONLY = re.compile(r"\.dll\b|%PATH%|`where ", re.IGNORECASE)
PLATFORMS = ("linux", "windows", "container", "wsl2")
OTHER_PLATFORM = {"windows": LINUX_ONLY, "linux": WINDOWS_ONLY, "container": WINDOWS_ONLY, "wsl2": WSL_WINDOWS_ONLY}


def explain_as_user(case: dict, facts: dict):
    """--platform only when the log itself carries no sign of its platform (a container is Linux)."""
    result = diagnose.explain(case["log"], facts)
    platform = {"container": "linux"}.get(case.get("platform"), case.get("platform"))
    if not result.context.platform and platform in ("windows", "wsl1", "wsl2", "linux"):
        result = diagnose.explain(case["log"], facts, platform=platform)
    return result


_WORD = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*")
LOOSE_GAP = 3


def key_in_fix(key, fix: str, loose: bool = False) -> bool:
    """The key as a substring of the fix (any case); loose: its words in order, at most LOOSE_GAP words apart."""
    key, fix = str(key).lower(), fix.lower()  # YAML may read 1.28 as a number
    if key in fix:
        return True
    if not loose:
        return False
    want, words = _WORD.findall(key), _WORD.findall(fix)
    if not want:
        return False
    for start in (i for i, w in enumerate(words) if w == want[0]):
        at, ok = start, True
        for w in want[1:]:
            nxt = next((j for j in range(at + 1, min(at + 2 + LOOSE_GAP, len(words))) if words[j] == w), None)
            if nxt is None:
                ok = False
                break
            at = nxt
        if ok:
            return True
    return False


def judge(case: dict, facts: dict, loose: bool = False) -> tuple[str, str]:
    """(the top finding's id or "nothing", why it is wrong: "" when right)."""
    result = explain_as_user(case, facts)
    if not result.findings:
        return "nothing", "nothing recognised"
    top = result.findings[0]
    if top.id != case["cause"]:
        return top.id, f"wrong cause (then: {', '.join(f.id for f in result.findings[1:]) or 'nothing'})"
    if not top.evidence:
        return top.id, "the finding quotes no lines it relied on"
    if not any(key_in_fix(key, top.fix, loose) for key in case["keys"]):
        return top.id, f"fix lacks {case['keys']}: {top.fix}"
    other = OTHER_PLATFORM.get(case["platform"])
    wrong = other.search(top.fix + " " + top.tfenv) if other else None
    return top.id, (f"other platform's advice: {wrong.group(0)!r}" if wrong else "")
