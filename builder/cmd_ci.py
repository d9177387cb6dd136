"""`tfenv ci matrix` and `tfenv bake`: the matrix for CI engines (see builder/ci.py)."""

from __future__ import annotations

from pathlib import Path

import click

from builder import options, references
from builder.cli import checkout_matrix, load_matrix
from builder.errors import ChecksFailed, TfenvError

BAKE_FILE = "docker-bake.json"


@click.group("ci")
def ci():
    """Matrices for CI engines, derived from matrix.yaml."""


@ci.command("matrix")
@click.argument("envs", nargs=-1, metavar="[ENV]...")
@click.option("--os", "os_names", callback=options.nonempty, multiple=True, metavar="OS",
              help="Only this OS variant (repeatable).")
@click.option("--repo", callback=references.repository_option,
              help="Image repository for the tags (default: from the matrix).")
@click.option("--json", "as_json", is_flag=True,
              help="One line of JSON: the `include` list, for fromJSON() in a workflow.")
@click.pass_context
def matrix_cmd(ctx, envs, os_names, repo, as_json):
    """The GitHub Actions matrix: one entry per environment and OS variant."""
    from builder import ci as ci_mod

    m = load_matrix(ctx)
    entries = ci_mod.github_matrix(m, ci_mod.select(m, envs, os_names), repo)
    if as_json:
        import json

        # Compact, one line: it goes through $GITHUB_OUTPUT as `include=<json>`.
        click.echo(json.dumps(entries, separators=(",", ":")))
        return
    for e in entries:
        click.echo(f"{e['env']:<14} {e['os']:<12} gpu={'yes' if e['gpu'] else 'no':<4} {' '.join(e['tags'])}")


@click.command("bake")
@click.argument("envs", nargs=-1, metavar="[ENV]...")
@click.option("--os", "os_names", callback=options.nonempty, multiple=True, metavar="OS",
              help="Only this OS variant (repeatable).")
@click.option("--repo", callback=references.repository_option,
              help="Default of the bake variable REPO (default: from the matrix).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), callback=options.nonempty,
              help=f"Write here ('-': standard output, the default). The checkout commits {BAKE_FILE}.")
@click.option("--check", is_flag=True, help=f"Fail when the committed {BAKE_FILE} (or -o FILE) differs.")
@click.pass_context
def bake(ctx, envs, os_names, repo, output, check):
    """A buildx bake file: one target per environment, OS variant and stage, grouped by CUDA."""
    from builder import ci as ci_mod
    from builder import files, paths

    path = root = None
    if check:
        if output in (None, "-"):
            root = paths.checkout_root()
            if root is None:
                raise TfenvError(f"not in a tfenv checkout: pass -o FILE to name the {BAKE_FILE} to check")
            path = root / BAKE_FILE
        else:
            path = Path(output)
    m = checkout_matrix(ctx, root)
    text = ci_mod.dump(ci_mod.bake_file(m, ci_mod.select(m, envs, os_names), repo))
    if check:
        committed = files.read_bytes(path, "bake file").decode("utf-8", errors="replace")
        if committed != text:
            raise ChecksFailed(f"{path} differs from matrix.yaml: run `tfenv bake -o {path.name}`")
        click.echo(f"{path.name} matches matrix.yaml")
        return
    if output in (None, "-"):
        click.echo(text, nl=False)
        return
    files.write_text(output, text, what="bake file")
    click.echo(output, err=True)
