"""README's "Where things are" names every module of builder/ (a rule's file, a suite's check and a doctor check
aside: their folders are named, one file each), so a newcomer finds the room before the code."""

from __future__ import annotations

import re

from tests.helpers import ROOT

FOLDERS_OF_ONE_KIND = ("rules", "suites", "checks", "templates")


def where_things_are() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("### Where things are")
    opening = text.index("```", start)
    return text[opening: text.index("```", opening + 3)]


def test_the_map_names_every_module():
    block = where_things_are()
    missing = []
    for path in sorted((ROOT / "builder").rglob("*.py")):
        relative = path.relative_to(ROOT / "builder")
        if path.name in ("__init__.py", "__main__.py") or set(relative.parts) & set(FOLDERS_OF_ONE_KIND):
            continue
        if not re.search(r"(?<![\w-])" + re.escape(path.stem) + r"(?![\w-])", block):
            missing.append(str(relative))
    assert not missing, f"add these to README's Where things are: {missing}"


def test_the_map_names_every_wing():
    block = where_things_are()
    wings = [p.name for p in (ROOT / "builder").iterdir() if p.is_dir() and (p / "__init__.py").is_file()]
    assert len(wings) >= 8 and all(f"{name}/" in block for name in wings), wings
