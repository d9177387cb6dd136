"""A pasted log as the program printed it: what copying, quoting and log collectors added is taken off first.

Each step looks for its form with one cheap scan and does nothing when the form is absent, so a plain log costs
a few literal searches. Steps keep one line for one line except where they unwrap (a joined wrap, a logfmt
message's `\\n`): there a quoted line number counts the lines as read, and the quote shows the line itself.

- colours: ANSI escapes of a terminal, a notebook or `docker logs` of a TTY; zero-width spaces and BOMs of web
  copies; CRLF.
- escaped lines: a notebook's saved output (.ipynb JSON strings) and logfmt's `msg="..."` (logrus, dockerd,
  containerd), unescaped (`\\"`, `\\\\`, `\\n`).
- prefixes before every line: e-mail/GitHub quotes (`> `, `>> `, not Python's `>>> `), Markdown bullets and inline
  code, `docker logs -t` and CRI timestamps (`... stderr F `), journald/syslog, Python's logging, compose's
  `service-1  | ` (its first line is kept: it tells a container), one tab of indentation.
- hard wraps: a terminal or console cuts a long line at its width (80, 120, ...; a `\\` at the cut for some
  tools). A run of lines of exactly that width is joined with the line after it only when the join puts a known
  message's literal (a needle) where it starts in a cut line; never elsewhere.
"""

import json
import re

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]{0,30}[A-Za-z]|\][^\x07\n]{0,200}\x07|[()][AB0-2])")

_JSON_LINE = re.compile(r'(?m)^[ \t]*("(?:[^"\\\n]|\\.){0,20000}")[ \t]*,?[ \t]*$')
_LOGFMT = re.compile(r'(?m)^[^\n]{0,200}?\blevel=\w{1,10} [^\n]{0,200}?\bmsg="((?:[^"\\\n]|\\.){0,200000})"'
                     r'([^\n]{0,500})$')
_ESCAPE = re.compile(r'\\(["\\nt])')
_UNESCAPE = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}

# Prefixes a log's own lines never start with: taken off wherever they are, all in one pass, in any order and
# nesting (a quoted compose log, a quote of a journal).
_ANYWHERE = (
    r"(?:[ \t]{0,3}>(?!>>)[ \t]?)+",  # e-mail / GitHub quotes; Python's `>>> ` prompt stays
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d) (?:(?:stdout|stderr) [FP] )?",  # docker, CRI
    r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]{1,64} [\w./@-]{1,64}(?:\[\d{1,10}\])?: ",  # journald / syslog
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - (?:[\w.]{1,60} - )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - ",  # logging
    r"`+",  # Markdown inline code
)
_COMPOSE = r"[\w.-]{1,60}[_-]\d{1,3}[ \t]+\| ?"
# (prefix, share of the rows that must have it): a log's own lines may start so, so only a whole paste's go
_SHARED = ((r"[ \t]{0,3}[-*+] `*", 0.6), (r"\t", 0.8))  # Markdown bullets, one tab of indentation


def _after(body):
    """The prefix where a row starts (a literal newline first: the regex engine then skips to each newline)."""
    return re.compile("(\n)" + body)


_ANYWHERE_RE = _after("(?:" + "|".join(_ANYWHERE) + ")+")
_COMPOSE_RE = _after(_COMPOSE)
_SHARED_RE = [(_after(body), share) for body, share in _SHARED]
_ROW = re.compile("\n[^\n]")
_TRAILING_CODE = re.compile(r"``*[ \t]*(?=\n)")  # not "`+": a regex led by a literal is found by a fast scan
MAX_CHAINS = 2000  # runs of cut lines looked at: a paste from a terminal window has far fewer
MAX_WIDTH = 400  # no terminal is wider: a log's own long lines repeated are no wrap
CONTEXT = 3  # lines before a cut that a multi-line message may start on
USUAL_WIDTHS = (80, 100, 120, 132)  # xterm's and conhost's 80, Windows Terminal's and VS Code's 120
WIDTHS_MIN = 60  # a paste's width is at least this; shorter "widths" are a log's own short lines


def unpaste(text, needles):
    """`text` with the paste's own additions taken off; `needles`: {a known message's literal: its patterns}."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    text = _no_ansi(text)
    for char in _ZERO_WIDTH:  # a literal search each: a regex of a character class scans at regex speed
        if char in text:
            text = text.replace(char, "")
    if '"output_type"' in text or '"traceback"' in text:
        text = _no_ansi(_JSON_LINE.sub(_json_string, text))  # an escaped `\u001b[31m` is an escape only now
    if 'msg="' in text and "level=" in text:  # line by line: the regex over a whole long log costs 0.2 s per 10 MB
        text = _no_ansi("\n".join(_LOGFMT.sub(_logfmt_message, line) if 'msg="' in line and "level=" in line else line
                                  for line in text.split("\n")))
    lengths = list(map(len, text.split("\n")))  # a wrap cut the rows as they were, prefixes and all
    text = _strip_prefixes(text)
    return join_wraps(text, needles, lengths) if max(lengths) <= MAX_WIDTH else text


def _logfmt_message(match):
    """The message unescaped, with the fields after it as printed (Go's slog puts the cause there: ollama's
    `msg="unable to load cuda driver library" ... error="cuda driver library init failure: 999"`)."""
    message = _ESCAPE.sub(lambda e: _UNESCAPE[e.group(1)], match.group(1))
    return message + match.group(2) if match.group(2).strip() else message


def _no_ansi(text):
    return _ANSI.sub("", text) if "\x1b" in text else text


def _json_string(match):
    try:
        value = json.loads(match.group(1))
    except ValueError:
        return match.group(0)
    return value[:-1] if value.endswith("\n") else value


def _strip_prefixes(text):
    text = "\n" + text
    text = _strip(text, _ANYWHERE_RE)
    text = _strip(text, _COMPOSE_RE, keep_first=True)  # the first tells that the log ran in a container
    for regexes, share in _SHARED_RE:
        text = _strip(text, regexes, share)
    if "`" in text:
        text = _TRAILING_CODE.sub("", text)
    return text[1:]


def _strip(text, regexes, share=None, keep_first=False):
    """`text` without the prefix where it starts a row; one literal-led search when there is none."""
    first = regexes.search(text)
    if first is None:
        return text
    if share is not None and len(regexes.findall(text)) < share * len(_ROW.findall(text)):
        return text
    if not keep_first:
        return regexes.sub(r"\1", text)  # (one copy of a long text, not three)
    return text[:first.end()] + regexes.sub(r"\1", text[first.end():])


def join_wraps(text, needles, lengths=None):
    """Lines a terminal cut at its width, joined where the join makes a needle whole (see the module's doc);
    `lengths` are the lengths the lines had when they were cut (before their prefixes were taken off)."""
    lines = text.split("\n")
    lengths = lengths or [len(line) for line in lines]
    width, strong = _width(lines, lengths)
    if not width:
        return text
    out, i, chains = [], 0, 0  # the lines as joined so far (a list that grows: no splice in a long list)
    while i < len(lines) and chains < MAX_CHAINS:
        end = i
        while end < len(lines) - 1 and lengths[end] == width and not lines[end].endswith("  "):
            end += 1
        if end > i:
            chains += 1
            context = (out[-CONTEXT:], lines[end + 1:end + 1 + CONTEXT])
            if _needle_in_cut(lines[i:end + 1], context, needles, strong):
                out.append("".join(_uncut(line) for line in lines[i:end]) + lines[end])
                i = end + 1
                continue
        out.extend(lines[i:end + 1])
        i = end + 1
    if len(out) == i:  # nothing joined
        return text
    return "\n".join(out + lines[i:])


def _width(lines, lengths):
    """(the width a terminal cut the lines at, whether that is sure): the longest length of at least WIDTHS_MIN;
    sure when it is a terminal's usual width or several different rows reach it (a log's own longest line,
    repeated with other numbers, is no cut)."""
    counts = {}
    for length in lengths:
        if length >= WIDTHS_MIN:
            counts[length] = counts.get(length, 0) + 1
    width = max(counts) if counts else 0
    if not width or width > MAX_WIDTH:
        return 0, False
    if width in USUAL_WIDTHS:
        return width, True
    rows = {line.translate(_DIGITS) for line, length in zip(lines, lengths) if length == width}
    return width, len(rows) >= 3


_DIGITS = str.maketrans("123456789", "000000000")


def _needle_in_cut(rows, context, needles, strong):
    """Whether a needle runs across a cut between `rows` (the cut ones and the line after them); where the width
    is sure (see _width), also whether a needle is in them or a needle's pattern, run on them with up to CONTEXT
    lines before and after, matches across a cut (a message that started lines before was cut)."""
    pieces = [_uncut(row) for row in rows[:-1]] + rows[-1:]
    joined, cuts = "".join(pieces), []
    for piece in pieces[:-1]:
        cuts.append((cuts[-1] if cuts else 0) + len(piece))
    if not strong:
        for needle in needles:
            pos = joined.find(needle, 0, cuts[-1] + len(needle) - 1)
            while pos >= 0:
                if any(pos < cut < pos + len(needle) for cut in cuts):
                    return True
                pos = joined.find(needle, pos + 1, cuts[-1] + len(needle) - 1)
        # two rows or more cut at one width, and a message whose literal start is whole in one and whose pattern
        # runs on across the last cut (a hook's "nvidia-container-cli: m" + "ount error: ..."); a log's one longest
        # line is no cut
        return len(rows) > 2 and any(m.start() < cuts[-1] < m.end() for needle in filter(joined.__contains__, needles)
                   for regex in needles[needle] for m in regex.finditer(joined))
    if any(map(joined.__contains__, needles)):  # (a needle across a cut is in the joined rows too)
        return True
    before, after = "".join(line + "\n" for line in context[0]), "".join("\n" + line for line in context[1])
    window, first, last = before + joined + after, len(before) + cuts[0], len(before) + cuts[-1]
    around = before + "\x00" + after  # a needle is in one or the other (no needle holds a NUL)
    return any(m.start() < last and m.end() > first for needle in filter(around.__contains__, needles)
               for regex in needles[needle] for m in regex.finditer(window))


def _uncut(row):
    """A cut row without the `\\` some tools leave at the cut."""
    return row[:-1] if row.endswith("\\") else row
