"""`tfenv wsl ENV`: write the WSL2 setup script (bash inside the distribution, or --windows PowerShell)."""

from __future__ import annotations

import click

from builder import options


@click.command("wsl")
@click.argument("env")
@click.option("--distro", callback=options.nonempty,
              help="Only this WSL distribution (default: every one the environment was tested on).")
@click.option("--windows", is_flag=True, help="Write the PowerShell script for the Windows side instead.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), callback=options.nonempty,
              help="Write to this file instead of standard output.")
@click.pass_context
def wsl_cmd(ctx, env, distro, windows, output):
    """Write the script that installs ENV into a venv inside WSL2 (with --windows: the setup.ps1 that
    prepares Windows and then runs it). The renders for every environment are committed under wsl/."""
    from builder import files, wsl
    from builder.cli import load_matrix

    m = load_matrix(ctx)
    rendered = wsl.render(m, m.env(env), windows=windows, distro=distro)
    if not output:
        click.echo(rendered.text, nl=False)
        return
    # newline="" (files.write_text) keeps LF on Windows too: the bash script runs inside Linux.
    path = files.write_text(output, rendered.text, mode=None if windows else 0o755, what="script")
    click.echo(str(path), err=True)
