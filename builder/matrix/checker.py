"""The validation helpers matrix.yaml's reader uses: each check takes the key path, so every error says
where (file: key.path: what was expected), in one line."""

from __future__ import annotations

import difflib
import re
from typing import Any

from builder.matrix.model import MatrixError, unknown_name


class Checker:
    def __init__(self, source: str):
        self.source = source

    def fail(self, path: str, message: str):
        raise MatrixError(f"{self.source}: {path}: {message}")

    def mapping(self, value: Any, path: str, required=(), optional=()) -> dict:
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping, got {type_name(value)}")
        for key in required:
            if key not in value:
                self.fail(f"{path}.{key}" if path else key, "missing required key")
        allowed = set(required) | set(optional)
        for key in value:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), sorted(allowed), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                self.fail(f"{path}.{key}" if path else str(key), f"unknown key{hint}")
        return value

    def names(self, value: Any, path: str) -> dict:
        """A mapping whose keys are names (environments, OS variants): each key must be a string."""
        self.mapping(value, path, optional=value.keys() if isinstance(value, dict) else ())
        for key in value:
            if not isinstance(key, str) or not key:
                self.fail(f"{path}.{key}", f"expected a name, got {type_name(key)} (quote it: '{key}')")
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value:
            self.fail(path, f"expected a non-empty string, got {type_name(value)}")
        return value

    def reference(self, value: Any, path: str, repository: bool = False) -> str:
        """An image reference (or a repository name) Docker accepts."""
        from builder.core import references

        text = self.string(value, path)
        try:
            (references.check_repository if repository else references.check_reference)(text, "image")
        except references.BadReference as exc:
            self.fail(path, str(exc))
        return text

    def version(self, value: Any, path: str) -> str:
        text = self.string(value, path)
        if not VERSION.fullmatch(text):  # ASCII digits only: str.isdigit() accepts '²', int() does not
            self.fail(path, f"expected a version like '1.2.3', got {text!r}")
        return text

    def items(self, value: Any, path: str) -> list:
        if not isinstance(value, list):
            self.fail(path, f"expected a list, got {type_name(value)}")
        return value

    def strings(self, value: Any, path: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            self.fail(path, f"expected a list, got {type_name(value)}")
        return tuple(self.string(v, f"{path}[{i}]") for i, v in enumerate(value))

    def str_map(self, value: Any, path: str, each=None) -> dict[str, Any]:
        """A mapping of any keys, each value checked by each(value, path): a non-empty string unless given."""
        self.mapping(value, path, optional=value.keys() if isinstance(value, dict) else ())
        each = each or self.string
        return {str(k): each(v, f"{path}.{k}") for k, v in value.items()}

    def dll_names(self, value: Any, path: str) -> tuple[str, ...]:
        names = self.strings(value, path)
        for i, name in enumerate(names):
            if not name.lower().endswith(".dll") or "/" in name or "\\" in name:
                self.fail(f"{path}[{i}]", f"expected a bare DLL name like 'cudart64_110.dll', got {name!r}")
        return names

    def https(self, value: Any, path: str) -> str:
        text = self.string(value, path)
        if not text.startswith("https://") or any(ch in text for ch in " '\"`"):
            self.fail(path, f"expected an https:// URL without quotes or spaces, got {text!r}")
        return text

    def hex(self, value: Any, path: str, length: int) -> str:
        """A checksum: `length` lower-case hex digits, or "" for none."""
        text = self.string(value, path) if value != "" else ""
        if text and not re.fullmatch(rf"[0-9a-f]{{{length}}}", text):
            self.fail(path, f"expected {length} lower-case hex digits, got {text!r}")
        return text

    def date(self, value: Any, path: str) -> str:
        """A calendar date as text. The strict YAML loader keeps dates as strings; a timestamp is refused."""
        import datetime

        if isinstance(value, datetime.datetime):
            self.fail(path, f"expected a date like '2022-12-31', got the timestamp {value.isoformat()!r}")
        if isinstance(value, datetime.date):
            return value.isoformat()
        text = self.string(value, path)
        try:
            if not DATE.fullmatch(text):
                raise ValueError(text)
            datetime.date.fromisoformat(text)
        except ValueError:
            self.fail(path, f"expected a date like '2022-12-31', got {text!r}")
        return text

    def one_of(self, value: Any, path: str, known, what: str) -> str:
        text = self.string(value, path)
        if text not in known:
            self.fail(path, unknown_name(what, text, known))
        return text


VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)*")
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def type_name(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), f"a {type(value).__name__}"
    )
