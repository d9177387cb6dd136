"""`tfenv explain` on the held-out logs (benchmarks/explain_heldout*/): a score, not a test.

Each set is real logs from public threads outside the corpus, gathered by a helper who never saw the rules or
the corpus, one folder per platform (linux, windows, container, wsl2; index.tsv: file, source, cause,
platform). A set is blind only until its first score has been read: set 1 (explain_heldout/, 48 logs) has
been seen and tuned around since; set 2 (explain_heldout2/, 60 logs) was scored blind before and after the
second round of tuning. A new blind score needs a freshly gathered set.

A case is scored as the corpus test scores one (tests/unit/diagnose/explain_scoring.py): that is the figure.
Beside it, labelled "loose", the same with a key counted when its words come in the fix in order, a few words
apart (explain_scoring.key_in_fix): how many misses are only the fix's wording against the thread's.

    PYTHONPATH=. python benchmarks/bench_explain_heldout.py [--set explain_heldout2] [--json] [--misses]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from builder.matrix import validate  # noqa: E402
from builder.matrix.facts import facts_from_matrix  # noqa: E402
from tests.unit.diagnose.explain_scoring import PLATFORMS, judge  # noqa: E402


def score(folder: Path, facts: dict) -> dict:
    table: dict = {p: {"right": 0, "loose": 0, "total": 0} for p in PLATFORMS}
    misses = []
    for platform in PLATFORMS:
        for path in sorted((folder / platform).glob("*.yaml")):
            case = yaml.safe_load(path.read_text(encoding="utf-8"))
            got, wrong = judge(case, facts)
            table[platform]["total"] += 1
            table[platform]["right"] += not wrong
            table[platform]["loose"] += not judge(case, facts, loose=True)[1]
            if wrong:
                misses.append({"case": f"{platform}/{path.name}", "expected": case["cause"], "got": got, "why": wrong})
    right = sum(t["right"] for t in table.values())
    loose = sum(t["loose"] for t in table.values())
    total = sum(t["total"] for t in table.values())
    return {"set": folder.name, "platforms": table, "right": right, "loose": loose, "total": total, "misses": misses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", help="a folder under benchmarks/ (default: every explain_heldout*)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="list the cases it gets wrong")
    args = parser.parse_args()
    folders = [HERE / name for name in args.set] if args.set else sorted(HERE.glob("explain_heldout*/"))
    facts = facts_from_matrix(validate.load())
    results = [score(folder, facts) for folder in folders]
    if args.json:
        print(json.dumps(results, indent=1))
        return
    for res in results:
        cells = ", ".join(f"{p} {t['right']}/{t['total']}" for p, t in res["platforms"].items())
        loose = ", ".join(f"{p} {t['loose']}" for p, t in res["platforms"].items())
        print(f"{res['set']}: {res['right']}/{res['total']} ({cells}); loose {res['loose']} ({loose})")
        for miss in res["misses"] if args.misses else ():
            print(f"    {miss['case']}: expected {miss['expected']}, got {miss['got']} ({miss['why']})")


if __name__ == "__main__":
    main()
