"""Every sentence explain prints goes through builder.diagnose.i18n.t as a whole message: with a pseudo
language that brackets each message, every title, cause, fix and tfenv line of every corpus finding (and the
report around them) is made of bracketed messages and the separators between them only. And no message in the
rules is split inside a word across two string literals (an old rewrap did that)."""

from __future__ import annotations

import io
import re
import tokenize

import pytest
import yaml

from builder import diagnose
from builder.diagnose import i18n
from builder.matrix.facts import facts_from_matrix
from tests.helpers import ROOT, UNIT, matrix

CORPUS = sorted((UNIT / "explain_corpus").glob("[0-9]*.yaml"))
INNERMOST = re.compile("\u27e6[^\u27e6\u27e7]*\u27e7")
SEPARATORS = re.compile(r"^[\s;:.,()\[\]0-9]*$")


class Bracketing(dict):
    def get(self, msgid, default=None):
        return "\u27e6" + msgid + "\u27e7"


@pytest.fixture
def pseudo():
    i18n.CATALOGS["xx"] = Bracketing()
    i18n.set_language("xx")
    yield
    i18n.set_language("en")
    del i18n.CATALOGS["xx"]


def _outside_messages(text):
    while INNERMOST.search(text):
        text = INNERMOST.sub("", text)
    return text


def test_english_is_the_message_itself():
    assert i18n.t("CUDA {cuda} is there.", cuda="10.2") == "CUDA 10.2 is there."
    i18n.set_language("no-such-language")
    assert i18n.language() == "en"


def test_every_printed_sentence_is_a_message(pseudo):
    facts = facts_from_matrix(matrix())
    seen = 0
    for path in CORPUS:
        case = yaml.safe_load(path.read_text(encoding="utf-8"))
        result = diagnose.explain(case["log"], facts)
        for f in result.findings:
            for field in (f.title, f.cause, f.fix, f.tfenv):
                rest = _outside_messages(field)
                assert SEPARATORS.match(rest), (path.name, f.id, field)
                seen += 1
        report = diagnose.format_text(result, width=10_000)
        for line in report.splitlines()[1:]:
            body = re.sub(r"^\s*\d+\. ", "", line)
            body = re.sub(r" \[[a-z0-9-]+\]$", "", body)
            assert SEPARATORS.match(_outside_messages(body)), (path.name, line)
    assert seen > 500


def _split_words():
    """Adjacent string literals where one ends and the next begins with a letter: a word cut in two."""
    found = []
    for path in sorted((ROOT / "builder" / "diagnose").rglob("*.py")):
        tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline))
        strings = [tok for tok in tokens if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
                                                              tokenize.INDENT, tokenize.DEDENT)]
        for a, b in zip(strings, strings[1:]):
            if a.type == b.type == tokenize.STRING:
                left, right = _body(a.string), _body(b.string)
                if left and right and left[-1].isalpha() and right[0].isalpha():
                    found.append(f"{path.name}:{a.start[0]}: {left[-20:]!r} + {right[:20]!r}")
    return found


def _body(literal):
    quote = literal.lstrip("rbfuRBFU")[:1]
    return literal.lstrip("rbfuRBFU").strip(quote)


def test_no_message_is_cut_inside_a_word():
    assert _split_words() == []
