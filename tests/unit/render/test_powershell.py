"""Every PowerShell script tfenv commits or renders, checked where there is no PowerShell: it parses with
tree-sitter's PowerShell grammar to zero ERROR/MISSING nodes, and the 5.1 pitfall linter finds nothing.

The committed set is globbed (wsl/*/*.ps1, windows/*/*.ps1), so a new folder of scripts is covered
without editing this file. Nothing here has run on Windows: the grammar is not PowerShell's own parser.
"""

from __future__ import annotations

import re
import sys

import pytest

from builder.matrix import validate
from builder.render import dockerfiles, windows, wsl
from tests.helpers import ROOT
from tests.unit.powershell_lint import lint, mask

COMMITTED = sorted(p for pattern in ("wsl/*/*.ps1", "windows/*/*.ps1") for p in ROOT.glob(pattern))


def _rendered() -> list[tuple[str, str]]:
    m = validate.load(ROOT / "matrix.yaml")
    rendered = wsl.render_all(m) + windows.render_all(m)  # windows: what `tfenv windows ENV -o FILE` writes
    return [(r.relpath, r.text) for r in rendered if r.relpath.endswith(".ps1")]


SCRIPTS = [(p.relative_to(ROOT).as_posix(), p.read_bytes().decode("utf-8")) for p in COMMITTED]
SCRIPTS += [(f"rendered:{name}", text) for name, text in _rendered()]


@pytest.fixture(scope="module")
def parser():
    try:
        import tree_sitter
        import tree_sitter_powershell
    except ImportError:
        if sys.version_info < (3, 10):
            pytest.skip("tree-sitter-powershell publishes wheels for Python 3.10+ only")
        pytest.fail("tree-sitter-powershell is not installed: pip install -e '.[dev]'")
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_powershell.language()))


def parse_errors(parser, text: str) -> list[str]:
    """Each ERROR or MISSING node as 'line:column: text'."""
    problems, stack = [], [parser.parse(text.encode("utf-8")).root_node]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            row, col = node.start_point
            kind = "missing" if node.is_missing else "error"
            problems.append(f"{row + 1}:{col + 1}: {kind} {node.text.decode('utf-8', 'replace')[:60]!r}")
        stack.extend(node.children)
    return problems


def test_scripts_are_found():
    assert any(name.startswith("wsl/") for name, _ in SCRIPTS)
    assert any(name.startswith("rendered:") for name, _ in SCRIPTS)


@pytest.mark.parametrize("name, text", SCRIPTS, ids=[name for name, _ in SCRIPTS])
def test_parses_without_errors(parser, name, text):
    assert parse_errors(parser, text) == []


def test_parser_reports_what_it_misreads(parser):
    """The check can fail: an unquoted native argument like this one is an ERROR node for the grammar."""
    assert parse_errors(parser, "$t = & $smi --query-gpu=driver_version --format=csv,noheader\n")
    assert parse_errors(parser, "$t = & $smi '--query-gpu=driver_version' '--format=csv,noheader'\n") == []


@pytest.mark.parametrize("name, text", SCRIPTS, ids=[name for name, _ in SCRIPTS])
def test_no_windows_powershell_51_pitfalls(name, text):
    assert [str(f) for f in lint(text)] == []


@pytest.mark.parametrize("name, text", SCRIPTS, ids=[name for name, _ in SCRIPTS])
def test_crlf_and_ascii(name, text):
    """Committed and rendered alike: CRLF line ends (.gitattributes) and ASCII (5.1 reads BOM-less as ANSI)."""
    assert text.isascii()
    assert text.count("\n") == text.count("\r\n") > 0


def _kind(name: str) -> str:
    return "windows" if name.split(":")[-1].startswith("windows/") else "wsl"


@pytest.mark.parametrize("name, text", SCRIPTS, ids=[name for name, _ in SCRIPTS])
def test_exit_codes_come_from_their_one_table(name, text):
    """builder/templates/KIND/exit-codes.yaml is the one list: the script's $Exit table and its help are
    rendered from it, the code uses only its names (no literal codes), and 1 is left to PowerShell."""
    table = dockerfiles.exit_codes(_kind(name))
    text = text.replace("\r\n", "\n")
    block = re.search(r"^\$Exit = @\{\n(.*?)\n\}$", text, re.S | re.M).group(1)
    assert [tuple(line.strip().split(" = ")) for line in block.splitlines()] == \
        [(row["name"], str(row["code"])) for row in table]
    help_rows = re.findall(r"^      (\d+) +(.+)$", text.split("Exit codes:", 1)[1].split(".PARAMETER", 1)[0], re.M)
    assert help_rows == [(str(row["code"]), row["meaning"]) for row in table]
    code = mask(text)
    used = set(re.findall(r"\$Exit\.(\w+)", code))
    names = {row["name"] for row in table}
    assert used <= names, used - names
    assert used == names - {"PowerShell"}, names - used  # every documented outcome is reachable in the code
    assert not re.search(r"(?i)\bexit\s+\d|-Code\s+\d", code)
    assert next(row for row in table if row["code"] == 1)["name"] == "PowerShell"


@pytest.mark.parametrize("kind", ["windows", "wsl"])
def test_readme_lists_each_scripts_exit_codes(kind):
    """The README's table of each script is its exit-codes.yaml, row for row."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    marker = f"<!-- exit codes of {kind}/ENV/setup.ps1 -->"
    assert marker in readme
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", readme.split(marker, 1)[1].split("\n\n", 2)[1], re.M)
    assert rows == [(str(r["code"]), r["meaning"]) for r in dockerfiles.exit_codes(kind)]
