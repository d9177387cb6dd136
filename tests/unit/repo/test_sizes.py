"""The house's sizes: no module of builder/ over 400 lines, no function over 60 (a room that says what it
holds stays small enough to read whole)."""

from __future__ import annotations

import ast

from tests.helpers import ROOT

MAX_MODULE, MAX_FUNCTION = 400, 60
MODULES = sorted((ROOT / "builder").rglob("*.py"))


def test_no_module_over_400_lines():
    sizes = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES}
    big = {path: lines for path, lines in sizes.items() if lines > MAX_MODULE}
    assert not big, f"split these (lines): {big}"


def test_no_function_over_60_lines():
    long = {}
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert not long, f"split these (lines): {long}"


def test_the_checks_see_the_package():
    assert len(MODULES) > 50 and any(p.name == "cli.py" for p in MODULES)
