"""One tolerant parser for TensorFlow logs, tracebacks and pasted console sessions.

Every message is found by a pattern that starts with a literal, run over the whole text at once (the
regex engine's literal scan is fast: a 10 MB log takes well under a second), and mapped back to its line
number. Nothing is anchored to the start of a line, so prefixes in real pastes (timestamps, `client_2  |`,
pytest's `E   `, Markdown `> ` quotes and backticks, progress bars glued on with `\\r`) do not matter, and
multi-word phrases allow a line break where a paste wrapped them. Patterns use no nested repetition, and
each kind keeps at most MAX_PER_KIND events, so the work stays linear in the input.

Formats covered: TF 1.x-2.16 (`stream_executor/platform/default/dso_loader.cc`, from 2.10
`compiler/xla/stream_executor/...`, from 2.12 `tsl/...`, from 2.15 `external/local_xla/...`), Linux sonames
and Windows `*64_*.dll` names, "x.dll not found", "Error code 126", `ImportError: DLL load failed`, the
driver diagnostics TF prints after a failed cuInit, nvidia-smi's header, pip's resolver errors.
"""

import bisect
import re
from typing import NamedTuple

from builder.diagnose.paste import unpaste
from builder.diagnose.patterns import KINDS, PATTERNS  # noqa: F401  (KINDS: what the parser knows)

MAX_PER_KIND = 200
# A needle found on more lines than this is noise for this purpose (a log repeating one message): the first
# ones are read, the rest skipped, so that no input makes the parser slow.
MAX_LINES_PER_NEEDLE = 5000
MAX_QUOTE = 240  # characters of a line quoted as evidence

_QUOTES = (("\u2018", "'"), ("\u2019", "'"), ("\u201a", "'"), ("\u201b", "'"), ("\u201c", '"'),
           ("\u201d", '"'), ("\u201e", '"'), ("\u00a0", " "), ("\u2011", "-"),
           ("&quot;", '"'), ("&#39;", "'"), ("&#x27;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"), ("\x00", ""))
_FANCY = re.compile("[\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00a0\u2011\x00]|&(?:quot|#39|#x27|lt|gt|amp);")
_ANSI = re.compile(r"\x1b\[[0-9;]{0,20}[A-Za-z]")
# A paste's own prefixes, removed from quoted lines only: Markdown quotes, compose service names, pytest's E.
_PREFIX = re.compile(r"^(?:\s*>+\s?|\s*`+|[\w.-]{1,60}\s+\|\s|E\s{3})+|`+\s*$")


class Event(NamedTuple):
    kind: str
    line: int  # 1-based line number in the input
    groups: tuple


class Log:
    """What a log says: events by kind, each with its line number, and the text to quote them."""

    def __init__(self, text):
        self.text = text
        self._newlines = [m.start() for m in re.finditer("\n", text)]
        self.line_count = len(self._newlines) + (0 if text.endswith("\n") or not text else 1)
        self.events = {}

    def all(self, kind):
        return self.events.get(kind, [])

    def first(self, kind):
        found = self.events.get(kind)
        return found[0] if found else None

    def has(self, *kinds):
        return any(self.events.get(k) for k in kinds)

    def line_text(self, number):
        """The line, without a paste's prefixes, cut to what follows the last carriage return."""
        start = self._newlines[number - 2] + 1 if number >= 2 else 0
        end = self._newlines[number - 1] if number - 1 < len(self._newlines) else len(self.text)
        line = self.text[start:end].rstrip("\r")
        if "\r" in line:
            line = line.rsplit("\r", 1)[-1]
        if "\x1b" in line:  # colours of a terminal or a notebook
            line = _ANSI.sub("", line)
        line = _PREFIX.sub("", line).strip()
        return line if len(line) <= MAX_QUOTE else line[: MAX_QUOTE - 3] + "..."

    def _line_at(self, offset):
        return bisect.bisect_left(self._newlines, offset) + 1

    # --- what several rules ask -------------------------------------------------------------------

    def failed_libraries(self):
        """Libraries TF could not load, first failure first, each once: [(name, Event)]."""
        seen, out = set(), []
        for kind in ("load_fail", "so_missing", "dll_missing", "file_too_short"):
            for ev in self.all(kind):
                for name in _split_names(ev.groups[0]):
                    key = name.lower()
                    if key not in seen:
                        seen.add(key)
                        out.append((name, ev))
        out.sort(key=lambda item: item[1].line)
        return out

    def opened_libraries(self):
        return list(dict.fromkeys(ev.groups[0] for ev in self.all("opened")))  # in order, once each


def parse(text):
    """Every known message in `text` (a str), as a Log."""
    text = unpaste(normalise(text), WRAP_NEEDLES)
    log = Log(text)
    index = _LineIndex(text, log._newlines)
    for kind, (pattern, needles, span) in PATTERNS:
        found = log.events.setdefault(kind, [])
        if len(found) >= MAX_PER_KIND:
            continue
        for m in _on_lines(text, pattern, index.lines(needles), span):
            groups = tuple(_clean(g) for g in m.groups())
            found.append(Event(kind, log._line_at(m.start()), groups))
            if len(found) >= MAX_PER_KIND:
                break
    for kind in list(log.events):
        if not log.events[kind]:
            del log.events[kind]
        elif len(PATTERNS_BY_KIND[kind]) > 1:
            log.events[kind].sort(key=lambda ev: ev.line)
    _drop_dlerror_duplicates(log)
    return log


class _Lines:
    """Some distinct lines (folded bytes, see _folded) joined into one text, to search a literal in all of them at
    C speed: the hits come back as the lines' slots (their index among the log's distinct lines)."""

    def __init__(self, lines, slots):
        self.text, self.slots, self.offsets, offset = b"\n".join(lines), slots, [], 0
        for line in lines:
            self.offsets.append(offset)
            offset += len(line) + 1

    def slots_with(self, literal, limit=None):
        """The slots of the lines holding `literal` (folded bytes), in order; at most `limit` of them."""
        text, offsets, found = self.text, self.offsets, []
        pos = text.find(literal)
        while pos >= 0 and len(found) != limit:
            index = bisect.bisect_right(offsets, pos)  # the line after the hit's
            found.append(self.slots[index - 1])
            if index >= len(offsets):
                break
            pos = text.find(literal, offsets[index])
        return found


_FOLD = bytes.maketrans(b"123456789", b"000000000")


def _folded(text):
    """`text` as UTF-8 bytes with every digit written 0. A literal in a line is still in the folded line (the fold
    is one character for one), and lines that differ only in their numbers (timestamps, step counters, losses,
    addresses: most lines of a long run) become one line to search."""
    return text.encode("utf-8", "backslashreplace").translate(_FOLD)


class _LineIndex:
    """(start, end) offsets of the lines that may hold a literal, computed once per literal.

    Long logs repeat their lines up to their numbers (timestamps, progress bars, the same warning per step): the
    literals are searched in the distinct folded lines only (see _folded), and each hit stands for every line
    with that folded text. Literals that share a three-character anchor (ANCHORS) are searched only in the lines
    that hold the anchor. The patterns then run on the original lines, which rejects a line whose numbers differ
    from the literal's, and a match that wraps into the next line still sees the line that follows it."""

    def __init__(self, text, newlines):
        self.starts = [0] + [n + 1 for n in newlines]
        self.ends = newlines + [len(text)]
        first, self.occurrences = {}, []
        for number, line in enumerate(_folded(text).split(b"\n")):
            slot = first.get(line)
            if slot is None:
                slot = first[line] = len(self.occurrences)
                self.occurrences.append([])
            self.occurrences[slot].append(number)
        self.lines_text = list(first)  # a dict keeps insertion order: distinct lines, first seen first
        self.distinct = _Lines(self.lines_text, range(len(self.lines_text)))
        self._anchored, self._cache = {}, {}

    def _within(self, anchor):
        if anchor not in self._anchored:
            slots = self.distinct.slots_with(_folded(anchor))
            self._anchored[anchor] = _Lines([self.lines_text[s] for s in slots], slots)
        return self._anchored[anchor]

    def _scan(self, literal):
        if literal not in self._cache:
            anchor = ANCHORS.get(literal)
            # slots come in the order of their first line: the first MAX_LINES_PER_NEEDLE lines holding the literal
            # all belong to its first MAX_LINES_PER_NEEDLE slots
            lines = self._within(anchor) if anchor else self.distinct
            slots = lines.slots_with(_folded(literal), MAX_LINES_PER_NEEDLE)
            numbers = sorted(n for slot in slots for n in self.occurrences[slot])
            self._cache[literal] = [(self.starts[n], self.ends[n]) for n in numbers[:MAX_LINES_PER_NEEDLE]]
        return self._cache[literal]

    def lines(self, needles):
        if len(needles) == 1:
            return self._scan(needles[0])
        found = set()
        for needle in needles:
            found.update(self._scan(needle))
        return sorted(found)


# What nearly every line of a long TF run holds (its INFO lines, Keras' progress): no use as an anchor.
_BOILERPLATE = ("2021-01-01 00:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1418] Created "
                "TensorFlow device; I external/local_xla/xla/service/service.cc:168] XLA service; Epoch 1/10 "
                "60000/60000 [====>...] - ETA: 5:12 - loss: 2.3026 - accuracy: 0.0938 - val_loss: 0.1 - "
                "val_accuracy: 0.9 - 1s 20ms/step; Processing; Downloading; Collecting; Requirement already satisfied")


def _anchors(needles, size=3):
    """{needle: a three-character piece it shares with other needles}, chosen greedily (the piece most needles
    share first); a needle that shares none is searched on its own."""
    left, chosen = set(needles), {}
    while left:
        counts = {}
        for needle in left:
            for piece in {needle[i:i + size] for i in range(len(needle) - size + 1)}:
                # not "000", "as " or "ste" (Keras' ms/step): too common to narrow the search
                if " " not in piece and sum(c.isalpha() for c in piece) >= 2 and piece not in _BOILERPLATE:
                    counts[piece] = counts.get(piece, 0) + 1
        if not counts:
            break
        piece, count = max(sorted(counts.items()), key=lambda kv: kv[1])
        if count < 2:
            break
        for needle in [n for n in left if piece in n]:
            chosen[needle] = piece
            left.discard(needle)
    return chosen


# the needles a terminal's wrap may cut (shorter ones say too little to join two lines for)
WRAP_NEEDLES = {}
for _kind, (_regex, _needles, _span) in PATTERNS:  # noqa: B007
    for _needle in _needles:
        if len(_needle) >= 6:
            WRAP_NEEDLES.setdefault(_needle, []).append(_regex)
ANCHORS = _anchors(sorted({n for _, (_, needles, _) in PATTERNS for n in needles}))


def _on_lines(text, pattern, lines, span):
    """Matches starting on each of `lines`, in text order; with span a match may run into the next `span` lines."""
    for start, end in lines:
        stop = end
        for _ in range(span):
            if stop >= len(text):
                break
            stop = text.find("\n", stop + 1)
            stop = len(text) if stop < 0 else stop
        for m in pattern.finditer(text, start, stop):
            if m.start() > end:
                break
            yield m


PATTERNS_BY_KIND = {}
for _kind, _pattern in PATTERNS:  # noqa: B007
    PATTERNS_BY_KIND.setdefault(_kind, []).append(_pattern)


def normalise(text):
    """Typographic quotes, non-breaking spaces and HTML entities as plain ASCII (one scan when there are none)."""
    if _FANCY.search(text) is None:
        return text
    for fancy, plain in _QUOTES:
        if fancy in text:
            text = text.replace(fancy, plain)
    return text


def split_dlerror(dlerror):
    """(dlerror, LD_LIBRARY_PATH) from the tail of a load failure line."""
    if not dlerror:
        return None, None
    why, _, ldpath = dlerror.partition("; LD_LIBRARY_PATH:")
    return (_clean(why) or None), (_clean(ldpath) or None)


def _clean(value):
    if value is None:
        return None
    return value.strip().rstrip("`\"'").strip()


def _split_names(value):
    """"'msvcp140.dll', 'msvcp140_1.dll'" style lists in one message, as names (in any language's "or")."""
    dlls = re.findall(r"[\w.-]+\.dll\b", value)
    if len(dlls) > 1:
        return dlls
    return [n.strip(" '\"") for n in re.split(r",| or ", value) if n.strip(" '\"")]


def _drop_dlerror_duplicates(log):
    """`libX.so: cannot open shared object file` inside a load_fail line is the same failure, not a second one;
    a different library named there (libcudnn_cnn_infer.so.8 failing on libcuda.so) is a failure of its own."""
    asked = {}
    for ev in log.all("load_fail"):
        for line in (ev.line, ev.line + 1):  # a wrapped dlerror
            asked.setdefault(line, set()).update(n.lower() for n in _split_names(ev.groups[0]))
    for kind in ("so_missing", "dll_missing"):
        kept = [ev for ev in log.all(kind) if ev.groups[0].lower() not in asked.get(ev.line, ())]
        if kept:
            log.events[kind] = kept
        else:
            log.events.pop(kind, None)
