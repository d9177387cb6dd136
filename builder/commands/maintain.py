"""Maintain the matrix: matrix, show, render, lock, bake, ci. Derived files are written or drift-checked."""

from __future__ import annotations

from pathlib import Path

import click

from builder.commands.common import checkout_or, env_names_argument, load_matrix
from builder.errors import TfenvError

BAKE_FILE = "docker-bake.json"


@click.command("matrix")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--yaml", "as_yaml", is_flag=True, help="Print as YAML.")
@click.option("--markdown", is_flag=True, help="Print the README's Markdown table.")
@click.pass_context
def matrix_command(ctx, as_json, as_yaml, markdown):
    """Show the version matrix (a table, or --json/--yaml/--markdown)."""
    from builder import describe

    m = load_matrix(ctx)
    if markdown:
        click.echo(describe.markdown_table(m), nl=False)
    elif as_json or as_yaml:
        click.echo(describe.dump(describe.matrix_dict(m), "json" if as_json else "yaml"), nl=False)
    else:
        describe.print_matrix_table(m)


@click.command("show")
@click.argument("env")
@click.option("--os", "os_name", help="Only this OS variant.")
@click.option("--repo", help="Image repository for the tags (default: from the matrix).")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def show_command(ctx, env, os_name, repo, as_json):
    """Everything about one environment, with its image tags."""
    from builder import describe

    m = load_matrix(ctx)
    info = describe.env_dict(m, m.env(env), repo or m.image.repo, os_name)
    if as_json:
        click.echo(describe.dump(info, "json"), nl=False)
    else:
        describe.print_env(info)


@click.command("render")
@env_names_argument
@click.option("--all", "all_", is_flag=True, help="Every environment (the default when none is named).")
@click.option("--os", "os_name", help="Only this OS variant.")
@click.option("--out", type=click.Path(file_okay=False), help="Write under this folder instead of the checkout.")
@click.option("--check", is_flag=True, help="Fail when the committed renders differ from matrix.yaml.")
@click.pass_context
def render_command(ctx, envs, all_, os_name, out, check):
    """Render the Dockerfiles, WSL and Windows scripts from matrix.yaml (--check: fail on drift)."""
    from builder import generated, render, windows, wsl

    m = load_matrix(ctx)
    targets = m.select(envs, [os_name] if os_name else ())
    rendered = render.render_all(m, targets)
    # The WSL and Windows scripts (wsl/ENV/, windows/ENV/) are per environment, not per OS variant: --os
    # leaves them out.
    if not os_name:
        rendered += wsl.render_all(m, list(envs) or None) + windows.render_all(m, list(envs) or None)
    root = checkout_or(out, "--out DIR for the rendered dockerfiles/, wsl/ and windows/")
    if not check:
        for path in generated.write(rendered, root):
            click.echo(str(path))
        return
    # A partial render cannot say which other files are stale.
    problems = generated.check(rendered, root, () if envs or os_name else render.STALE_GLOBS)
    for problem in problems:
        click.echo(f"drift: {problem}", err=True)
    if problems:
        raise TfenvError(f"{len(problems)} rendered file(s) differ from matrix.yaml: run `tfenv render`")
    click.echo(f"{len(rendered)} rendered files match matrix.yaml")


@click.command("lock")
@env_names_argument
@click.option("--jupyter/--no-jupyter", default=True, help="Also resolve the Jupyter stage's lock.")
@click.pass_context
def lock_command(ctx, envs, jupyter):
    """Resolve each environment's full pin set into locks/ (as of its lock_date).

    In a folder with tfenv.yaml and no ENV: resolve the project's tfenv.lock again instead.
    """
    from builder import lock, paths, windows
    from builder.project import config

    m = load_matrix(ctx)
    if not envs and config.find() is not None:
        from builder.project import actions

        project_lock, _ = actions.lock(m, actions.load(m), refresh=True)
        click.echo(f"{project_lock.path}: {len(project_lock.pins)} packages on top of the environment")
        return
    wanted = {t.env.name for t in m.select(envs)}
    root = (paths.checkout_root() or paths.data_root()) / "locks"
    for target in lock.lock_targets(m):
        if target.env.name not in wanted:
            continue
        click.echo(str(lock.resolve(target, m, False, root)))
        if jupyter:
            click.echo(str(lock.resolve(target, m, True, root)))
    for name in [n for n in m.envs if n in wanted and windows.supported(m.env(n))]:
        click.echo(str(windows.resolve_lock(m, m.env(name), root)))  # locks/ENV-win-pyX.Y.txt


@click.command("bake")
@env_names_argument
@click.option("--os", "os_names", multiple=True, metavar="OS", help="Only this OS variant (repeatable).")
@click.option("--repo", help="Default of the bake variable REPO (default: from the matrix).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help=f"Write here ('-': standard output, the default). The checkout commits {BAKE_FILE}.")
@click.option("--check", is_flag=True, help=f"Fail when the committed {BAKE_FILE} (or -o FILE) differs.")
@click.pass_context
def bake_command(ctx, envs, os_names, repo, output, check):
    """A buildx bake file: one target per environment, OS variant and stage, grouped by CUDA."""
    from builder import ci, generated

    m = load_matrix(ctx)
    text = ci.dump(ci.bake_file(m, m.select(envs, os_names), repo))
    if output in (None, "-") and not check:
        click.echo(text, nl=False)
        return
    path = checkout_or(None, f"-o FILE to name the {BAKE_FILE} to check") / BAKE_FILE \
        if output in (None, "-") else Path(output)
    item = generated.Generated(path.name, text)
    if not check:
        generated.write([item], path.parent)
        click.echo(output, err=True)
        return
    problems = generated.check([item], path.parent)
    if any(p.endswith(": missing") for p in problems):
        raise TfenvError(f"{path}: cannot read: No such file or directory")
    if problems:
        raise TfenvError(f"{path} differs from matrix.yaml: run `tfenv bake -o {path.name}`")
    click.echo(f"{path.name} matches matrix.yaml")


@click.group("ci")
def ci_command():
    """Matrices for CI engines, derived from matrix.yaml."""


@ci_command.command("matrix")
@env_names_argument
@click.option("--os", "os_names", multiple=True, metavar="OS", help="Only this OS variant (repeatable).")
@click.option("--repo", help="Image repository for the tags (default: from the matrix).")
@click.option("--json", "as_json", is_flag=True,
              help="One line of JSON: the `include` list, for fromJSON() in a workflow.")
@click.pass_context
def ci_matrix_command(ctx, envs, os_names, repo, as_json):
    """The GitHub Actions matrix: one entry per environment and OS variant."""
    from builder import ci

    m = load_matrix(ctx)
    entries = ci.github_matrix(m, m.select(envs, os_names), repo)
    if as_json:
        import json

        # Compact, one line: it goes through $GITHUB_OUTPUT as `include=<json>`.
        click.echo(json.dumps(entries, separators=(",", ":")))
        return
    for e in entries:
        click.echo(f"{e['env']:<14} {e['os']:<12} gpu={'yes' if e['gpu'] else 'no':<4} {' '.join(e['tags'])}")
