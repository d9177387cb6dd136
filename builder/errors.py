"""The one exception type the CLI turns into a one-line error and an exit code (never a traceback)."""


class TfenvError(Exception):
    """A problem the user can fix; str(self) is one line that says what and how."""

    exit_code = 2  # usage or environment problem; 1 is kept for "checks ran and failed"


class ChecksFailed(TfenvError):
    """The checks ran and at least one failed (test, doctor, render --check, bake --check)."""

    exit_code = 1
