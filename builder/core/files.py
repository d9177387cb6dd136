"""Reading inputs with a size limit and writing outputs atomically: the one place tfenv touches user paths.

Writes go to a temporary file in the same folder, then rename over the target, so a failure (full disk,
Ctrl-C, SIGTERM) never leaves a half-written file, and a special file (/dev/null, a fifo, /sys/...) is
refused instead of being chmodded or replaced.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Iterable, Sequence, Tuple

from builder.core.errors import BadOption, TfenvError

MAX_INPUT = 1 << 20  # 1 MiB: far above any matrix, facts file or CA bundle tfenv reads


class FileError(TfenvError):
    """A path tfenv cannot read or write; one line naming the path and why."""


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def show(path: Path | str, limit: int = 120) -> str:
    """A path for a one-line message: a 300-character name is cut, not printed whole."""
    text = str(path)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_bytes(path: Path | str, what: str = "file", limit: int = MAX_INPUT) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (never reads more than limit + 1)."""
    path = Path(path)
    try:
        # stat before open: opening a fifo would block until something writes to it.
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise FileError(f"{path}: cannot read: it is a folder, not a {what}")
        if not stat.S_ISREG(mode):
            raise FileError(f"{path}: cannot read: not a regular file (a {what} must be one)")
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise FileError(f"{path}: cannot read: {_why(exc) if isinstance(exc, OSError) else exc}") from None
    if len(data) > limit:
        raise FileError(f"{path}: cannot read: larger than {limit // 1024} KiB, too big for a {what}")
    return data


def read_ca_cert(path: Path | str, what: str = "--ca-cert") -> bytes:
    """The PEM bundle a build trusts (--ca-cert): a small regular file (`--ca-cert /dev/zero` must not fill
    memory) with a certificate in it. `what` names where the path came from (--ca-cert, TFENV_CA_CERT, the
    config file's key)."""
    try:
        data = read_bytes(path, "PEM certificate file")
    except FileError as exc:
        raise BadOption(f"{what} {exc}") from None
    if b"-----BEGIN CERTIFICATE-----" not in data:
        raise BadOption(f"{what} {path}: not a PEM certificate (expected '-----BEGIN CERTIFICATE-----')")
    return data


def check_writable(path: Path | str, what: str = "output", make_parents: bool = False) -> Path:
    """Fail now, before any work, when `path` cannot be written: a special file, a folder, a missing or
    read-only folder, a name too long. make_parents: missing folders are fine when the nearest one that
    exists is writable (the writer makes them, as pytest does; nothing is made here). Returns the path."""
    path = Path(path)
    name = path.name
    if not name or name in (".", ".."):
        raise FileError(f"{show(path)}: the {what} must be a file name, not a folder")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # ENAMETOOLONG, ENOTDIR, ELOOP, EACCES on a parent
        raise FileError(f"{show(path)}: cannot write the {what}: {_why(exc)}") from None
    except ValueError:  # a NUL byte in the name
        raise FileError(f"{show(path)!r}: cannot write the {what}: the name contains a NUL byte") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise FileError(f"{show(path)}: cannot write the {what}: it is a folder")
        if not stat.S_ISREG(st.st_mode):
            raise FileError(f"{show(path)}: cannot write the {what}: not a regular file (a device, fifo or socket)")
    folder = path.parent if str(path.parent) else Path(".")
    while make_parents and not folder.exists() and folder != folder.parent:
        folder = folder.parent  # the nearest folder that exists must take the new ones
    if not folder.is_dir():
        raise FileError(f"{show(path)}: cannot write the {what}: folder {folder} does not exist")
    try:
        max_name = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # Windows, or a file system that does not say
        max_name = 255
    if len(os.fsencode(name)) > max_name:
        raise FileError(f"{show(path)}: cannot write the {what}: the file name is longer than "
                        f"{max_name} bytes")
    try:  # the real test: os.access says yes to root on /proc, /sys and read-only mounts
        fd, probe = tempfile.mkstemp(prefix=".tfenv-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise FileError(f"{show(path)}: cannot write the {what}: folder {folder} is not writable "
                        f"({_why(exc)})") from None
    if st is not None and not os.access(path, os.W_OK):
        raise FileError(f"{show(path)}: cannot write the {what}: the file is read-only")
    return path


def make_folder(folder: Path | str, what: str = "output folder") -> Path:
    """mkdir -p with one line for every way it fails (read-only, /sys, a file in the way, a name too long)."""
    folder = Path(folder)
    if not str(folder).strip():
        raise FileError(f"the {what} cannot be empty: name a folder, e.g. out")
    # Long names are refused before mkdir -p, which would leave the first levels behind.
    if len(os.fsencode(str(folder.absolute()))) > 4000 or any(len(os.fsencode(p)) > 255 for p in folder.parts):
        raise FileError(f"{show(folder)}: cannot create the {what}: the name is too long")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise FileError(f"{folder}: cannot create the {what}: a file of that name is in the way") from None
    except OSError as exc:
        raise FileError(f"{show(folder)}: cannot create the {what}: {_why(exc)}") from None
    return folder


def distinct(paths: Iterable[Tuple[str, Path | str | None]]) -> None:
    """One command never writes the same file twice: refuse --a X --b X (also through links)."""
    seen: dict[str, str] = {}
    for option, path in paths:
        if path is None:
            continue
        key = os.path.normcase(os.path.realpath(path))
        if key in seen:
            raise FileError(f"{seen[key]} and {option} name the same file {path}: give two different files")
        seen[key] = option


def write_text(path: Path | str, text: str, mode: int | None = None, what: str = "output",
               newline: str | None = "") -> Path:
    """Write `text` (UTF-8) atomically; `mode` e.g. 0o755 for scripts. newline='' keeps LF everywhere."""
    return write_all([(path, text, mode)], what=what, newline=newline)[0]


def write_all(items: Sequence[Tuple[Path | str, str | bytes, int | None]], what: str = "output",
              newline: str | None = "") -> list[Path]:
    """Write several files (text as UTF-8, or bytes as they are), all or none: every target is checked and
    staged before the first rename."""
    targets = [check_writable(p, what) for p, _, _ in items]
    distinct((str(p), p) for p in targets)
    staged: list[Path] = []
    current = targets[0]
    try:
        for target, (_, text, mode) in zip(targets, items):
            current = target
            staged.append(_stage(target, text, mode, what, newline))
        for tmp, target in zip(staged, targets):
            current = target
            os.replace(tmp, target)
    except OSError as exc:
        raise FileError(f"{show(current)}: cannot write the {what}: {_why(exc)}") from None
    finally:
        for tmp in staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
    return targets


def _stage(target: Path, text: str | bytes, mode: int | None, what: str, newline: str | None) -> Path:
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, name = tempfile.mkstemp(prefix=f".{target.name[:40]}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise FileError(f"{show(target)}: cannot write the {what}: {_why(exc)}") from None
    tmp = Path(name)
    try:
        if isinstance(text, bytes):
            with open(fd, "wb") as f:
                f.write(text)
        else:
            with open(fd, "w", encoding="utf-8", newline=newline) as f:
                f.write(text)
        if mode is None:  # keep what the file had, else what a new file would get
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return tmp


def inside_installed_package(path: Path | str) -> bool:
    """True for a path inside site-packages/dist-packages: an installed tfenv's own files, not a checkout."""
    parts = {p.lower() for p in Path(path).resolve().parts}
    return bool(parts & {"site-packages", "dist-packages"})


@contextlib.contextmanager
def temp_dir(kind: str, parent: str | None = None, before_remove=None):
    """The one owner of tfenv's temporary folders (tfenv-KIND-* in the temp folder, or in `parent`): removed
    however the block ends, SIGTERM and SIGHUP included (they unwind like Ctrl-C inside signals_as_interrupt
    or `tfenv`). before_remove(path) runs first, e.g. to unmount what an interrupted debootstrap left."""
    path = Path(tempfile.mkdtemp(prefix=f"tfenv-{kind}-", dir=parent))
    try:
        yield path
    finally:
        if before_remove is not None:
            before_remove(path)
        shutil.rmtree(path, ignore_errors=True)
