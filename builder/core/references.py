"""Docker image references checked before any Docker call, so a typo is one line, not docker-py's traceback.

The grammar is distribution/reference's (what the daemon enforces):
    reference := name [":" tag] ["@" digest]
    name      := [domain "/"] path-component ["/" path-component]*
    domain    := host [":" port]        (first component, when it has "." or ":" or is "localhost")
    path-component := [a-z0-9]+ (separator [a-z0-9]+)*     separator := "." | "_" | "__" | "-"+
    tag       := [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}
    digest    := algorithm ":" hex{32,}
"""

from __future__ import annotations

import re

from builder.core.errors import TfenvError

_PATH_COMPONENT = re.compile(r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*")
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = re.compile(rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?")
_TAG = re.compile(r"[\w][\w.-]{0,127}", re.ASCII)
_DIGEST = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}")
NAME_MAX = 255  # distribution/reference: the whole name, domain included


class BadReference(TfenvError):
    """An image reference or repository name Docker would refuse."""


def _fail(what: str, value: str, problem: str):
    raise BadReference(f"{what} {value!r}: {problem}")


def _split_domain(name: str) -> tuple[str | None, str]:
    first, sep, rest = name.partition("/")
    if sep and ("." in first or ":" in first or first == "localhost"):
        return first, rest
    return None, name


def check_repository(value: str, what: str = "--repo") -> str:
    """A repository name (no tag, no digest): 'tfenv/tensorflow', 'registry.example.org:5000/team/tf'."""
    if not isinstance(value, str) or not value:
        _fail(what, value or "", "an image repository cannot be empty (e.g. tfenv/tensorflow)")
    if value != value.strip() or any(ch.isspace() for ch in value):
        _fail(what, value, "an image repository cannot contain spaces")
    if "@" in value:
        _fail(what, value, "a repository takes no digest ('@...'): give the name only")
    if len(value) > NAME_MAX:
        _fail(what, value[:40] + "...", f"longer than Docker's {NAME_MAX} characters")
    domain, path = _split_domain(value)
    if domain is not None and not _DOMAIN.fullmatch(domain):
        _fail(what, value, f"registry host {domain!r} is not a host name with an optional :port")
    if ":" in path:
        _fail(what, value, f"a repository takes no tag (':{path.rpartition(':')[2]}'): give the name only")
    for component in path.split("/"):
        if not component:
            _fail(what, value, "empty path component (a doubled, leading or trailing '/')")
        if not _PATH_COMPONENT.fullmatch(component):
            _fail(what, value, f"path component {component!r} must be lowercase letters and digits, "
                               "joined by '.', '_', '__' or '-'")
    return value


def check_reference(value: str, what: str = "--image") -> str:
    """A full reference: NAME[:TAG][@DIGEST]; returns it unchanged when valid."""
    if not isinstance(value, str) or not value:
        _fail(what, value or "", "an image reference cannot be empty (e.g. tfenv/tensorflow:tf29-debian11)")
    if value != value.strip() or any(ch.isspace() for ch in value):
        _fail(what, value, "an image reference cannot contain spaces")
    rest, at, digest = value.partition("@")
    if at and not _DIGEST.fullmatch(digest):
        _fail(what, value, f"digest {digest!r} is not ALGORITHM:HEX (e.g. sha256: and 64 hex digits)")
    domain, path = _split_domain(rest)
    name = rest
    if ":" in path:
        path, _, tag = path.rpartition(":")
        name = rest[: len(rest) - len(tag) - 1]
        if not _TAG.fullmatch(tag):
            _fail(what, value, f"tag {tag!r} must be 1-128 of letters, digits, '_', '.', '-', "
                               "not starting with '.' or '-'")
    check_repository(name, what) if name else _fail(what, value, "the image name is missing before ':'")
    return value


# --- Click callbacks: the option is checked while parsing, before anything talks to Docker ---------


def _option_name(param) -> str:
    return max(param.opts, key=len) if param is not None and param.opts else "value"


def repository_option(ctx, param, value):
    return None if value is None else check_repository(value, _option_name(param))


def reference_option(ctx, param, value):
    return None if value is None else check_reference(value, _option_name(param))
