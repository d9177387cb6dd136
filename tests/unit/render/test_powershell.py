"""Every PowerShell script tfenv commits or renders, checked where there is no PowerShell: it parses with
tree-sitter's PowerShell grammar to zero ERROR/MISSING nodes, and the 5.1 pitfall linter finds nothing.

The committed set is globbed (wsl/*/*.ps1, windows/*/*.ps1), so a new folder of scripts is covered
without editing this file. Nothing here has run on Windows: the grammar is not PowerShell's own parser.
"""

from __future__ import annotations

import sys

import pytest

from builder.matrix import validate
from builder.render import windows, wsl
from tests.helpers import ROOT
from tests.unit.powershell_lint import lint

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
