"""Run inside the pinned Pyodide by precompile.mjs: turn each .py of a zip into a sourceless .pyc that this very
interpreter wrote (its magic number, its bytecode), so the page imports without compiling the standard library.

zipimport looks for NAME.pyc beside NAME.py in a zip; a hash-based, unchecked .pyc is taken as it is, and the
same source gives the same bytes (no timestamps)."""

import importlib.util
import zipfile
from importlib._bootstrap_external import _code_to_hash_pyc

STAMP = (2020, 1, 1, 0, 0, 0)


def precompile(src, dst, shown_as):
    """src zip -> dst zip; shown_as is the path the zip has at run time (for tracebacks)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            name, data = info.filename, zin.read(info)
            if name.endswith(".py"):
                try:
                    code = compile(data, shown_as + "/" + name, "exec", dont_inherit=True)
                except SyntaxError:  # a data file spelled .py: keep it as it is
                    pass
                else:
                    name, data = name + "c", _code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            out = zipfile.ZipInfo(name, date_time=STAMP)
            out.compress_type = zipfile.ZIP_DEFLATED
            out.external_attr = info.external_attr
            zout.writestr(out, data)
