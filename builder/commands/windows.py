"""Windows and WSL: wsl (the WSL2 setup scripts), windows (the native Windows setup.ps1)."""

from __future__ import annotations

import click

from builder.commands import common
from builder.commands.common import load_matrix


@click.command("wsl")
@click.argument("env")
@click.option("--distro", callback=common.nonempty,
              help="Only this WSL distribution (default: every one the environment was tested on).")
@click.option("--windows", is_flag=True, help="Write the PowerShell script for the Windows side instead.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), callback=common.nonempty,
              help="Write to this file instead of standard output.")
@click.pass_context
def wsl_command(ctx, env, distro, windows, output):
    """Write the script that installs ENV into a venv inside WSL2 (with --windows: the setup.ps1 that
    prepares Windows and then runs it). The renders for every environment are committed under wsl/."""
    from builder.core import files
    from builder.render import wsl

    m = load_matrix(ctx)
    rendered = wsl.render(m, m.env(env), windows=windows, distro=distro)
    if not output:
        # Standard output is text: the platform adds its own line ends (CRLF on Windows), so give it LF.
        click.echo(rendered.text.replace("\r\n", "\n"), nl=False)
        return
    # Atomic, LF line ends, never onto /dev/null or a fifo (builder.core.files); the folder must exist.
    path = files.write_text(output, rendered.text, mode=0o755 if rendered.executable else None, what="script")
    click.echo(str(path), err=True)


@click.command("windows")
@click.argument("env")
@click.option("-o", "--output", type=click.Path(dir_okay=False), callback=common.nonempty,
              help="Write to this file instead of standard output.")
@click.pass_context
def windows_command(ctx, env, output):
    """Write setup.ps1, which installs ENV natively on 64-bit Windows 10/11 into a venv (TF 2.5-2.10 from pip
    alone; TF 2.2-2.4 guided through NVIDIA's CUDA installer and the cuDNN zip). Run it with
    `powershell -NoProfile -ExecutionPolicy Bypass -File .\\setup.ps1`. The renders are committed under windows/."""
    from builder.core import files
    from builder.render import windows

    m = load_matrix(ctx)
    rendered = windows.render(m, m.env(env))
    if not output:
        click.echo(rendered.text, nl=False)
        return
    # The committed bytes (CRLF, no BOM), atomically, never onto a special file; the folder must exist.
    path = files.write_text(output, rendered.text, what="script")
    click.echo(str(path), err=True)
