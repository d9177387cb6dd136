"""What tfenv's own tests share: the checkout's paths, the shipped matrix, THE CLI runner, the in-process runner.

Fixtures (the shipped matrix `m`, the Docker client, a matrix writer) live in tests/conftest.py.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the checkout
UNIT = ROOT / "tests" / "unit"  # its data folders: explain_corpus/, snapshots/, schemas/
FAKES = ROOT / "tests" / "fakes"
TFENV = [sys.executable, "-m", "builder.cli"]


def as_from_a_terminal() -> None:
    """`preexec_fn` of a child that a test interrupts (Ctrl-C, a hang-up): SIGINT and SIGHUP back to their
    defaults, as in a terminal. A test run started in the background (`cmd &`, nohup, some CI runners) leaves them
    ignored and children inherit that: Python then installs no KeyboardInterrupt handler, and tfenv rightly keeps
    running through a hang-up it was told to ignore, so the signal tests would test nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


@functools.lru_cache(maxsize=None)
def matrix():
    """The shipped matrix.yaml, loaded once (frozen dataclasses); the `m` fixture hands on the same object."""
    from builder.matrix import validate

    return validate.load(ROOT / "matrix.yaml")


def tfenv(*args, cwd=ROOT, env: dict | None = None, exact_env: dict | None = None, clean_env: bool = False,
          input=None, stdin=subprocess.DEVNULL, text: bool = True, timeout: float = 900, **run_kw):
    """The real CLI in a subprocess, as a user runs it: a CompletedProcess with stdout and stderr.

    env is laid over this process's environment (clean_env: without TFENV_* and PIP_INDEX_URL first);
    exact_env is the whole environment, nothing added. stdin is empty unless `input` is given; run_kw goes
    to subprocess.run (encoding=, say)."""
    if exact_env is not None:
        full_env = dict(exact_env)
    else:
        base = {k: v for k, v in os.environ.items()
                if not (clean_env and (k.startswith("TFENV_") or k == "PIP_INDEX_URL"))}
        full_env = {**base, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([*TFENV, *args], capture_output=True, text=text, cwd=cwd, env=full_env, input=input,
                          stdin=None if input is not None else stdin, timeout=timeout, **run_kw)


def invoke(*args, matrix_file=None):
    """The CLI in this process through Click's runner: a Result with output and exception (for coverage and
    speed where the exit path itself is not under test)."""
    from click.testing import CliRunner

    from builder.cli import cli

    argv = (["--matrix", str(matrix_file)] if matrix_file else []) + list(args)
    return CliRunner().invoke(cli, argv, standalone_mode=False, catch_exceptions=True)
