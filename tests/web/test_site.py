"""The built site (`tfenv web`) against the CLI: its Python under Pyodide in node, offline, gives exactly
`tfenv explain`'s output on every corpus log in every language (explain.test.mjs), and the page works in
headless Chromium (page.test.mjs). Needs node and `npm ci`: a failure in CI, a skip elsewhere."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, tfenv
from tests.web import cases

PYODIDE = ROOT / "node_modules" / "pyodide"

def need(ok: bool, why: str) -> None:
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs {why}")
        pytest.skip(f"needs {why}")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    need(shutil.which("node") is not None, "node (Node.js 18+)")
    need(PYODIDE.is_dir(), "node_modules/pyodide (run `npm ci`)")
    out = tmp_path_factory.mktemp("site")
    run = tfenv("web", "--out", str(out))
    assert run.returncode == 0, run.stderr
    return out


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("cases")
    path = folder / "expected.json"
    cases.write_expected(path)
    return path


def offline(command: list) -> list:
    """The command in a network namespace with nothing but loopback (root: unshare -n; else a user namespace)."""
    need(bool(shutil.which("unshare") and shutil.which("ip")), "unshare and ip (util-linux, iproute2)")
    flags = "-n" if os.geteuid() == 0 else "-rn"
    return ["unshare", flags, "sh", "-c", 'ip link set lo up && exec "$@"', "offline", *command]


def test_site_python_under_node_gives_the_cli_output(site, expected):
    env = {**os.environ, "TFENV_SITE": str(site), "TFENV_EXPECTED": str(expected)}
    run = subprocess.run(offline(["node", "--test", "--test-reporter=dot", str(ROOT / "tests/web/explain.test.mjs")]),
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]


def test_page_in_headless_chromium(site, expected, tmp_path):
    need(Path("/usr/bin/chromium").is_file(), "Debian's chromium (apt-get install chromium)")
    need((ROOT / "node_modules" / "playwright-core").is_dir(), "node_modules/playwright-core (run `npm ci`)")
    shot = tmp_path / "page.png"
    env = {**os.environ, "TFENV_SITE": str(site), "TFENV_EXPECTED": str(expected), "PYTHON": sys.executable,
           "TFENV_SCREENSHOT": str(os.environ.get("TFENV_SCREENSHOT") or shot)}
    run = subprocess.run(offline(["node", "--test", "--test-reporter=spec", str(ROOT / "tests/web/page.test.mjs")]),
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert Path(env["TFENV_SCREENSHOT"]).stat().st_size > 10000


def test_site_files(site):
    """The page loads nothing from elsewhere and carries Pyodide's licence notice and the precompiled stdlib."""
    import html
    import zipfile

    page = html.unescape((site / "index.html").read_text(encoding="utf-8"))
    assert "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'" in page
    assert "://" not in page.replace("https://github.com/", "")  # no link or script of another site
    assert "Mozilla Public License 2.0" in (site / "pyodide" / "LICENSE.txt").read_text(encoding="utf-8")
    names = zipfile.ZipFile(site / "pyodide" / "python_stdlib.zip").namelist()
    assert "json/__init__.pyc" in names and not [n for n in names if n.endswith(".py")]
    assert (site / "rules" / "missing-cuda-runtime.html").is_file()


@pytest.mark.parametrize("args", [["--out", ""], ["--out", "OUT", "--pyodide", ""],
                                  ["--out", "OUT", "--source-url", "x"], ["--out", "OUT", "--pyodide", "/etc"]])
def test_bad_options_are_one_line_and_write_nothing(tmp_path, args):
    before = sorted(tmp_path.iterdir())
    run = tfenv("web", *[str(tmp_path / a) if a == "OUT" else a for a in args], cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert sorted(tmp_path.iterdir()) == before


def test_missing_pyodide_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "site"
    run = tfenv("web", "--out", str(out), "--pyodide", str(tmp_path / "none"))
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "no Pyodide in" in run.stderr and "npm ci" in run.stderr
    assert not out.exists()


def test_rule_pages_quote_real_lines_and_cite_them(site):
    """Every rule page (each language) quotes only whole lines of the corpus logs it cites; the index lists it."""
    import html
    import re

    import yaml

    logs = {}
    for path in cases.CORPUS.glob("[0-9]*.yaml"):
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        logs.setdefault(case["source"], set()).update(case["log"].split("\n"))
    english = sorted(p.name for p in (site / "rules").glob("*.html"))
    assert len(english) >= 20
    # zh-CN: a page for every rule its catalogue translates, which the i18n tests require of every rule
    assert sorted(p.name for p in (site / "zh-CN" / "rules").glob("*.html")) == english
    for folder in (site / "rules", site / "zh-CN" / "rules"):
        pages = sorted(p for p in folder.glob("*.html") if p.name != "index.html")
        index = (folder / "index.html").read_text(encoding="utf-8")
        for page in pages:
            text = page.read_text(encoding="utf-8")
            assert f'href="{page.name}"' in index
            quoted = re.findall(r'<pre class="rule-lines">(.*?)</pre>\s*<p>[^<]*<a href="([^"]+)"', text, re.S)
            assert quoted, page
            for lines, url in quoted:
                assert set(html.unescape(lines).split("\n")) <= logs[html.unescape(url)], (page, url)
