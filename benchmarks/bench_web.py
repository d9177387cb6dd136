"""The explain site's figures: its size (raw and gzipped, target <= 8 MB gzipped) and, in headless Chromium on
this machine, page load to the first answer from a cold profile (target <= 3 s) and one explain in the worker
(target <= 100 ms). Builds the site with `tfenv web`, drives it with tests/web/page.test.mjs (paste, a UTF-16
file, the options, the language switch), runs that RUNS times, each with a fresh browser profile and no cache.
Prints and saves benchmarks/results/web.json. Needs `npm ci` and Debian's chromium.

    PYTHONPATH=. python benchmarks/bench_web.py [--runs 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.web import cases  # noqa: E402

TARGETS = {"gzipped_mb": 8.0, "first_answer_s": 3.0, "explain_ms": 100.0}


def sizes(site: Path) -> dict:
    files = [p for p in site.rglob("*") if p.is_file()]
    raw = sum(p.stat().st_size for p in files)
    packed = {str(p.relative_to(site)): len(gzip.compress(p.read_bytes(), 9)) for p in files}
    biggest = dict(sorted(packed.items(), key=lambda kv: -kv[1])[:5])
    return {"files": len(files), "raw_mb": round(raw / 1e6, 2), "gzipped_mb": round(sum(packed.values()) / 1e6, 2),
            "largest_gzipped_bytes": biggest}


def browser_run(site: Path, expected: Path, folder: Path, i: int) -> dict:
    timings = folder / f"timings-{i}.json"
    env = {**os.environ, "TFENV_SITE": str(site), "TFENV_EXPECTED": str(expected), "TFENV_TIMINGS": str(timings),
           "TFENV_SCREENSHOT": str(folder / "page.png"), "PYTHON": sys.executable}
    run = subprocess.run(["node", "--test", str(ROOT / "tests/web/page.test.mjs")], env=env, capture_output=True,
                         text=True, timeout=300)
    if run.returncode != 0:
        sys.exit(f"bench_web: the page test failed:\n{(run.stdout + run.stderr)[-3000:]}")
    return json.loads(timings.read_text(encoding="utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tfenv-bench-web-") as tmp:
        folder = Path(tmp)
        site = folder / "site"
        build = subprocess.run([sys.executable, "-m", "builder.cli", "web", "--out", str(site)], cwd=ROOT,
                               capture_output=True, text=True)
        if build.returncode != 0:
            sys.exit(f"bench_web: tfenv web failed: {build.stderr.strip()}")
        expected = folder / "expected.json"
        cases.write_expected(expected)
        runs = [browser_run(site, expected, folder, i) for i in range(args.runs)]
        size = sizes(site)
    explains = [ms for r in runs for ms in r["explain_ms"]]
    result = {
        "site": size,
        "runs": args.runs,
        "ready_s_median": round(statistics.median(r["ready_ms"] for r in runs) / 1000, 2),
        "worker_pyodide_s_median": round(statistics.median(r["worker_runtime_ms"] for r in runs) / 1000, 2),
        "worker_ready_s_median": round(statistics.median(r["worker_boot_ms"] for r in runs) / 1000, 2),
        "first_answer_s_median": round(statistics.median(r["first_answer_ms"] for r in runs) / 1000, 2),
        "first_answer_s_max": round(max(r["first_answer_ms"] for r in runs) / 1000, 2),
        "explain_ms_median": round(statistics.median(explains), 1),
        "explain_ms_max": round(max(explains), 1),
        "explains": len(explains),
        "targets": TARGETS,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "chromium": subprocess.run(["/usr/bin/chromium", "--version"], capture_output=True,
                                               text=True).stdout.strip()},
    }
    out = ROOT / "benchmarks" / "results" / "web.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
