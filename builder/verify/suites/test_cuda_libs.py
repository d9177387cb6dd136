"""The CUDA libraries TF dlopens: each loads by name, shims resolve, runtime versions match the matrix."""

from __future__ import annotations

import os

import pytest

from builder.diagnose import loader
from builder.verify.suites._support import check


def _lib_fix(expect, soname: str, dlerror: str | None = None) -> str:
    """The parser's fix for a library that does not load, knowing the matrix's shims."""
    shims = [(s["link"], s["to"]) for s in expect["shims"]]
    return loader.fix_hint(loader.LoadFailure(soname, dlerror, None, ""), shims=shims, wsl_lib=expect.get("wsl_lib"))


def test_soname_loads(libs, expect, soname):
    """{soname} loads by name through ctypes"""
    data = libs.require("the library probe", f"rebuild it: {expect['build_hint']}")
    result = data["libs"][soname]
    if not result["ok"]:
        check(False, f"dlopen('{soname}'): {result['error']}", _lib_fix(expect, soname, result["error"]))


def test_shim_resolves(libs, expect, shim):
    """compatibility link resolves to the runtime it stands in for ({shim})"""
    if shim is None:
        pytest.skip(f"{expect['env']} needs no compatibility links")
    data = libs.require("the library probe", f"rebuild it: {expect['build_hint']}")
    result = data["libs"][shim["link"]]
    fix = f"link {shim['link']} -> {shim['to']} in the CUDA lib folder and run ldconfig"
    check(result["ok"], f"dlopen('{shim['link']}'): {result.get('error')}", fix)
    real = os.path.basename(result.get("path") or "")
    check(real.startswith(shim["to"]), f"{shim['link']} resolves to {result.get('path')}, not {shim['to']}", fix)


def test_cuda_runtime_version(libs, expect):
    """the CUDA runtime is the matrix's CUDA version"""
    data = libs.require("the library probe", f"rebuild it: {expect['build_hint']}")
    info = data["cudart"]
    check(info["ok"], f"dlopen('{expect['cudart_soname']}'): {info.get('error')}",
          _lib_fix(expect, expect["cudart_soname"]))
    if info["runtime_rc"] == 0:
        v = info["runtime_version"]
        found, source = f"{v // 1000}.{(v % 1000) // 10}", "cudaRuntimeGetVersion"
    else:
        # CUDA 11's cudaRuntimeGetVersion needs the driver (error 35 without one); the file name says it too.
        real = os.path.basename(info.get("path") or "")
        found, source = ".".join(real.partition(".so.")[2].split(".")[:2]), real or "the library's file name"
    check(found == expect["cuda"], f"{expect['cudart_soname']} is CUDA {found or '?'} ({source}), "
                                   f"the matrix says {expect['cuda']}",
          f"install the CUDA {expect['cuda']} runtime: {expect['build_hint']}")


def test_cudnn_version(libs, expect):
    """cuDNN reports the version the matrix installs"""
    data = libs.require("the library probe", f"rebuild it: {expect['build_hint']}")
    info = data["cudnn"]
    check(info["ok"], f"dlopen('{expect['cudnn_soname']}'): {info.get('error')}",
          _lib_fix(expect, expect["cudnn_soname"]))
    v = info["version"]
    found = f"{v // 1000}.{(v % 1000) // 100}.{v % 100}"
    check(found == expect["cudnn_installed"],
          f"cudnnGetVersion says {found}, the matrix says {expect['cudnn_installed']}",
          f"install cuDNN {expect['cudnn_installed']}: {expect['build_hint']}")
