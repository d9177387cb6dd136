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
import heapq
import re
from typing import NamedTuple

from builder.diagnose import cuda_results
from builder.diagnose.paste import unpaste
from builder.diagnose.patterns import KINDS, PATTERNS  # noqa: F401  (KINDS: what the parser knows)

MAX_PER_KIND = 200
# A needle found on more lines than this is noise for this purpose (a log repeating one message): the first
# ones are read, the rest skipped, so that no input makes the parser slow.
MAX_LINES_PER_NEEDLE = 5000
# A line longer than this (a log that lost its line ends, or a progress bar's `\r` updates never ended by one) is
# searched as pieces: its `\r` updates cut every PIECE characters, each piece with the next few characters a
# literal may run on into; a pattern then runs on WINDOW characters around each piece that holds the literal, not on
# the whole line once per pattern (seconds for a 10 MB line).
LONG_LINE = 20000
PIECE = 400
WINDOW = 1000
MAX_QUOTE = 240  # characters of a line quoted as evidence

_QUOTES = (("\u2018", "'"), ("\u2019", "'"), ("\u201a", "'"), ("\u201b", "'"), ("\u201c", '"'),
           ("\u201d", '"'), ("\u201e", '"'), ("\u00a0", " "), ("\u2011", "-"))
_ENTITIES = {"&quot;": '"', "&#39;": "'", "&#x27;": "'", "&lt;": "<", "&gt;": ">", "&amp;": "&"}
_ENTITY = re.compile("|".join(_ENTITIES))  # one pass: "&amp;quot;" is "&quot;", as the web page showed
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
        self._quoted = {}  # line number -> line_text (a long line is searched back for its last `\r` once)

    def all(self, kind):
        return self.events.get(kind, [])

    def first(self, kind):
        found = self.events.get(kind)
        return found[0] if found else None

    def has(self, *kinds):
        return any(self.events.get(k) for k in kinds)

    def line_text(self, number):
        """The line, without a paste's prefixes, cut to what follows the last carriage return."""
        if number not in self._quoted:
            self._quoted[number] = self._line_text(number)
        return self._quoted[number]

    def _line_text(self, number):
        start = self._newlines[number - 2] + 1 if number >= 2 else 0
        end = self._newlines[number - 1] if number - 1 < len(self._newlines) else len(self.text)
        while end > start and self.text[end - 1] == "\r":
            end -= 1
        start = max(start, self.text.rfind("\r", start, end) + 1)
        line = self.text[start:start + LONG_LINE] if end - start > LONG_LINE else self.text[start:end]
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
    _read_codes(log)
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
        self.text = text
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
        self.long = [slot for slot, line in enumerate(self.lines_text) if len(line) > LONG_LINE]
        for slot in self.long:
            self._pieces(slot, first)
        self.distinct = _Lines(self.lines_text, range(len(self.lines_text)))
        self._anchored, self._cache = {}, {}

    def _pieces(self, slot, first):
        """A long line's pieces (see LONG_LINE), searched as distinct lines in the line's place; each piece stands
        for a window around it, numbered after the log's lines."""
        text, self.lines_text[slot] = self.text, b""  # the line itself is never searched
        for number in self.occurrences[slot]:
            start, end = self.starts[number], self.ends[number]
            pos = start
            while pos < end:
                stop = text.find("\r", pos, end)
                stop = end if stop < 0 else stop
                for low in range(pos, stop, PIECE):
                    high = min(stop, low + PIECE + LONGEST_NEEDLE)  # a literal that starts in the piece is in it
                    piece = _folded(text[low:high])
                    piece_slot = first.get(piece)
                    if piece_slot is None:
                        piece_slot = first[piece] = len(self.lines_text)
                        self.lines_text.append(piece)
                        self.occurrences.append([])
                    self.occurrences[piece_slot].append(len(self.starts))
                    self.starts.append(max(start, low - WINDOW))
                    self.ends.append(min(end, high + WINDOW))
                pos = stop + 1
        self.occurrences[slot] = []

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
            if self.long:  # a long line's pieces come after the log's lines: in the text's order, windows as one
                numbers.sort(key=self.starts.__getitem__)
            spans = [(self.starts[n], self.ends[n]) for n in numbers[:MAX_LINES_PER_NEEDLE]]
            self._cache[literal] = _merged(spans) if self.long else spans
        return self._cache[literal]

    def lines(self, needles):
        if len(needles) == 1:
            return self._scan(needles[0])
        found = set()
        for needle in needles:
            found.update(self._scan(needle))
        return _merged(sorted(found)) if self.long else sorted(found)


def _merged(spans):
    """Sorted (start, end) spans with the ones that overlap (windows in a long line) made one: a match is found once."""
    out = []
    for low, high in spans:
        if out and low <= out[-1][1]:
            out[-1] = (out[-1][0], max(high, out[-1][1]))
        else:
            out.append((low, high))
    return out


# What nearly every line of a long TF run holds (its INFO lines, Keras' progress): no use as an anchor.
_BOILERPLATE = ("2021-01-01 00:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1418] Created "
                "TensorFlow device; I external/local_xla/xla/service/service.cc:168] XLA service; Epoch 1/10 "
                "60000/60000 [====>...] - ETA: 5:12 - loss: 2.3026 - accuracy: 0.0938 - val_loss: 0.1 - "
                "val_accuracy: 0.9 - 1s 20ms/step; Processing; Downloading; Collecting; Requirement already satisfied")


def _anchors(needles, size=3):
    """{needle: a three-character piece it shares with other needles}, chosen greedily (the piece most needles
    share first, the first in sort order among equals); a needle that shares none is searched on its own."""
    pieces = {}  # needle -> its pieces that may anchor: not "000", "as " or "ste" (Keras' ms/step), too common
    for needle in needles:
        pieces[needle] = {piece for piece in (needle[i:i + size] for i in range(len(needle) - size + 1))
                          if " " not in piece and sum(c.isalpha() for c in piece) >= 2 and piece not in _BOILERPLATE}
    counts = {}  # piece -> how many needles not yet anchored hold it
    for held in pieces.values():
        for piece in held:
            counts[piece] = counts.get(piece, 0) + 1
    heap = [(-count, piece) for piece, count in counts.items()]
    heapq.heapify(heap)
    chosen = {}
    while heap:
        count, piece = heapq.heappop(heap)
        if counts[piece] != -count:  # counted before some of its needles were anchored: back with its count now
            if counts[piece]:
                heapq.heappush(heap, (-counts[piece], piece))
            continue
        if -count < 2:
            break
        for needle in [n for n, held in pieces.items() if piece in held]:
            chosen[needle] = piece
            for other in pieces.pop(needle):
                counts[other] -= 1
    return chosen


# the needles a terminal's wrap may cut (shorter ones say too little to join two lines for)
WRAP_NEEDLES = {}
for _kind, (_regex, _needles, _span) in PATTERNS:  # noqa: B007
    for _needle in _needles:
        if len(_needle) >= 6:
            WRAP_NEEDLES.setdefault(_needle, []).append(_regex)
_NEEDLES = sorted({n for _, (_, needles, _) in PATTERNS for n in needles})
ANCHORS = _anchors(_NEEDLES)
LONGEST_NEEDLE = max(len(n) for n in _NEEDLES)


def _on_lines(text, pattern, lines, span):
    """Matches starting on each of `lines`, in text order; with span a match may run into the next `span` lines."""
    for start, end in lines:
        stop = end
        for _ in range(span):
            if stop >= len(text) or text[stop] != "\n":  # (a window inside a long line runs on no further)
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
    """Typographic quotes, non-breaking spaces and HTML entities as plain ASCII, NULs taken out (a literal search
    for each character: a regex of a character class scans a long text at regex speed)."""
    for fancy, plain in _QUOTES:
        if fancy in text:
            text = text.replace(fancy, plain)
    text = _ENTITY.sub(lambda m: _ENTITIES[m.group()], text)
    return text.replace("\x00", "") if "\x00" in text else text


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


def _read_codes(log):
    """A CUDA result printed only as its number (ollama's "cuda driver library init failure: 999", numba's "[802] Call
    to cuInit results in UNKNOWN_CUDA_ERROR") or in a program's own words for it (PyCUDA's, ollama's) reads as the
    events its name gives (builder.diagnose.cuda_results); on its line it replaces a cuInit event that names no result
    (numba's UNKNOWN_CUDA_ERROR)."""
    worded = log.all("cuinit_pycuda") + log.all("cuinit_said")
    pycuda = [(ev, cuda_results.code_of_text(ev.groups[0])) for ev in worded]
    for code_kind in ("cuinit_code", "cuda_code"):
        coded = [(ev, ev.groups[0]) for ev in log.all(code_kind)] + (pycuda if code_kind == "cuinit_code" else [])
        for ev, code in coded:
            for kind, groups in cuda_results.as_events(code_kind, code):
                found = log.events.setdefault(kind, [])
                if kind == "cuinit":
                    found[:] = [e for e in found if e.line != ev.line or cuda_results.names_in(e.groups[0])]
                if len(found) < MAX_PER_KIND and Event(kind, ev.line, groups) not in found:
                    found.append(Event(kind, ev.line, groups))
                    found.sort(key=lambda e: e.line)


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
