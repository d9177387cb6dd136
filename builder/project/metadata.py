"""Requires-Python of the files the image will install, read from the index (PEP 658: FILE.metadata).

uv resolves for a Python *range* starting at the image's version and so ignores upper bounds
(`dataclasses==0.8` declares >=3.6,<3.7), which pip then enforces in the build. The locked files' own
metadata says; a file whose metadata cannot be read (an index without PEP 658, a timeout) is not judged.
"""

from __future__ import annotations

import os
import ssl
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from packaging.specifiers import InvalidSpecifier, SpecifierSet

TIMEOUT_S = 20


def _first_url(package: dict) -> str | None:
    wheels = package.get("wheels") or []
    return wheels[0].get("url") if wheels else None


def _requires_python(url: str, context: ssl.SSLContext) -> str | None:
    try:
        with urllib.request.urlopen(url + ".metadata", timeout=TIMEOUT_S, context=context) as response:
            text = response.read(1_000_000).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None
    for line in text.splitlines():
        if not line.strip():
            break  # the headers end at the first blank line
        if line.lower().startswith("requires-python:"):
            return line.split(":", 1)[1].strip()
    return None


def python_misfits(pylock: dict, python: str, ca_cert: str | None = None) -> list[tuple[str, str, str]]:
    """(name, version, its Requires-Python) of each locked package that does not take this Python."""
    context = ssl.create_default_context(cafile=ca_cert or os.environ.get("SSL_CERT_FILE") or None)
    packages = [p for p in pylock.get("packages", []) if _first_url(p)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(pool.map(lambda p: _requires_python(_first_url(p), context), packages))
    misfits = []
    for package, spec in zip(packages, found):
        try:
            if spec and not SpecifierSet(spec).contains(python, prereleases=True):
                misfits.append((package["name"], package["version"], spec))
        except InvalidSpecifier:
            continue
    return misfits
