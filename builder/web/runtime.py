"""The Pyodide runtime the page ships: the files of the pinned npm package (package.json, package-lock.json,
`npm ci`), and its standard library trimmed and precompiled to .pyc by that same Pyodide under node."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from builder.core.errors import TfenvError

# What the page loads (the rest of the package, consoles, typings and source maps, stays behind).
FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
LOCK = "pyodide-lock.json"  # shipped without its packages: the page loads none, so it can fetch none
STDLIB = "python_stdlib.zip"
# Standard-library packages and modules a log explainer in a browser never imports, left out for size
# (the site's budget is 8 MB gzipped): REPLs, debuggers, test runners, mailboxes, XML, process pools.
# (http and email stay: the doctor package the page imports reads the Docker API over http.client.)
UNUSED = ("_pyrepl", "doctest", "ftplib", "imaplib", "mailbox", "multiprocessing", "pdb",
          "poplib", "pydoc", "pydoc_data", "smtplib", "turtle", "unittest", "wsgiref", "xml", "xmlrpc")
PRECOMPILE = Path(__file__).with_name("precompile.mjs")
NODE_TIMEOUT = 300  # seconds; the precompile takes about 10 s on two cores


class Runtime:
    """A checked Pyodide folder: its version, and the files the site takes from it."""

    def __init__(self, folder: Path):
        self.folder = folder
        missing = [name for name in (*FILES, LOCK, STDLIB, "package.json") if not (folder / name).is_file()]
        if missing:
            raise TfenvError(f"no Pyodide in {folder} (missing {missing[0]}): run `npm ci` in the tfenv checkout, "
                             "or give --pyodide DIR")
        try:
            self.version = json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"]
        except (OSError, ValueError, KeyError) as exc:
            raise TfenvError(f"{folder}/package.json: not Pyodide's package.json ({exc})") from None

    def files(self) -> dict:
        """site path -> bytes: the runtime, the precompiled standard library and the licence notice."""
        out = {f"pyodide/{name}": (self.folder / name).read_bytes() for name in FILES}
        stdlib = trim((self.folder / STDLIB).read_bytes())
        out[f"pyodide/{STDLIB}"] = self.precompile(stdlib, f"/lib/python{self.python_tag()}.zip")
        out[f"pyodide/{LOCK}"] = json.dumps({**self.lock(), "packages": {}}, sort_keys=True).encode()
        out["pyodide/LICENSE.txt"] = notice(self.version).encode()
        return out

    def precompile(self, data: bytes, shown_as: str) -> bytes:
        """The zip `data` with each .py turned into the .pyc this Pyodide writes (shown_as: its path there)."""
        node = shutil.which("node")
        if node is None:
            raise TfenvError("node is not installed: tfenv web runs the pinned Pyodide under node to precompile "
                             "the Python it ships (install Node.js 18 or later)")
        with tempfile.TemporaryDirectory(prefix="tfenv-web-") as tmp:
            source, compiled = Path(tmp, "in.zip"), Path(tmp, "out.zip")
            source.write_bytes(data)
            try:
                run = subprocess.run([node, str(PRECOMPILE), str(self.folder), str(source), str(compiled), shown_as],
                                     capture_output=True, text=True, timeout=NODE_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise TfenvError(f"precompiling {shown_as} with Pyodide took over {NODE_TIMEOUT} s") from None
            if run.returncode != 0 or not compiled.is_file():
                last = (run.stderr.strip().splitlines() or ["no output"])[-1]
                raise TfenvError(f"precompiling {shown_as} with Pyodide failed: {last}")
            return compiled.read_bytes()

    def lock(self) -> dict:
        try:
            return json.loads((self.folder / LOCK).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise TfenvError(f"{self.folder / LOCK}: not Pyodide's lock file ({exc})") from None

    def python_tag(self) -> str:
        """'314' for Python 3.14: the name of the stdlib zip on Pyodide's sys.path, read from its lock file."""
        try:
            major, minor = self.lock()["info"]["python"].split(".")[:2]
        except (KeyError, TypeError, AttributeError, ValueError):
            raise TfenvError(f"{self.folder / LOCK}: no Python version in its info") from None
        return major + minor


def trim(stdlib: bytes) -> bytes:
    """The standard-library zip without UNUSED (same entries otherwise, same order)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(stdlib)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            top = info.filename.split("/", 1)[0]
            if top in UNUSED or os.path.splitext(top)[0] in UNUSED:
                continue
            zout.writestr(info, zin.read(info))
    return out.getvalue()


def notice(version: str) -> str:
    return (f"This site runs Python in the browser with Pyodide {version}, unmodified except that its standard\n"
            "library is precompiled to .pyc and trimmed of modules the page never imports.\n\n"
            "Pyodide is distributed under the Mozilla Public License 2.0 (https://mozilla.org/MPL/2.0/).\n"
            f"Its source code: https://github.com/pyodide/pyodide (release {version}).\n\n"
            "Pyodide contains CPython, distributed under the Python Software Foundation License\n"
            "(https://docs.python.org/3/license.html), and Emscripten's runtime (MIT License).\n")
