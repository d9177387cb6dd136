"""Read a log from a file or stdin as text, whatever a user's shell wrote: UTF-8 (with or without BOM),
UTF-16 with a BOM (Windows PowerShell 5.1's `>`), UTF-16 without one, GBK from a Chinese Windows console (code page
936), or bytes that are none of these (read as UTF-8 with replacement characters).
Input that is no text (a directory, a missing file, a binary) raises Unreadable with one line to print."""

import codecs
import os

from builder.diagnose.i18n import t

SNIFF = 65536
MAX_BYTES = 512 * 1024 * 1024  # a log larger than this is read up to here


class Unreadable(Exception):
    """The input is not a text log; str(self) says why in one line."""


def read_path(path, stdin=None):
    """The text of `path`, or of stdin (a binary stream) for '-'."""
    if path == "-":
        stream = stdin
        if stream is None:
            import sys

            stream = getattr(sys.stdin, "buffer", sys.stdin)
        try:
            return _read(stream, "stdin")
        except (OSError, ValueError) as exc:
            raise Unreadable(t("cannot read stdin: {error}", error=exc)) from None
    if os.path.isdir(path):
        raise Unreadable(t("{path} is a directory, not a log file", path=path))
    try:
        with open(path, "rb") as f:
            return _read(f, path)
    except FileNotFoundError:
        raise Unreadable(t("{path}: no such file", path=path)) from None
    except OSError as exc:
        raise Unreadable(t("cannot read {path}: {error}", path=path, error=exc.strerror or exc)) from None


def _read(stream, name):
    """Sniff the first block before reading on (/dev/zero and binaries stop there), and read at most MAX_BYTES."""
    head = stream.read(SNIFF)
    if isinstance(head, str):
        head = head.encode("utf-8", "surrogateescape")
    decode(head, name)  # raises Unreadable for a binary
    rest = stream.read(MAX_BYTES - len(head)) if len(head) == SNIFF else b""
    if isinstance(rest, str):
        rest = rest.encode("utf-8", "surrogateescape")
    return decode(head + rest, name)


def decode(data, name="input"):
    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                       (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, "replace")
    head = data[:SNIFF]
    if head and head.count(b"\x00") > len(head) // 4:
        # UTF-16 without a BOM puts a NUL beside every ASCII character: on the odd bytes for LE, even for BE.
        odd, even = head[1::2].count(b"\x00"), head[0::2].count(b"\x00")
        if odd > len(head) // 3 and even < len(head) // 50:
            return data.decode("utf-16-le", "replace")
        if even > len(head) // 3 and odd < len(head) // 50:
            return data.decode("utf-16-be", "replace")
        raise Unreadable(t("{name} looks binary, not a text log", name=name))
    controls = sum(head.count(bytes([c])) for c in range(0, 32) if c not in (9, 10, 12, 13, 27))
    if head and controls > len(head) // 10:
        raise Unreadable(t("{name} looks binary, not a text log", name=name))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:  # a Chinese Windows console's file (code page 936: GBK, which GB 18030 contains)
        return data.decode("gb18030")
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace")
