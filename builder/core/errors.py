"""The exceptions the CLI turns into one line on stderr and an exit code (never a traceback)."""


class TfenvError(Exception):
    """A problem the user can fix; str(self) is one line that says what and how."""

    exit_code = 2  # usage or environment problem; 1 is kept for "checks ran and failed"


class BadOption(TfenvError):
    """An option value that cannot mean anything (a -v, -e, --bind or --ca-cert)."""


class ChecksFailed(TfenvError):
    """The checks ran (their report is printed) and at least one failed."""

    exit_code = 1
