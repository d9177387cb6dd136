"""FAKE Windows DLL loader, for running setup.ps1's embedded check program under Linux CPython.

What it stands in for: `ctypes.WinDLL(name, winmode=0)` (the Windows loader's search) and
`kernel32.GetModuleFileNameW` (the path of what it loaded), which do not exist off Windows. Everything else
the check program does runs for real: its reporting, its venv comparison, its import of tensorflow.

    python windows_loader.py MAP.json PROGRAM.py

MAP.json maps each DLL name to the full path the fake loader "finds" it at, or to null for a DLL that
does not load. The program runs as __main__ with this interpreter (so sys.prefix is the venv's).
"""

from __future__ import annotations

import ctypes
import json
import runpy
import sys
import types


def install(found: dict) -> None:
    paths: list[str] = []

    class WinDLL:  # noqa: D101 - the stand-in for ctypes.WinDLL
        def __init__(self, name, winmode=None):
            if winmode != 0:
                raise AssertionError("the checks must use the standard search (winmode=0)")
            if found.get(name) is None:
                raise OSError(f"[WinError 126] The specified module could not be found: {name!r}")
            paths.append(found[name])
            self._handle = len(paths)  # handles 1, 2, ...: GetModuleFileNameW gives back the path

    def get_module_file_name(handle, buf, size):
        path = paths[handle.value - 1]
        buf.value = path[: size - 1]
        return len(buf.value)

    ctypes.WinDLL = WinDLL
    ctypes.windll = types.SimpleNamespace(kernel32=types.SimpleNamespace(GetModuleFileNameW=get_module_file_name))


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        install(json.load(f))
    program = sys.argv[2]
    sys.argv = [program]
    runpy.run_path(program, run_name="__main__")
