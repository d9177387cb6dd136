"""Diagnose on the web: `tfenv web --out DIR` writes the static explain site (builder/web/)."""

from __future__ import annotations

from pathlib import Path

import click

from builder.commands import common
from builder.commands.common import load_matrix
from builder.core.errors import TfenvError


@click.command("web")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), metavar="DIR", callback=common.nonempty,
              help="The folder to write the site into (created; files of the same name are replaced).")
@click.option("--pyodide", "pyodide", default="node_modules/pyodide", show_default=True, metavar="DIR",
              callback=common.nonempty,
              help="The pinned Pyodide package (`npm ci` in the checkout installs it).")
@click.option("--source-url", metavar="URL", callback=common.nonempty,
              help="The repository the answers link setup scripts in (e.g. https://github.com/OWNER/tfenv).")
@click.pass_context
def web_command(ctx, out, pyodide, source_url):
    """Write the static site that explains a TensorFlow log in the browser: the page, tfenv's diagnose package
    running under Pyodide (nothing is uploaded), and a page per known problem, in English and Chinese.

    Serve it locally with `python -m http.server -d DIR -b 127.0.0.1 8000`.
    """
    from builder import web
    from builder.matrix.facts import facts_from_matrix
    from builder.web import pages

    if source_url and not source_url.startswith("https://"):
        raise TfenvError(f"--source-url {source_url}: give an https:// URL")
    corpus = pages.corpus_dir()
    if corpus is None:
        raise TfenvError("tfenv web builds from a tfenv checkout (its rule pages cite tests/unit/explain_corpus)")
    m = load_matrix(ctx)
    sizes = web.build(Path(out), m, facts_from_matrix(m), Path(pyodide), source_url, corpus)
    click.echo(f"{out}: {len(sizes)} files, {sum(sizes.values()) / 1e6:.1f} MB")
