"""The check registry (builder/doctor/checks/: one module per check, ID and check(ctx)) and the WSL facts the
checks read from matrix.yaml."""

from __future__ import annotations

import copy
import importlib
import pkgutil

import pytest

from builder import doctor
from builder.doctor import checks as registry
from builder.doctor.host import WSL_DEFAULTS
from builder.matrix.facts import facts_from_matrix
from tests.fakes import hosts
from tests.helpers import matrix


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


def test_every_check_module_is_registered_once_with_id_and_check():
    names = sorted(m.name for m in pkgutil.iter_modules(registry.__path__) if not m.name.startswith("_"))
    modules = [importlib.import_module("builder.doctor.checks." + n) for n in names]
    assert sorted(registry.CHECKS, key=lambda m: m.__name__) == modules
    assert all(isinstance(m.ID, str) and m.ID and callable(m.check) for m in modules)
    assert [m.ID for m in registry.CHECKS][:3] == ["platform", "gpu", "cuda-max"]  # the report's order


def test_the_facts_carry_the_wsl_facts_and_the_fallback_agrees(facts):
    """matrix.yaml is the home; host.py's copy is for a run without facts and must not drift from it."""
    assert {k: facts["wsl"][k] for k in WSL_DEFAULTS} == WSL_DEFAULTS


def test_the_wsl_checks_read_the_library_folder_and_driver_packages_from_the_facts(tmp_path, facts):
    moved = copy.deepcopy(facts)
    moved["wsl"]["lib_dir"] = "/opt/wsl-lib"
    moved["wsl"]["linux_driver_packages"] = r"^nothing-matches$"
    checks = {c.id: c for c in doctor.diagnose(moved, hosts.wsl_host(tmp_path, linux_driver=True), "tf29").checks}
    assert checks["wsl:libcuda"].message == "/opt/wsl-lib/libcuda.so.1 missing"
    assert all(not p.startswith("nvidia-driver") for p in checks["wsl:linux-driver"].message.split(": ")[-1]
               .split(", "))
