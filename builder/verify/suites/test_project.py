"""A project image (tfenv.yaml): every requirement the project names imports, on top of the whole suite.

Runs only when `tfenv test` tests a project image (the expectations carry a "project" entry).
"""

from __future__ import annotations

import json

import pytest

from builder.verify.suites._support import check, run_probe


def pytest_generate_tests(metafunc):
    if "requirement" in metafunc.fixturenames:
        from builder.verify.suites.conftest import load_expectations

        project = load_expectations(metafunc.config).get("project") or {}
        names = project.get("requirements") or [None]
        metafunc.parametrize("requirement", names, ids=[n or "none" for n in names])


@pytest.fixture(scope="module")
def imports(host, expect):
    project = expect.get("project")
    if not project:
        pytest.skip("not a project image")
    if not project["requirements"]:
        pytest.skip("the project names no requirements")
    result = run_probe(host, expect["python_cmd"], "imports", json.dumps(project["requirements"]))
    return result.require("the import probe", "run `tfenv build` again; if it persists, report it")


def test_requirement_imports(imports, requirement):
    """{requirement} imports (every top-level module it installs)"""
    entry = imports[requirement]
    errors = entry["errors"]
    check(not errors, "; ".join(f"{k}: {v}" for k, v in errors.items()),
          "a requirement that does not import on this environment: pin a version that supports "
          "its TensorFlow, NumPy and Python, then `tfenv lock` and `tfenv build`")
