"""`tfenv windows ENV`: write the native Windows setup script (PowerShell) for one environment."""

from __future__ import annotations

import click


@click.command("windows")
@click.argument("env")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write to this file instead of standard output.")
@click.pass_context
def windows_command(ctx, env, output):
    """Write setup.ps1, which installs ENV natively on Windows 10/11 (TF 2.5-2.10 from pip alone; TF 2.2-2.4
    guided through NVIDIA's installer). Run it with: powershell -ExecutionPolicy Bypass -File .\\setup.ps1
    The renders for every environment are committed under windows/."""
    from pathlib import Path

    from builder import windows
    from builder.cli import load_matrix
    from builder.errors import TfenvError

    m = load_matrix(ctx)
    rendered = windows.render(m, m.env(env))
    if not output:
        click.echo(rendered.text, nl=False)
        return
    path = Path(output)
    try:
        # CRLF: the file is for Windows, where Notepad and PowerShell 5.1 expect it.
        with open(path, "w", encoding="ascii", newline="\r\n") as f:
            f.write(rendered.text)
    except OSError as exc:
        raise TfenvError(f"cannot write {path}: {exc.strerror}") from None
    click.echo(str(path), err=True)
