"""What several commands share: the loaded matrix, and writing or checking generated files."""

from __future__ import annotations

from pathlib import Path

import click

from builder.errors import TfenvError


def load_matrix(ctx: click.Context):
    """The matrix the user chose with --matrix / TFENV_MATRIX, or the packaged one."""
    from builder import matrix

    return matrix.load(ctx.find_root().obj.get("matrix_path"))


def env_names_argument(f):
    return click.argument("envs", nargs=-1, metavar="[ENV]...")(f)


def checkout_or(out: str | None, what: str) -> Path:
    """--out DIR, else the checkout tfenv runs from; one line when neither exists."""
    from builder import paths

    root = Path(out) if out else paths.checkout_root()
    if root is None:
        raise TfenvError(f"not in a tfenv checkout: pass {what}")
    return root
