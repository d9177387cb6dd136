"""tfenv explain on the corpus of real failure logs (tests/explain_corpus/, index in SOURCES.md): for each log,
the top finding names the cause the thread found, its fix mentions the key of the thread's fix, and the
advice is right for the log's platform (no Linux loader advice for Windows, no DLL advice for Linux)."""

from __future__ import annotations

import re

import pytest
import yaml

from builder import diagnose
from builder.diagnose import rules
from builder.matrix.facts import facts_from_matrix
from tests.helpers import UNIT, matrix

CORPUS = UNIT / "explain_corpus"
FILES = sorted(p for p in CORPUS.glob("[0-9]*.yaml"))
KEYS = yaml.safe_load((CORPUS / "keys.yaml").read_text(encoding="utf-8"))
LINUX_ONLY = re.compile(r"LD_LIBRARY_PATH|ldconfig|ln -s|\bapt(-get)?\b")
WINDOWS_ONLY = re.compile(r"\.dll\b|%PATH%|C:\\|\bwhere\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


def _explain(case, facts):
    """As a user would run it; --platform only when the log itself carries no sign of its platform."""
    result = diagnose.explain(case["log"], facts)
    if not result.context.platform and case.get("platform") in ("windows", "wsl1", "wsl2", "linux"):
        result = diagnose.explain(case["log"], facts, platform=case["platform"])
    return result


def test_corpus_is_complete():
    assert len(FILES) >= 40
    assert set(KEYS) == {p.stem for p in FILES}, "every corpus log needs its fix key in keys.yaml"
    causes = {yaml.safe_load(p.read_text(encoding="utf-8"))["cause"] for p in FILES}
    assert causes <= set(rules.IDS)


@pytest.mark.parametrize("path", FILES, ids=[p.stem[:40] for p in FILES])
def test_corpus_log(path, facts):
    case = yaml.safe_load(path.read_text(encoding="utf-8"))
    result = _explain(case, facts)
    assert result.findings, "nothing recognised"
    top = result.findings[0]
    assert top.id == case["cause"], [f.id for f in result.findings]
    assert top.evidence, "a finding quotes the lines it relied on"
    advice = top.fix + " " + top.tfenv
    assert any(key.lower() in top.fix.lower() for key in KEYS[path.stem]), top.fix
    if case["platform"] == "windows":
        assert not LINUX_ONLY.search(advice), advice
    elif case["platform"] in ("linux", "container", "wsl2"):
        assert not WINDOWS_ONLY.search(advice), advice
