"""The `tfenv` command: a thin Click group. Each command parses, calls one function, prints.

Commands are imported only when run, so `tfenv --help` stays fast (no docker, rich or jinja2 import).
"""

from __future__ import annotations

import importlib
import sys

import click

from builder import __version__
from builder.errors import TfenvError

# name -> ("module:attribute", one-line help). Help is written here so listing commands imports nothing.
COMMANDS = {
    "matrix": ("builder.cli:matrix_cmd", "Show the version matrix (table, --json or --yaml)."),
    "show": ("builder.cli:show_cmd", "Everything about one environment, with its image tags."),
    "render": ("builder.cli:render_cmd", "Render the Dockerfiles from matrix.yaml (--check for drift)."),
    "lock": ("builder.cli:lock_cmd", "Resolve each environment's full pin set into locks/."),
    "base": ("builder.cmd_build:base_cmd", "Create the debian11 base image from debootstrap (no registry)."),
    "build": ("builder.cmd_build:build_cmd", "Build and tag an environment's image (--jupyter, --push)."),
    "test": ("builder.cmd_test:command", "Verify an image in a container: versions, CUDA libraries, GPU."),
    "run": ("builder.cmd_run:run_cmd", "Run a command, a shell or Jupyter in an environment's image."),
    "ps": ("builder.cmd_run:ps_cmd", "List the containers tfenv run started (with Jupyter URLs)."),
    "stop": ("builder.cmd_run:stop_cmd", "Stop and remove containers tfenv run started."),
    "wsl": ("builder.cmd_wsl:wsl_cmd", "Write the WSL2 setup script for one environment (--windows: PowerShell)."),
    "doctor": ("builder.cmd_doctor:command", "Diagnose this machine's GPU, driver and CUDA libraries for an env."),
    "ci": ("builder.cmd_ci:ci", "CI matrices from matrix.yaml (`ci matrix --json` for GitHub Actions)."),
    "bake": ("builder.cmd_ci:bake", "A buildx bake file: every image as a parallel target (-o docker-bake.json)."),
    "init": ("builder.commands.project:init_command", "Start a project here: write tfenv.yaml (ENV, --os, --jupyter)."),
    "devcontainer": ("builder.commands.project:devcontainer_command",
                     "Write .devcontainer/ for VS Code and Codespaces from tfenv.yaml."),
    "shell": ("builder.cmd_run:shell_cmd", "Open a shell in a running tfenv container."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, _, attr = COMMANDS[name][0].partition(":")
        return getattr(importlib.import_module(module), attr)

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name and name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, COMMANDS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx, formatter):
        rows = [(name, help_) for name, (_, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tfenv")
@click.option("--matrix", "matrix_path", type=click.Path(dir_okay=False), envvar="TFENV_MATRIX",
              help="Use this matrix file instead of the packaged matrix.yaml.")
@click.pass_context
def cli(ctx, matrix_path):
    """Known-good TensorFlow 2.2-2.9 GPU environments, and why your machine fails."""
    ctx.obj = {"matrix_path": matrix_path}


def load_matrix(ctx: click.Context):
    from builder import matrix

    return matrix.load(ctx.find_root().obj.get("matrix_path"))


def main(argv=None):
    """Entry point: known problems become one line on stderr and an exit code, never a traceback."""
    try:
        # Without standalone mode Click returns a command's ctx.exit() code instead of exiting.
        rc = cli.main(args=argv, prog_name="tfenv", standalone_mode=False)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except TfenvError as exc:
        click.echo(f"tfenv: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("tfenv: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("tfenv: interrupted", err=True)
        sys.exit(130)


# --- matrix, show, render, lock: light commands that live here ------------------------------


def _env_names_arg(f):
    return click.argument("envs", nargs=-1, metavar="[ENV]...")(f)


@click.command("matrix")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--yaml", "as_yaml", is_flag=True, help="Print as YAML.")
@click.option("--markdown", is_flag=True, help="Print the README's Markdown table.")
@click.pass_context
def matrix_cmd(ctx, as_json, as_yaml, markdown):
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
def show_cmd(ctx, env, os_name, repo, as_json):
    from builder import describe

    m = load_matrix(ctx)
    info = describe.env_dict(m, m.env(env), repo or m.image.repo, os_name)
    if as_json:
        click.echo(describe.dump(info, "json"), nl=False)
    else:
        describe.print_env(info)


@click.command("render")
@_env_names_arg
@click.option("--all", "all_", is_flag=True, help="Every environment (the default when none is named).")
@click.option("--os", "os_name", help="Only this OS variant.")
@click.option("--out", type=click.Path(file_okay=False), help="Write under this folder instead of the checkout.")
@click.option("--check", is_flag=True, help="Fail when the committed renders differ from matrix.yaml.")
@click.pass_context
def render_cmd(ctx, envs, all_, os_name, out, check):
    from pathlib import Path

    from builder import paths, render, wsl

    m = load_matrix(ctx)
    targets = _select_targets(m, envs, os_name)
    # The WSL scripts (wsl/ENV/) are per environment, not per OS variant: --os leaves them out.
    rendered = render.render_all(m, targets) + ([] if os_name else wsl.render_all(m, list(envs) or None))
    root = Path(out) if out else paths.checkout_root()
    if root is None:
        raise TfenvError("not in a tfenv checkout: pass --out DIR for the rendered dockerfiles/ and wsl/")
    if not check:
        for path in render.write(rendered, root):
            click.echo(str(path))
        return
    problems = render.check(rendered, root, folders=() if envs or os_name else tuple(render.RENDER_FOLDERS))
    for problem in problems:
        click.echo(f"drift: {problem}", err=True)
    if problems:
        raise TfenvError(f"{len(problems)} rendered file(s) differ from matrix.yaml: run `tfenv render`")
    click.echo(f"{len(rendered)} rendered files match matrix.yaml")


@click.command("lock")
@_env_names_arg
@click.option("--jupyter/--no-jupyter", default=True, help="Also resolve the Jupyter stage's lock.")
@click.pass_context
def lock_cmd(ctx, envs, jupyter):
    """Resolve the matrix locks (in a project folder without ENV: refresh its tfenv.lock)."""
    from builder import lock, paths
    from builder.project import config

    m = load_matrix(ctx)
    if not envs and config.find() is not None:  # in a project folder: its tfenv.lock, not the matrix locks
        from builder.project import actions

        project_lock, _ = actions.lock(m, actions.load(m), refresh=True)
        click.echo(f"{project_lock.path}: {len(project_lock.pins)} packages on top of the environment")
        return
    wanted = set(envs) or set(m.envs)
    for name in wanted:
        m.env(name)  # unknown names fail with the nearest match
    root = (paths.checkout_root() or paths.data_root()) / "locks"
    for target in lock.lock_targets(m):
        if target.env.name not in wanted:
            continue
        click.echo(str(lock.resolve(target, m, False, root)))
        if jupyter:
            click.echo(str(lock.resolve(target, m, True, root)))


def _select_targets(m, envs, os_name):
    if os_name and os_name not in m.os:
        from builder.matrix import UnknownEnvError, _unknown

        raise UnknownEnvError(_unknown("OS variant", os_name, m.os))
    names = list(envs) or list(m.envs)
    targets = []
    for name in names:
        env = m.env(name)
        for variant in env.os:
            if os_name in (None, variant):
                targets.append(m.target(name, variant))
    if not targets:
        raise TfenvError(f"no environment among {', '.join(names)} has the OS variant {os_name}")
    return targets


if __name__ == "__main__":
    main()
