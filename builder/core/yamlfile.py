"""Strict YAML reading for matrix files: one line for every way a file can be wrong, never a traceback.

- duplicate keys are an error naming both lines (PyYAML silently keeps the last one);
- dates stay strings (the matrix validates them), so `2022-13-45` cannot crash the YAML timestamp parser;
- UTF-8 with or without BOM and UTF-16/32 with a BOM (PowerShell 5.1's `>`) are decoded; other bytes refused;
- nesting deeper than a matrix ever needs is refused before the parser recurses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builder.core import files
from builder.core.errors import TfenvError

MAX_DEPTH = 32  # matrix.yaml nests 6 levels


class YamlFileError(TfenvError):
    """The file is not YAML tfenv can read; one line with file:line."""


_BOMS = (  # longest first: the UTF-32 LE BOM starts with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32"),
    (b"\xef\xbb\xbf", "utf-8", "UTF-8"),
    (b"\xff\xfe", "utf-16-le", "UTF-16"),
    (b"\xfe\xff", "utf-16-be", "UTF-16"),
)


def decode(data: bytes, name: str) -> str:
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError as exc:
                raise YamlFileError(f"{name}: starts with a {label} byte-order mark but is not valid {label} "
                                    f"(byte {exc.start}): save it as UTF-8") from None
    if b"\x00" in data:
        raise YamlFileError(f"{name}: contains NUL bytes (UTF-16 without a byte-order mark, or not text): "
                            "save it as UTF-8")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlFileError(f"{name}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): "
                            "save it as UTF-8") from None


def _loader_class():
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """SafeLoader without implicit timestamps, refusing duplicate keys and deep nesting."""

        def compose_node(self, parent, index):
            self._depth = getattr(self, "_depth", 0) + 1
            try:
                if self._depth > MAX_DEPTH:
                    mark = self.peek_event().start_mark
                    raise YamlFileError(f"{self.name}:{mark.line + 1}: nested more than {MAX_DEPTH} levels deep")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                self.flatten_mapping(node)
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:  # a list or mapping as a key
                        raise YamlFileError(f"{self.name}:{key_node.start_mark.line + 1}: a key must be a "
                                            "name, not a list or mapping") from None
                    line = key_node.start_mark.line + 1
                    if first is not None:
                        raise YamlFileError(f"{self.name}:{line}: duplicate key {key!r} (first at line {first}): "
                                            "the last one would silently win; keep one")
                    seen[key] = line
            return super().construct_mapping(node, deep)

    # Dates stay strings: the matrix validates them and says which key is wrong.
    StrictLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return StrictLoader


_LOADER = None


def loads(text: str, name: str) -> Any:
    import yaml

    global _LOADER
    _LOADER = _LOADER or _loader_class()
    loader = None
    try:
        loader = _LOADER(text)  # the reader refuses control characters here already
        loader.name = name
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlFileError(f"{where}: invalid YAML: {problem}") from None
    except (ValueError, TypeError, OverflowError) as exc:  # an explicit !!timestamp, !!int with bad text
        raise YamlFileError(f"{name}: invalid YAML value: {exc}") from None
    except RecursionError:
        raise YamlFileError(f"{name}: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


def load(path: Path | str, what: str = "matrix file") -> Any:
    path = Path(path)
    return loads(decode(files.read_bytes(path, what), path.name), path.name)
