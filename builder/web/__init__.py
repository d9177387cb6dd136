"""`tfenv web --out DIR`: the static site that explains a pasted log in the browser with tfenv's own diagnose
package under Pyodide, and a page per known problem (English and Simplified Chinese).

    runtime.py  the pinned Pyodide's files, its standard library precompiled by itself under node
    site.py     the explain page: index.html, app.js, worker.js, the diagnose zip, the worker's entry.py
    pages.py    a static page per rule from the rule and its corpus logs, and their index
"""

from __future__ import annotations

from pathlib import Path

from builder.core import files as fileio


def build(out: Path, matrix, facts: dict, pyodide: Path, source_url: str | None = None,
          corpus: Path | None = None) -> dict:
    """Write the whole site into `out`, all files or none; returns site path -> size in bytes."""
    from builder.web import pages, runtime, site

    run = runtime.Runtime(pyodide)
    rule_pages = pages.build(facts, corpus)
    content = {**run.files(), **site.files(matrix, facts, run, source_url, list(rule_pages)),
               **pages.files(rule_pages)}
    for folder in sorted({str(Path(name).parent) for name in content}):
        fileio.make_folder(out / folder, "site folder")
    fileio.write_all([(out / name, data, None) for name, data in sorted(content.items())], what="site file")
    return {name: len(data) for name, data in content.items()}
