"""How a catalogue entry is made: a message's pattern and the literals the parser scans for first.

The catalogues (builder.diagnose.patterns, patterns_wsl) list (kind, pattern(...)) pairs; builder.diagnose.parse
finds each needle with str.find and runs the pattern on those lines only.
"""

import re

_META = re.compile(r"[\\.^$*+?{}\[\]|()]")


def pattern(pattern, *needles, **options):
    """A pattern and the literals one of which its line must contain (default: the pattern's literal start).
    The text is scanned for needles with str.find and the pattern runs on those lines only; span=N lets a
    match run on into the next N lines (True: one; a paste that wrapped the message)."""
    if not needles:
        literal = pattern[: _META.search(pattern).start()] if _META.search(pattern) else pattern
        if len(literal) < 4:
            raise ValueError("name the needles of " + pattern)
        needles = (literal,)
    return re.compile(pattern), needles, int(options.get("span") or 0)
