"""How a real log is scored against `tfenv explain`: one home for the corpus test and the held-out benchmark.

A case (a YAML file: platform, cause, keys, log) is right when explain, run as a user would, puts the labelled
cause first with the lines it relied on, its fix names one of the case's keys (words of the thread's working
fix), and its advice carries no other platform's commands (no Linux loader advice for Windows, no DLL advice
for Linux)."""

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


def judge(case: dict, facts: dict) -> tuple[str, str]:
    """(the top finding's id or "nothing", why it is wrong: "" when right)."""
    result = explain_as_user(case, facts)
    if not result.findings:
        return "nothing", "nothing recognised"
    top = result.findings[0]
    if top.id != case["cause"]:
        return top.id, f"wrong cause (then: {', '.join(f.id for f in result.findings[1:]) or 'nothing'})"
    if not top.evidence:
        return top.id, "the finding quotes no lines it relied on"
    if not any(str(key).lower() in top.fix.lower() for key in case["keys"]):  # YAML may read 1.28 as a number
        return top.id, f"fix lacks {case['keys']}: {top.fix}"
    other = OTHER_PLATFORM.get(case["platform"])
    wrong = other.search(top.fix + " " + top.tfenv) if other else None
    return top.id, (f"other platform's advice: {wrong.group(0)!r}" if wrong else "")
