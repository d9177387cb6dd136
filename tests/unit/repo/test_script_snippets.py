"""The Python one-liners that .ci/run and scripts/ run (`python -c '...'`) still work against today's code: a
moved name there breaks CI and the quick start before any test runs, and nothing else imports them."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

SCRIPTS = [ROOT / ".ci" / "run", *sorted((ROOT / "scripts").iterdir())]
SNIPPET = re.compile(r"\bpython3? -c '([^']+)'")
SNIPPETS = [(p.relative_to(ROOT).as_posix(), code) for p in SCRIPTS if p.is_file()
            for code in SNIPPET.findall(p.read_text(encoding="utf-8", errors="replace"))]


def test_the_scripts_have_snippets_to_check():
    assert any(path == ".ci/run" for path, _ in SNIPPETS)


@pytest.mark.parametrize("path,code", SNIPPETS, ids=[f"{p}:{c[:30]}" for p, c in SNIPPETS])
def test_snippet_runs(path, code):
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (path, done.stderr[-500:])
    assert done.stdout.strip(), (path, "printed nothing")
