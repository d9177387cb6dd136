"""Fixtures for the image suites: what to expect (from the matrix, via --tfenv-expect) and the probes' answers.

The expectations file is written by builder.verify.expectations(); its keys are documented there.
"""

from __future__ import annotations

import json

import pytest

from builder.verify.suites._support import run_probe


def pytest_addoption(parser):
    parser.addoption("--tfenv-expect", action="store", metavar="FILE",
                     help="JSON file with the matrix values the image must match (written by tfenv test)")


def load_expectations(config) -> dict:
    cached = getattr(config, "_tfenv_expect", None)
    if cached is None:
        path = config.getoption("--tfenv-expect")
        if not path:
            raise pytest.UsageError("the tfenv suites need --tfenv-expect FILE (run them with `tfenv test`)")
        with open(path, encoding="utf-8") as f:
            cached = json.load(f)
        config._tfenv_expect = cached
    return cached


def pytest_generate_tests(metafunc):
    """One check per soname and per shim, so the report names the library that failed."""
    expect = load_expectations(metafunc.config)
    if "soname" in metafunc.fixturenames:
        metafunc.parametrize("soname", expect["sonames"])
    if "shim" in metafunc.fixturenames:
        shims = expect["shims"] or [None]
        metafunc.parametrize("shim", shims, ids=[f"{s['link']}->{s['to']}" if s else "none" for s in shims])


@pytest.fixture(scope="session")
def expect(pytestconfig) -> dict:
    return load_expectations(pytestconfig)


@pytest.fixture(scope="session")
def gpu(expect) -> dict:
    """Skip GPU checks, with the reason `tfenv test --gpus` resolved, when no GPU was passed in."""
    if not expect["gpu"]["use"]:
        pytest.skip(expect["gpu"]["reason"])
    return expect["gpu"]


@pytest.fixture(scope="session")
def _probe_cache() -> dict:
    # testinfra's `host` is module-scoped, so a probe used by two modules would run twice: cache per host.
    return {}


def _cached(cache, host, python, name, *args):
    key = (host.backend.get_pytest_id(), name, args)
    if key not in cache:
        cache[key] = run_probe(host, python, name, *args)
    return cache[key]


@pytest.fixture(scope="module")
def libs(host, expect, _probe_cache):
    """Every soname dlopened by name, plus the CUDA runtime and cuDNN versions they report."""
    request = {"sonames": list(expect["sonames"]) + [s["link"] for s in expect["shims"]],
               "cudart": expect["cudart_soname"], "cudnn": expect["cudnn_soname"],
               "device_count": expect["gpu"]["use"]}
    return _cached(_probe_cache, host, expect["python_cmd"], "libs", json.dumps(request, sort_keys=True))


@pytest.fixture(scope="module")
def tf_probe(host, expect, _probe_cache):
    """`import tensorflow`, device listing, build info and a CPU op (and a GPU matmul with a GPU), once."""
    args = ("--matmul",) if expect["gpu"]["use"] else ()
    return _cached(_probe_cache, host, expect["python_cmd"], "tf", *args)


_MODULE_ORDER = ("test_image.py", "test_tensorflow.py", "test_cuda_libs.py", "test_gpu.py")


def pytest_collection_modifyitems(items):
    """Report from the outside in: the image, TensorFlow, its CUDA libraries, then the GPU."""
    def rank(item):
        name = item.path.name if hasattr(item, "path") else item.fspath.basename
        return _MODULE_ORDER.index(name) if name in _MODULE_ORDER else len(_MODULE_ORDER)

    items.sort(key=rank)  # sort is stable: tests keep their order within a module
