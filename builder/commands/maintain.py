"""Maintain the matrix: matrix, show, render, lock, bake, ci. Derived files are written or drift-checked."""

from __future__ import annotations

from pathlib import Path

import click

from builder.commands import common
from builder.commands.common import checkout_matrix, checkout_or, env_names_argument, load_matrix
from builder.core.errors import ChecksFailed, TfenvError

BAKE_FILE = "docker-bake.json"


@click.command("matrix")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--yaml", "as_yaml", is_flag=True, help="Print as YAML.")
@click.option("--markdown", is_flag=True, help="Print the README's Markdown table.")
@click.pass_context
def matrix_command(ctx, as_json, as_yaml, markdown):
    """Show the version matrix (a table, or --json/--yaml/--markdown)."""
    from builder.render import describe

    chosen = [flag for flag, on in (("--json", as_json), ("--yaml", as_yaml), ("--markdown", markdown)) if on]
    if len(chosen) > 1:
        raise TfenvError(f"{' and '.join(chosen)} are exclusive: pick one output format")
    m = load_matrix(ctx)
    if markdown:
        click.echo(describe.markdown_table(m), nl=False)
    elif as_json or as_yaml:
        click.echo(describe.dump(describe.matrix_dict(m), "json" if as_json else "yaml"), nl=False)
    else:
        describe.print_matrix_table(m)


@click.command("show")
@click.argument("env")
@click.option("--os", "os_name", callback=common.nonempty, help="Only this OS variant.")
@click.option("--repo", callback=common.repository_option,
              help="Image repository for the tags (default: TFENV_REPO, the config file, the matrix).")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.pass_context
def show_command(ctx, env, os_name, repo, as_json):
    """Everything about one environment, with its image tags."""
    from builder.commands import target
    from builder.render import describe

    m = load_matrix(ctx)
    info = describe.env_dict(m, m.env(env), target.repo(m, repo), os_name)
    if as_json:
        click.echo(describe.dump(info, "json"), nl=False)
    else:
        describe.print_env(info)


@click.command("render")
@env_names_argument
@click.option("--all", "all_", is_flag=True, help="Every environment (the default when none is named; not with names).")
@click.option("--os", "os_name", callback=common.nonempty, help="Only this OS variant.")
@click.option("--out", type=click.Path(file_okay=False), help="Write under this folder instead of the checkout.")
@click.option("--check", is_flag=True, help="Fail when the committed renders differ from matrix.yaml.")
@click.pass_context
def render_command(ctx, envs, all_, os_name, out, check):
    """Render the Dockerfiles, WSL and Windows scripts from matrix.yaml (--check: fail on drift)."""
    from builder.core import paths
    from builder.render import dockerfiles, generated, windows, wsl

    if all_ and envs:
        raise TfenvError(f"--all renders every environment: drop --all or the names ({' '.join(envs)})")
    root = checkout_or(out, "--out DIR for the rendered dockerfiles/, wsl/ and windows/")
    m = checkout_matrix(ctx, None if out else root)  # the checkout's matrix.yaml, whatever the install
    targets = m.select(envs, [os_name] if os_name else ())
    rendered = dockerfiles.render_all(m, targets)
    # The WSL and Windows scripts (wsl/ENV/, windows/ENV/) are per environment, not per OS variant: --os
    # leaves them out.
    if not os_name:
        rendered += wsl.render_all(m, list(envs) or None) + windows.render_all(m, list(envs) or None)
    if not check:
        for path in generated.write(rendered, root):
            click.echo(str(path))
        return
    # A partial render cannot say which other files are stale.
    problems = generated.check(rendered, root, () if envs or os_name else paths.STALE_GLOBS)
    for problem in problems:
        click.echo(f"drift: {problem}", err=True)
    if problems:
        raise ChecksFailed(f"{len(problems)} rendered file(s) differ from matrix.yaml: run `tfenv render`")
    click.echo(f"{len(rendered)} rendered files match matrix.yaml")


@click.command("lock")
@env_names_argument
@click.option("--jupyter/--no-jupyter", default=True, help="Also resolve the Jupyter stage's lock.")
@click.option("--check", is_flag=True, help="Resolve into a temporary folder and compare with locks/; write nothing.")
@click.pass_context
def lock_command(ctx, envs, jupyter, check):
    """Resolve each environment's full pin set, with the sha256 of every file it may install, into locks/
    (as of its lock_date), and pip's and the CUDA wheels' hashes (locks/wheels-*.txt).

    In a folder with tfenv.yaml and no ENV: resolve the project's tfenv.lock again instead.
    """
    from builder.commands import target
    from builder.core import files, paths

    if not envs and not check and target.in_project():
        from builder.project import actions

        m = load_matrix(ctx)
        project_lock, _ = actions.lock(m, target.choose(m, None, None).project, refresh=True)
        for note in project_lock.notes:
            click.echo(f"note: {note}")
        click.echo(f"{project_lock.path}: {len(project_lock.pins)} packages on top of the environment")
        return
    checkout = paths.checkout_root()
    if checkout is None:  # never rewrite an installed package's own files (site-packages)
        raise TfenvError("`tfenv lock` writes a checkout's locks/ (or, in a folder with tfenv.yaml, its "
                         "tfenv.lock): run it inside a tfenv checkout or a project")
    m = checkout_matrix(ctx, checkout)  # that checkout's matrix.yaml, whatever the install
    if not check:
        for path in _write_locks(m, envs, jupyter, checkout / "locks"):
            click.echo(str(path))
        return
    with files.temp_dir("lock-check") as tmp:
        written = _write_locks(m, envs, jupyter, tmp)
        committed = checkout / "locks"
        stale = [p.name for p in written
                 if not (committed / p.name).is_file() or (committed / p.name).read_bytes() != p.read_bytes()]
    if stale:
        raise ChecksFailed(f"{len(stale)} lock(s) differ from a fresh resolution ({', '.join(stale[:5])}"
                           f"{', ...' if len(stale) > 5 else ''}): run `tfenv lock`")
    click.echo(f"{len(written)} locks match a fresh resolution")


def _write_locks(m, envs, jupyter: bool, root) -> list:
    """Every lock of the named environments (all by default) and the wheels locks, written under root."""
    from builder.render import lock, windows

    wanted = {t.env.name for t in m.select(envs)}
    out = []
    for target in lock.lock_targets(m):
        if target.env.name not in wanted:
            continue
        out.append(lock.resolve(target, m, False, root))
        if jupyter:
            out.append(lock.resolve(target, m, True, root))
    for name in [n for n in m.envs if n in wanted and windows.supported(m.env(n))]:
        out.append(windows.resolve_lock(m, m.env(name), root))  # locks/ENV-win-pyX.Y.txt
    for python, platform in sorted(lock.linux_wheel_platforms(m).items()):
        out.append(lock.resolve_wheels(m, python, platform, False, root))  # locks/wheels-pyX.Y.txt
    out += windows.resolve_wheels(m, root)  # locks/wheels-win-pyX.Y.txt
    return out


@click.command("bake")
@common.targets_arguments
@click.option("--repo", callback=common.repository_option,
              help="Default of the bake variable REPO (default: the matrix's; not TFENV_REPO: the file is committed).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), callback=common.nonempty,
              help=f"Write here ('-': standard output, the default). The checkout commits {BAKE_FILE}.")
@click.option("--check", is_flag=True, help=f"Fail when the committed {BAKE_FILE} (or -o FILE) differs.")
@click.pass_context
def bake_command(ctx, envs, os_names, repo, output, check):
    """A buildx bake file: one target per environment, OS variant and stage, grouped by CUDA."""
    from builder.core import files
    from builder.render import ci, generated

    root = checkout_or(None, f"-o FILE to name the {BAKE_FILE} to check") if check and output in (None, "-") else None
    m = checkout_matrix(ctx, root)  # --check in a checkout: its own matrix.yaml, whatever the install
    text = ci.dump(ci.bake_file(m, m.select(envs, os_names), repo))
    if output in (None, "-") and not check:
        click.echo(text, nl=False)
        return
    path = root / BAKE_FILE if root else Path(output)
    if not check:
        files.write_text(path, text, what="bake file")  # atomic; the folder must exist
        click.echo(output, err=True)
        return
    files.read_bytes(path, "bake file")  # one line for a missing, special or huge file
    problems = generated.check([generated.Generated(path.name, text)], path.parent)
    if problems:
        raise ChecksFailed(f"{path} differs from matrix.yaml: run `tfenv bake -o {path.name}`")
    click.echo(f"{path.name} matches matrix.yaml")


@click.group("ci")
def ci_command():
    """Matrices for CI engines, derived from matrix.yaml."""


@ci_command.command("matrix")
@common.targets_arguments
@click.option("--repo", callback=common.repository_option,
              help="Image repository for the tags (default: the matrix's).")
@click.option("--json", "as_json", is_flag=True,
              help="One line of JSON: the `include` list, for fromJSON() in a workflow.")
@click.pass_context
def ci_matrix_command(ctx, envs, os_names, repo, as_json):
    """The GitHub Actions matrix: one entry per environment and OS variant."""
    from builder.render import ci

    m = load_matrix(ctx)
    entries = ci.github_matrix(m, m.select(envs, os_names), repo)
    if as_json:
        import json

        # Compact, one line: it goes through $GITHUB_OUTPUT as `include=<json>`.
        click.echo(json.dumps(entries, separators=(",", ":")))
        return
    for e in entries:
        click.echo(f"{e['env']:<14} {e['os']:<12} gpu={'yes' if e['gpu'] else 'no':<4} {' '.join(e['tags'])}")


@click.command("config")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def config_command(as_json):
    """Show the defaults every command uses for ca_cert, pip_index_url, apt_mirror, base_image and repo.

    \b
    Highest first: the command-line option, TFENV_<NAME> (and PIP_INDEX_URL), the config file, the matrix.
    """
    from builder.core import config

    path = config.config_path()
    settings = config.effective()
    if as_json:
        import json

        data = {"file": str(path), "settings": {k: {"value": v.value, "source": v.source} for k, v in settings.items()}}
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"config file: {path}{'' if path.exists() else ' (none)'}")
    width = max(len(k) for k in settings)
    for key, setting in settings.items():
        value = setting.value if setting.value is not None else "-"
        click.echo(f"{key:<{width}}  {value}  ({setting.source}; {config.ENV_VARS[key]})")
