"""Every sentence explain and doctor show goes through t(): the English text is the message id, its fields are named.

    t("The NVIDIA driver {version} is older than CUDA {cuda} needs.", version="450.80", cuda="11.2")

A message is a whole sentence (or a whole fix clause): never glue parts of one sentence together, so that a
translation can order its words freely. Commands, paths and versions go into fields or backticks, never into
the words around them. A catalogue maps a language to {English message id: translation}; English needs none.
The catalogues are data: locale/<language>.json in this package (read with pkgutil, so they load from the
standalone doctor's zip and from the web page's copy too).
Standard library only, Python 3.6 syntax: the standalone doctor carries this module.
"""

import contextlib
import json
import os
import pkgutil
import re
import textwrap
import unicodedata

LANGUAGES = ("en", "zh-CN")  # what --lang accepts
WINDOWS_UI_LANGUAGES = {0x0804: "zh-CN", 0x1004: "zh-CN"}  # LANGIDs: Chinese (PRC), Chinese (Singapore)
CATALOGS = {}  # language -> {msgid: translated msgid with the same {fields}}, loaded on first use
_current = ["en"]


def catalog(language):
    """{English msgid: translation} for `language` (empty for English)."""
    if language == "en":
        return {}
    if language not in CATALOGS:
        data = pkgutil.get_data(__name__.rpartition(".")[0], f"locale/{language}.json")
        CATALOGS[language] = json.loads(data.decode("utf-8"))
    return CATALOGS[language]


def choose_language(option=None, environ=None, windows_ui=None):
    """--lang when given, else the locale (the first of LC_ALL, LC_MESSAGES, LANG that is set), else on Windows
    the UI language; anything else is English. windows_ui: a function returning a LANGID (tests pass a fake)."""
    if option:
        return option if option in LANGUAGES else "en"
    environ = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(var):
            return _from_locale(environ[var])
    if windows_ui is None and os.name == "nt":
        windows_ui = _windows_ui_language
    if windows_ui is not None:
        try:
            return WINDOWS_UI_LANGUAGES.get(windows_ui(), "en")
        except (OSError, AttributeError, ValueError):
            return "en"
    return "en"


def _from_locale(name):
    """zh_CN.UTF-8, zh_CN, zh-CN, zh-Hans, zh_SG, zh: Simplified Chinese; zh_TW, zh_HK, zh-Hant: not ours."""
    parts = name.split(".")[0].split("@")[0].replace("-", "_").lower().split("_")
    if parts[0] == "zh" and not {"tw", "hk", "mo", "hant"} & set(parts[1:]):
        return "zh-CN"
    return "en"


def _windows_ui_language():
    import ctypes

    return ctypes.windll.kernel32.GetUserDefaultUILanguage()


def set_language(language):
    """Use `language`'s catalogue from now on (one of LANGUAGES, or a catalogue a test put into CATALOGS); unknown
    languages fall back to English."""
    _current[0] = language if language in LANGUAGES or language in CATALOGS else "en"


def language():
    return _current[0]


@contextlib.contextmanager
def using(language):
    """The messages in `language` for the duration of a command, then the language before it."""
    before = _current[0]
    set_language(language)
    try:
        yield
    finally:
        _current[0] = before


def t(msgid, **fields):
    """The message in the current language with its fields filled in (English: msgid.format(**fields))."""
    text = catalog(_current[0]).get(msgid, msgid)
    return text.format(**fields) if fields else text


_CJK = "\u3000-\u9fff\uff00-\uffef"  # CJK characters and full-width punctuation
# Outside backticks: the '; ' and ' ' that join translated sentences become Chinese punctuation.
_ZH_GLUE = re.compile(f"(`[^`]*`)|; (?=[{_CJK}])|(?<=[{_CJK}]); |(?<=[。；，：）]) (?=\\S)")


def punctuate(text):
    """A finding's text as the language writes it: in Chinese, the '; ' and ' ' that join its translated
    sentences become '；' and nothing (commands in backticks stay as they are); other languages: unchanged."""
    if _current[0] != "zh-CN" or not text:
        return text
    return _ZH_GLUE.sub(lambda m: m.group(1) or ("；" if m.group(0) == "; " else ""), text)


def wrap(text, width, initial_indent="", subsequent_indent=""):
    """textwrap.wrap for English; for Chinese, lines of at most `width` terminal columns (a CJK character is two)
    that break between CJK characters but never inside a word, a command or a path."""
    if _current[0] == "en":
        return textwrap.wrap(text, width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    lines, line, used = [], initial_indent, columns(initial_indent)
    for token in _tokens(text):
        size = columns(token)
        if used + size > width and line.strip():
            lines.append(line.rstrip())
            line, used = subsequent_indent, columns(subsequent_indent)
            token, size = token.lstrip(), columns(token.lstrip())
        line, used = line + token, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines


_NO_LINE_START = set("，。；：、！？）》」』”’,.;:!?)]")


def _tokens(text):
    """Unbreakable pieces: one CJK character (with the punctuation that may not start a line), or a run of other
    characters up to and including its spaces."""
    tokens = []
    for char in text:
        wide = columns(char) == 2
        if tokens and char in _NO_LINE_START:
            tokens[-1] += char
        elif wide or not tokens or columns(tokens[-1][-1]) == 2 or tokens[-1][-1] == " " != char:
            tokens.append(char)
        else:
            tokens[-1] += char
    return tokens


def columns(text):
    """How many terminal columns `text` takes (a CJK character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
