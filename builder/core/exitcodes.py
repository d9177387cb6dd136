"""Every exit status tfenv documents, and the signals that end it (README: "Exit status").

One module so that commands, the CLI entry point and the README table cannot disagree.
"""

from __future__ import annotations

import signal
import threading

OK = 0
CHECKS_FAILED = 1  # the checks ran and at least one failed (test, doctor, render --check, bake --check)
BAD_INPUT = 2  # bad input, or could not run (no daemon, no image, unwritable file)
INTERNAL = 70  # a bug in tfenv (EX_SOFTWARE): one line, the traceback with --debug
SIGHUP_EXIT = 128 + 1  # the terminal or SSH session went away
INTERRUPTED = 128 + 2  # Ctrl-C (SIGINT)
TERMINATED = 128 + 15  # SIGTERM: a CI runner cancelling the job, `docker stop`, `kill`

TABLE = (
    (OK, "success"),
    (CHECKS_FAILED, "checks ran and at least one failed (test, doctor, render --check, bake --check); "
                    "explain recognised nothing"),
    (BAD_INPUT, "bad input, or could not run (no Docker daemon, no such image, unwritable file); a project's "
                "requirements no environment fits (`tfenv init`) or that cannot be met on it (`tfenv lock`, "
                "`tfenv build`: one line listing every one)"),
    (INTERNAL, "internal error in tfenv (a bug: run again with --debug and report the traceback)"),
    (SIGHUP_EXIT, "the terminal went away (SIGHUP); whatever tfenv started is removed"),
    (INTERRUPTED, "interrupted by Ctrl-C (SIGINT); whatever tfenv started is removed"),
    (TERMINATED, "terminated (SIGTERM, e.g. a cancelled CI job); whatever tfenv started is removed"),
)
DOCUMENTED = frozenset(code for code, _ in TABLE)


class Interrupted(KeyboardInterrupt):
    """SIGTERM/SIGHUP/SIGBREAK raised as a KeyboardInterrupt, so every Ctrl-C cleanup path also runs for them."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


_received: list[int] = []  # signals seen in this process, newest last


def received() -> int | None:
    """The last terminating signal this process got (None: none, or only Ctrl-C)."""
    return _received[-1] if _received else None


def interrupted_code() -> int:
    """The exit status for an interruption: 143 after SIGTERM, 129 after SIGHUP, else 130."""
    signum = received()
    if signum is None:
        return INTERRUPTED
    if signum == getattr(signal, "SIGTERM", None):
        return TERMINATED
    if signum == getattr(signal, "SIGHUP", None):
        return SIGHUP_EXIT
    return INTERRUPTED  # SIGBREAK (Ctrl-Break on Windows) reads like Ctrl-C


def raise_interrupted(signum, frame=None):
    """The signal handler: record the signal, then unwind like Ctrl-C."""
    _received.append(signum)
    raise Interrupted(signum)


def install_signal_handlers(clear: bool = True) -> dict:
    """SIGTERM, SIGHUP (and SIGBREAK on Windows) end tfenv the way Ctrl-C does: cleanups run, then exit 143/129.

    Returns the previous handlers for restore_signal_handlers (tests call main() in-process). Only from the
    main thread: signal.signal refuses elsewhere.
    """
    previous: dict = {}
    if clear:
        _received.clear()  # main() may run more than once in one process (tests)
    if threading.current_thread() is not threading.main_thread():
        return previous
    for name in ("SIGTERM", "SIGHUP", "SIGBREAK"):
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        try:
            if signal.getsignal(signum) == signal.SIG_IGN and name == "SIGHUP":
                continue  # started under nohup: the user asked to survive a hang-up
            previous[signum] = signal.signal(signum, raise_interrupted)
        except (OSError, ValueError):  # not settable here (embedded interpreter)
            continue
    return previous


def restore_signal_handlers(previous: dict) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler if handler is not None else signal.SIG_DFL)


def markdown_table() -> str:
    """The README's exit status table (tests/unit/commands/test_reliability.py checks the README carries it)."""
    rows = ["| status | meaning |", "|---|---|"] + [f"| {code} | {meaning} |" for code, meaning in TABLE]
    return "\n".join(rows) + "\n"
