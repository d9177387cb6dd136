"""`tfenv init` then `tfenv lock` on the blind held-out projects (benchmarks/project_heldout/): a score, not a test.

12 real public projects' requirement files, byte for byte as published, that nobody tuning builder/project/ has
read; expected.yaml says what their user should get. Each is copied into a temporary folder and run as a user
would (`tfenv init`, with `--requirements` where the file is not where init looks, then `tfenv lock`). A project
"locks" when both exit 0 and tfenv.lock names no TensorFlow distribution; otherwise it is "refused", and the one
line is shown. Resolution needs the pip index (minutes). Do not tune on these projects: a new blind score needs
a freshly gathered set.

    PYTHONPATH=. python benchmarks/bench_project_heldout.py [--ca-cert FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from builder.project.family import is_tensorflow  # noqa: E402
from builder.render import lock as lock_file  # noqa: E402

HELDOUT = Path(__file__).resolve().parent / "project_heldout"
RESULTS = Path(__file__).resolve().parent / "results" / "project-heldout.json"


def tfenv(folder: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "builder.cli", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=900)


def outcome(slug: str, expected: dict, env: dict) -> dict:
    with tempfile.TemporaryDirectory(prefix="tfenv-heldout-") as tmp:
        folder = Path(tmp) / slug
        shutil.copytree(HELDOUT / slug, folder, ignore=shutil.ignore_patterns("meta.yaml"))
        given = ["--requirements", expected["requirements"]] if "requirements" in expected else []
        init = tfenv(folder, "init", *given, env=env)
        said = init.stdout.strip().splitlines()[:1]
        if init.returncode != 0:
            return {"got": "refused", "at": "init", "line": init.stderr.strip()}
        lock = tfenv(folder, "lock", env=env)
        if lock.returncode != 0:
            return {"got": "refused", "at": "lock", "line": lock.stderr.strip(), "init": said}
        tf = any(is_tensorflow(name) for name, _ in lock_file.parse(folder / "tfenv.lock").pins)
        return {"got": "tf in lock" if tf else "locks", "init": said}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ca-cert", help="a CA bundle for the resolver behind a TLS-inspecting proxy")
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if args.ca_cert:
        env["TFENV_CA_CERT"] = args.ca_cert
    expected = yaml.safe_load((HELDOUT / "expected.yaml").read_text(encoding="utf-8"))
    rows = {}
    for slug, want in expected.items():
        rows[slug] = dict(outcome(slug, want, env), expected=want["expect"])
        row = rows[slug]
        print(f"{slug:28} expected {row['expected']:8} got {row['got']:8} {row.get('line', '')[:150]}")
    in_matrix = [r for r in rows.values() if r["expected"] == "locks"]
    summary = {"locks": sum(r["got"] == "locks" for r in rows.values()), "projects": len(rows),
               "locks_of_those_expected_to": sum(r["got"] == "locks" for r in in_matrix),
               "expected_to_lock": len(in_matrix),
               "as_expected": sum(r["got"] == r["expected"] for r in rows.values())}
    print(json.dumps(summary))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"summary": summary, "projects": rows}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
