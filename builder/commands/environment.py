"""Use an environment: run (a command, a shell or Jupyter), ps, stop."""

from __future__ import annotations

import os
import shutil
import sys

import click

from builder.commands import common
from builder.commands.common import load_matrix
from builder.core.errors import TfenvError


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class _RunCommand(click.Command):
    """Keeps the raw arguments: `tfenv run -- python x.py` in a project folder names no environment, but
    Click would take `python` as ENV."""

    def parse_args(self, ctx, args):
        ctx.meta["tfenv.raw_args"] = list(args)
        return super().parse_args(ctx, args)


def _env_was_given(ctx, env) -> bool:
    raw = ctx.meta.get("tfenv.raw_args", [])
    before = raw[: raw.index("--")] if "--" in raw else raw
    return env is not None and env in before


@click.command("run", cls=_RunCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("env", required=False)
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="[-- CMD...]")
@click.option("--os", "os_name", callback=common.nonempty, help="OS variant (default: the environment's first).")
@click.option("--repo", callback=common.repository_option,
              help="Image repository (default: TFENV_REPO, the config file, the matrix).")
@click.option("--gpus", type=click.Choice(["auto", "all", "none"]), default="auto", show_default=True,
              help="auto: all GPUs when Docker has the NVIDIA runtime, otherwise none.")
@click.option("-v", "--volume", "volumes", multiple=True, metavar="HOST:CONTAINER[:ro]", help="Extra bind mount.")
@click.option("-e", "--env", "env_vars", multiple=True, metavar="KEY=VALUE", help="Environment variable.")
@click.option("--no-mount", is_flag=True, help="Do not mount the current directory at the working directory.")
@click.option("--name", callback=common.nonempty, help="Container name (default: tfenv-ENV-run-XXXXXX).")
@click.option("--jupyter", is_flag=True, help="Start JupyterLab from the image's Jupyter stage.")
@click.option("--build", is_flag=True, help="With --jupyter: build the Jupyter stage when it is missing.")
@click.option("--port", type=click.IntRange(1, 65535),
              help="With --jupyter: host port (default: the first free one from 8888).")
@click.option("--bind", default="127.0.0.1", show_default=True, help="With --jupyter: host address to publish on.")
@click.option("-d", "--detach", is_flag=True, help="With --jupyter: print the URL and return (see tfenv ps/stop).")
@common.build_options
@click.pass_context
def run_command(ctx, env, command, os_name, repo, gpus, volumes, env_vars, no_mount, name, jupyter, build, port,
                bind, detach, **build_kwargs):
    """Run CMD (default: a shell on a terminal) in ENV's image, with the current directory mounted.

    In a folder with tfenv.yaml and no ENV: in the project's image.

    \b
    tfenv run tf29 -- python train.py
    tfenv run tf29 --jupyter
    tfenv run -- python train.py       (in a project folder)
    """
    from builder.docker import daemon, run

    command, env = _split_env(ctx, env, list(command))
    bind = _check_run_options(command, jupyter, build, port, bind, detach, build_kwargs)
    # Parse everything the user typed before touching Docker, so typos fail fast.
    mounts = [run.parse_volume(v) for v in volumes]
    environment = [run.parse_env(e) for e in env_vars]
    m = load_matrix(ctx)
    subject = _subject(m, env, os_name, repo, jupyter)
    target = subject.target
    build_settings = common.make_build_options(build_kwargs, repo=repo, jupyter=True) if build else None
    command, interactive = _command_or_shell(command, target.env.name, jupyter)
    c = daemon.client()
    use_gpu, reason = daemon.resolve_gpus(c, gpus)
    ref, image = _run_image(c, subject, build_settings)
    if not use_gpu and gpus == "auto":
        click.echo(f"tfenv: running without a GPU: {reason}", err=True)

    spec = run.make_spec(
        ref, command, env_name=target.env.name, workdir=m.image.workdir, cwd=None if no_mount else os.getcwd(),
        volumes=mounts, environment=environment, gpu=use_gpu, name=name, interactive=interactive,
        kind="jupyter" if jupyter else "run",
    )
    # sys.exit, not ctx.exit: Click's non-standalone main() returns ctx.exit codes instead of exiting.
    if jupyter:
        from builder.docker import jupyter as jupyter_server

        sys.exit(jupyter_server.serve(c, image, spec, bind, port, detach))
    if interactive:
        sys.exit(run.run_interactive(spec))
    sys.exit(run.run_streaming(c, spec))


def _split_env(ctx, env, command: list) -> tuple[list, str | None]:
    """`tfenv run -- CMD` names no environment: Click took CMD's first word as ENV; give it back."""
    from builder.commands import target

    if not _env_was_given(ctx, env):
        if env is not None:
            command.insert(0, env)
        env = None
        if not target.in_project():
            raise TfenvError("name an environment (e.g. `tfenv run tf29 -- python x.py`), or run in a folder "
                             "with tfenv.yaml (`tfenv init ENV`)")
    return command, env


def _check_run_options(command, jupyter, build, port, bind, detach, build_kwargs) -> str:
    """Refuse options that would be ignored; the bind address, checked, for Jupyter."""
    if not jupyter:
        for flag, given in (("--port", port is not None), ("--bind", bind != "127.0.0.1"),
                            ("--detach", detach), ("--build", build)):
            if given:
                raise TfenvError(f"{flag} only applies with --jupyter")
    elif command:
        raise TfenvError("--jupyter runs Jupyter itself: drop the command after --")
    else:
        from builder.docker import jupyter as jupyter_server

        bind = jupyter_server.check_bind(bind)
    if not build:
        for key, value in build_kwargs.items():
            if value not in (None, False):
                raise TfenvError(f"--{key.replace('_', '-')} only applies with --jupyter --build")
    return bind


def _subject(m, env, os_name, repo, jupyter):
    """ENV's environment, or (no ENV) this folder's project, which must have a Jupyter stage for --jupyter."""
    from builder.commands import target

    subject = target.choose(m, env, os_name, repo, jupyter=jupyter)
    if subject.project is not None and jupyter and not subject.project.jupyter:
        raise TfenvError("tfenv.yaml has `jupyter: false`: set it to true and run `tfenv build`")
    return subject


def _command_or_shell(command, env: str, jupyter: bool) -> tuple[list, bool]:
    """The command to run, and whether it runs interactively (a terminal and the docker CLI): no command
    on a terminal is a shell."""
    if jupyter:
        return command, False
    tty = _isatty(sys.stdin) and _isatty(sys.stdout)
    interactive = tty and shutil.which("docker") is not None
    if not command:
        if not tty:
            raise TfenvError(f"no command and no terminal for a shell: tfenv run {env} -- CMD...")
        if not interactive:
            raise TfenvError("an interactive shell needs the docker CLI on PATH; or pass a command after --")
        command = ["bash"]
    return command, interactive


def _run_image(c, subject, build_settings):
    """(ref, image) to run: the project's for today's lock, else the environment's (built first with
    --jupyter --build when missing)."""
    from builder.docker import daemon
    from builder.matrix import tags

    m, target = subject.matrix, subject.target
    if subject.project is not None:
        if build_settings is not None:
            raise TfenvError("--build is for environment images: in a project folder run `tfenv build` first")
        from builder.project import actions

        ref = actions.current_image(m, subject.project, c, subject.repo).ref
    else:
        ref = tags.image_refs(target, subject.repo, jupyter=subject.jupyter)[1]
    if build_settings is not None and not daemon.has_image(c, ref):
        from builder.core import progress
        from builder.docker import images

        # --build takes the same options and defaults as `tfenv build`.
        images.build(m, target, build_settings, progress.display(False))
    return ref, daemon.require_image(c, ref, subject.build_hint)


@click.command("ps")
def ps_command():
    """List the containers tfenv run started (Jupyter URLs included)."""
    from builder.docker import containers, daemon, live, run

    managed = run.list_managed(daemon.client())
    if not managed:
        click.echo("no tfenv containers", err=True)
        return
    figures = live.usage(managed)
    header = ("NAME", "ENV", "STATUS", "CPU", "MEMORY", "GPU MEMORY", "URL")
    rows = [(c.name, c.labels.get(containers.ENV_LABEL, "?"), c.status, figures[c.name].cpu,
             figures[c.name].memory, figures[c.name].gpu_memory, c.labels.get(containers.URL_LABEL, "-"))
            for c in managed]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for r in [header, *rows]:
        click.echo("  ".join(f"{v:<{w}}" for v, w in zip(r, widths)) + f"  {r[-1]}")


@click.command("stop")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option("--all", "all_", is_flag=True, help="Every container tfenv run started.")
def stop_command(names, all_):
    """Stop and remove containers tfenv run started (detached Jupyter servers)."""
    from builder.docker import daemon, run

    if not names and not all_:
        raise TfenvError("name the containers to stop (see `tfenv ps`), or pass --all")
    if names and all_:
        raise TfenvError("pass names or --all, not both")
    stopped = run.stop_managed(daemon.client(), list(names), all_)
    for name in stopped:
        click.echo(f"stopped {name}")
    if not stopped:
        click.echo("no tfenv containers", err=True)


@click.command("shell")
@click.argument("name", required=False)
def shell_command(name):
    """Open bash in a running tfenv container (the only one, or NAME; `tfenv ps` lists them)."""
    from builder.docker import daemon, live, run

    running = [c for c in run.list_managed(daemon.client()) if c.status == "running"]
    chosen = live.choose(running, name)
    sys.exit(live.shell(chosen.name))
