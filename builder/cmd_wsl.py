"""`tfenv wsl ENV`: write the WSL2 setup script (bash inside the distribution, or --windows PowerShell)."""

from __future__ import annotations

import click


@click.command("wsl")
@click.argument("env")
@click.option("--distro", help="Only this WSL distribution (default: every one the environment was tested on).")
@click.option("--windows", is_flag=True, help="Write the PowerShell script for the Windows side instead.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write to this file instead of standard output.")
@click.pass_context
def wsl_cmd(ctx, env, distro, windows, output):
    """Write the script that installs ENV into a venv inside WSL2 (with --windows: the setup.ps1 that
    prepares Windows and then runs it). The renders for every environment are committed under wsl/."""
    from pathlib import Path

    from builder import wsl
    from builder.cli import load_matrix
    from builder.errors import TfenvError

    m = load_matrix(ctx)
    rendered = wsl.render(m, m.env(env), windows=windows, distro=distro)
    if not output:
        click.echo(rendered.text, nl=False)
        return
    path = Path(output)
    try:
        # newline="": the render's own line ends on every OS (LF for bash, CRLF for PowerShell).
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(rendered.text)
        if not windows:
            path.chmod(path.stat().st_mode | 0o111)
    except OSError as exc:
        raise TfenvError(f"cannot write {path}: {exc.strerror}") from None
    click.echo(str(path), err=True)
