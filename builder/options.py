"""Option checks shared by every command: an empty value is an error, never the same as leaving it out."""

from __future__ import annotations

from builder.errors import TfenvError


class BadOption(TfenvError):
    """An option value tfenv cannot use; one line naming the option."""


def _name(param) -> str:
    return max(param.opts, key=len) if param is not None and param.opts else "value"


def nonempty(ctx, param, value):
    """Click callback: `--os ''` is a mistake (an unset shell variable), not a request for the default."""
    if value is None:
        return None
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if not v.strip():
            raise BadOption(f"{_name(param)} '': give a value, or leave {_name(param)} out for the default")
    return value
