"""`tfenv explain` on the blind held-out logs (benchmarks/explain_heldout/): a score, not a test.

48 real logs, 12 per platform (linux, windows, container, wsl2), gathered from public threads by a helper who
never saw the rules or the corpus (index.tsv: file, source, cause, platform). Do not tune rules on them: a
score means something only while nobody has; a new blind score needs a freshly gathered set.

A case is right when the top finding is the labelled cause, its fix names one of the case's keys and the advice
carries no other platform's commands: the checks of tests/unit/diagnose/test_explain_corpus.py. Two scores for
WSL 2: `strict` forbids any Windows path in its advice (the rule the set was gathered with), `corpus` takes the
corpus test's WSL rule, which allows the Windows-side steps a WSL 2 fix needs (the driver's lxss\\lib folder).

    PYTHONPATH=. python benchmarks/bench_explain_heldout.py [--json] [--misses]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from builder import diagnose  # noqa: E402
from builder.matrix import validate  # noqa: E402
from builder.matrix.facts import facts_from_matrix  # noqa: E402

HELDOUT = Path(__file__).resolve().parent / "explain_heldout"
PLATFORMS = ("linux", "windows", "container", "wsl2")
LINUX_ONLY = re.compile(r"LD_LIBRARY_PATH|ldconfig|ln -s|\bapt(-get)?\b")
WINDOWS_ONLY = re.compile(r"\.dll\b|%PATH%|C:\\|\bwhere\b", re.IGNORECASE)
WSL_WINDOWS_ONLY = re.compile(r"\.dll\b|%PATH%|`where ", re.IGNORECASE)  # the corpus test's WSL 2 rule


def explain(case: dict, facts: dict):
    """As a user would run it: --platform only when the log itself carries no sign of its platform."""
    result = diagnose.explain(case["log"], facts)
    if not result.context.platform and case["platform"] in ("windows", "wsl2", "linux"):
        result = diagnose.explain(case["log"], facts, platform=case["platform"])
    return result


def judge(case: dict, facts: dict, wsl_rule: str) -> tuple[bool, str, str]:
    """(right, the top finding's id, why not)."""
    result = explain(case, facts)
    if not result.findings:
        return False, "nothing", "nothing recognised"
    top = result.findings[0]
    if top.id != case["cause"]:
        return False, top.id, "wrong cause"
    if not any(key.lower() in top.fix.lower() for key in case["keys"]):
        return False, top.id, f"fix lacks {case['keys']}"
    advice = top.fix + " " + top.tfenv
    other = {"windows": LINUX_ONLY, "linux": WINDOWS_ONLY, "container": WINDOWS_ONLY,
             "wsl2": WSL_WINDOWS_ONLY if wsl_rule == "corpus" else WINDOWS_ONLY}[case["platform"]]
    wrong = other.search(advice)
    return (False, top.id, f"other platform's advice: {wrong.group(0)!r}") if wrong else (True, top.id, "")


def score(wsl_rule: str) -> dict:
    facts = facts_from_matrix(validate.load())
    table: dict = {p: {"right": 0, "total": 0} for p in PLATFORMS}
    misses = []
    for platform in PLATFORMS:
        for path in sorted((HELDOUT / platform).glob("*.yaml")):
            case = yaml.safe_load(path.read_text(encoding="utf-8"))
            right, got, why = judge(case, facts, wsl_rule)
            table[platform]["total"] += 1
            table[platform]["right"] += right
            if not right:
                misses.append({"case": f"{platform}/{path.name}", "expected": case["cause"], "got": got, "why": why})
    right = sum(t["right"] for t in table.values())
    total = sum(t["total"] for t in table.values())
    return {"wsl_rule": wsl_rule, "platforms": table, "right": right, "total": total, "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list the cases it gets wrong")
    args = parser.parse_args()
    results = [score("strict"), score("corpus")]
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for res in results:
        cells = ", ".join(f"{p} {t['right']}/{t['total']}" for p, t in res["platforms"].items())
        print(f"{res['wsl_rule']:>6}: {res['right']}/{res['total']} ({cells})")
        for miss in res["misses"] if args.misses else ():
            print(f"        {miss['case']}: expected {miss['expected']}, got {miss['got']} ({miss['why']})")


if __name__ == "__main__":
    main()
