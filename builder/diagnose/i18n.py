"""Every sentence explain shows goes through t(): the English text is the message id, its fields are named.

    t("The NVIDIA driver {version} is older than CUDA {cuda} needs.", version="450.80", cuda="11.2")

A message is a whole sentence (or a whole fix clause): never glue parts of one sentence together, so that a
translation can order its words freely. Commands, paths and versions go into fields or backticks, never into
the words around them. A catalogue maps a language to {English message id: translation}; English needs none.
Standard library only, Python 3.6 syntax: the standalone doctor carries this module.
"""

CATALOGS = {}  # language -> {msgid: translated msgid with the same {fields}}
_current = ["en"]


def set_language(language):
    """Use `language`'s catalogue from now on ('en', or a key of CATALOGS); unknown languages fall back to English."""
    _current[0] = language if language in CATALOGS else "en"


def language():
    return _current[0]


def t(msgid, **fields):
    """The message in the current language with its fields filled in (English: msgid.format(**fields))."""
    text = CATALOGS.get(_current[0], {}).get(msgid, msgid)
    return text.format(**fields) if fields else text
