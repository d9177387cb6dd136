"""The `tfenv` command: a thin Click group over builder/commands/, with its help in sections.

Commands are imported only when run, so `tfenv --help` stays fast (no docker, rich or jinja2 import).
"""

from __future__ import annotations

import contextlib
import importlib
import sys

import click

from builder import __version__
from builder.core.errors import TfenvError

# Help sections, in the order `tfenv --help` shows them, each a table of its commands: name, module in
# builder/commands/ (the command is its `<name>_command`), one-line help. Help is written here so listing
# commands imports nothing.
SECTIONS = {
    "Use an environment": """
        run           environment  Run a command, a shell or Jupyter in an environment's image.
        ps            environment  List tfenv's containers: CPU, memory, GPU memory, Jupyter URLs.
        stop          environment  Stop and remove containers tfenv run started.
        shell         environment  Open a shell in a running tfenv container.
    """,
    "Your project": """
        init          project      Start a project here: write tfenv.yaml (then build, test, run without ENV).
        devcontainer  project      Write .devcontainer/ for VS Code Dev Containers and Codespaces.
    """,
    "Build and verify": """
        build         build        Build an environment's image; in a project folder, the project's.
        test          build        Verify an image in a container: versions, CUDA libraries, GPU.
        base          build        Create a Debian base image from debootstrap (no registry).
        config        maintain     Show the build settings in force (CA, mirrors, repo) and where each is set.
    """,
    "Diagnose": """
        doctor        diagnose     Diagnose this machine's GPU, driver and CUDA libraries for an env.
        explain       diagnose     Explain a pasted TF error log: cause, evidence, the fix for its platform.
        web           web          Write the static site that explains a pasted log in the browser (Pyodide).
    """,
    "Windows and WSL": """
        wsl           windows      Write the WSL2 setup script of an environment (--windows: PowerShell).
        windows       windows      Write the native Windows setup.ps1 of an environment (no WSL, no Docker).
    """,
    "Maintain the matrix": """
        matrix        maintain     Show the version matrix (table, --json or --yaml).
        show          maintain     Everything about one environment, with its image tags.
        render        maintain     Render Dockerfiles and WSL scripts (--check: fail on drift).
        lock          maintain     Resolve each environment's full pin set into locks/.
        bake          maintain     A buildx bake file: every image as a parallel target.
        ci            maintain     CI matrices from matrix.yaml (`ci matrix --json`: GitHub Actions).
    """,
}


def _commands(sections):
    """name -> (module, help section, one-line help), from the sections' tables."""
    commands = {}
    for section, table in sections.items():
        for row in table.strip().splitlines():
            name, module, help_ = row.split(None, 2)
            commands[name] = (module, section, help_)
    return commands


COMMANDS = _commands(SECTIONS)


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return list(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module = importlib.import_module(f"builder.commands.{COMMANDS[name][0]}")
        return getattr(module, f"{name}_command")

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name and name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, COMMANDS, n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx, formatter):
        for section in SECTIONS:
            with formatter.section(section):
                formatter.write_dl([(name, help_) for name, (_, in_section, help_) in COMMANDS.items()
                                    if in_section == section])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tfenv")
@click.option("--matrix", "matrix_path", type=click.Path(dir_okay=False), envvar="TFENV_MATRIX",
              help="Use this matrix file instead of the packaged matrix.yaml.")
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error.")
@click.pass_context
def cli(ctx, matrix_path, debug):
    """Known-good TensorFlow 2.2-2.10 GPU environments, and why your machine fails."""
    ctx.obj = {"matrix_path": matrix_path}


def main(argv=None):
    """Entry point: every problem becomes one line on stderr and a documented exit code, never a traceback."""
    from builder.core import exitcodes, paths

    paths.use_checkout(None)  # main() may run more than once in one process (tests)
    _tolerant_output()
    previous_handlers = exitcodes.install_signal_handlers()
    debug = _debug_requested(argv)
    try:
        # Without standalone mode Click returns a command's ctx.exit() code instead of exiting.
        rc = cli.main(args=argv, prog_name="tfenv", standalone_mode=False)
        code = rc if isinstance(rc, int) else 0
    except TfenvError as exc:
        click.echo(f"tfenv: error: {error_text(exc)}", err=True)
        code = exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("tfenv: interrupted", err=True)
        code = exitcodes.interrupted_code()
    except click.ClickException as exc:  # usage errors (unknown option, missing argument, bad choice) too
        code = _click_error(exc)
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except SystemExit as exc:  # commands that sys.exit() with their container's status
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else exitcodes.BAD_INPUT)
        if code == exitcodes.INTERRUPTED:  # the command caught the interrupt and cleaned up itself
            click.echo("tfenv: interrupted", err=True)
            code = exitcodes.interrupted_code()
    except MemoryError:
        click.echo("tfenv: error: out of memory", err=True)
        code = exitcodes.BAD_INPUT
    except Exception as exc:  # a bug: one line (70), the traceback only when asked for
        lost = _lost_daemon(exc)
        if lost is not None:
            click.echo(f"tfenv: error: {lost}", err=True)
            code = lost.exit_code
        else:
            code = _internal_error(exc, debug)
    finally:
        exitcodes.restore_signal_handlers(previous_handlers)
    if code:
        sys.exit(code)


def _click_error(exc: click.ClickException) -> int:
    """Click's errors in tfenv's one line, with Click's exit status (2 for usage errors). `tfenv` alone still
    shows the help (Click 8.2+ raises that as a usage error)."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        exc.show()
        return exc.exit_code
    line = f"tfenv: error: {_one_line(error_text(exc.format_message()))}"
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        line += f" See `{ctx.command_path} --help`."
    click.echo(line, err=True)
    return exc.exit_code


def _lost_daemon(exc: Exception):
    if "docker" not in sys.modules:  # nothing talked to Docker
        return None
    from builder.docker import daemon

    return daemon.lost_connection(exc)


def _internal_error(exc: Exception, debug: bool) -> int:
    from builder.core import exitcodes

    if debug:
        import traceback

        traceback.print_exc()
    detail = _one_line(f"{type(exc).__name__}: {exc}")
    click.echo(f"tfenv: internal error: {detail} (run with --debug for the traceback)", err=True)
    return exitcodes.INTERNAL


def _debug_requested(argv) -> bool:
    import os

    args = sys.argv[1:] if argv is None else list(argv)
    if "--" in args:
        args = args[: args.index("--")]
    return "--debug" in args or bool(os.environ.get("TFENV_DEBUG"))


def error_text(exc: Exception) -> str:
    """The message on one line whatever the user typed into it (`-e $'\\n'`): control characters escaped."""
    text = str(exc)
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tolerant_output() -> None:
    """An ASCII-only or cp437 terminal gets '?' for what it cannot show instead of UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a closed or detached stream
                reconfigure(errors="replace")


if __name__ == "__main__":
    main()
