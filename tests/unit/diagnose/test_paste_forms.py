"""Metamorphic test: a log keeps its verdict however it was pasted.

Every scored corpus log (tests/unit/explain_corpus/) is put through each form of paste_forms.FORMS, the way a real
tool changes a log on its way to `tfenv explain` (each form's docstring names the tool: GitHub/e-mail quoting,
Markdown fences and bullets, xterm/tmux hard wraps at 80 and 120 columns with and without a trailing `\\`, the
legacy Windows console's padded 80-column copy, Windows PowerShell 5.1's `Out-File -Width 80` in UTF-16, CRLF,
tqdm/Keras `\\r` progress bars, ANSI colours, UTF-8 BOMs, NBSP and zero-width spaces of web copies, tab
indentation, a notebook's .ipynb JSON output and IPython's rendered traceback, Colab's `!python`, Python's
logging prefix, `docker compose` / `docker logs -t` / CRI / journald prefixes, logfmt `msg="..."` per line and as
one escaped message, a log pasted twice or after 2,000 lines of training output, Chinese text around it and the
GBK file of a Chinese Windows console). The transformed case is scored with explain_scoring.judge, as the corpus
test scores the original: same cause first, a fix with one of its keys, no other platform's advice. The
program-message catalogue (program_messages/*.yaml), in the paste test_program_messages.py puts it in, goes through
the same forms.

A form applies to the platforms its tool runs on (paste_forms.WHERE: no compose prefix on a Windows log).
KNOWN lists a (form, log) that still changes verdict, with the reason; a listed pair that passes fails the test,
so the list only shrinks."""

from __future__ import annotations

import pytest

from tests.unit.diagnose.explain_scoring import judge
from tests.unit.diagnose.paste_forms import ALL, FORMS, WHERE
from tests.unit.diagnose.test_explain_corpus import CASES, facts  # noqa: F401  (the fixture)
from tests.unit.diagnose.test_program_messages import ENTRIES, in_context

KNOWN = {}  # (form, corpus log): why it still changes verdict; none at present


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.__name__)
def test_a_paste_keeps_the_verdict(form, facts):  # noqa: F811
    changed, fixed = [], []
    for stem, case in CASES.items():
        if case["platform"] not in WHERE.get(form.__name__, ALL):
            continue
        got, why = judge(dict(case, log=form(case["log"])), facts)
        known = (form.__name__, stem) in KNOWN
        if why and not known:
            changed.append(f"{stem}: {got}: {why[:160]}")
        elif known and not why:
            fixed.append(stem)
    assert not changed, "\n".join(changed)
    assert not fixed, f"no longer changes verdict, remove from KNOWN: {fixed}"


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.__name__)
def test_a_catalogued_message_keeps_its_verdict_in_a_paste(form, facts):  # noqa: F811
    """The program-message catalogue (program_messages/*.yaml) in its platform's paste, put through each form."""
    changed = []
    for area, number, entry in ENTRIES:
        if entry["platform"] in WHERE.get(form.__name__, ALL):
            got, why = judge(dict(entry, log=form(in_context(entry))), facts)
            if why:
                changed.append(f"{area}-{number}: {entry['message'][:80]!r}: {got}: {why[:120]}")
    assert not changed, "\n".join(changed)


def test_every_form_names_its_tool():
    for form in FORMS:
        assert form.__doc__ and len(form.__doc__.split()) >= 8, form.__name__
