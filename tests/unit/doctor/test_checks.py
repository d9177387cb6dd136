"""The check registry (builder/doctor/checks/: one module per check, ID and check(ctx)) and the WSL facts the
checks read from matrix.yaml."""

from __future__ import annotations

import copy
import importlib
import pkgutil

import pytest

from builder import doctor
from builder.doctor import checks as registry
from builder.doctor.facts import WSL_FACTS, check_facts
from builder.doctor.host import DoctorError
from builder.matrix.facts import facts_from_matrix
from tests.fakes import hosts
from tests.helpers import ROOT, matrix


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


def test_every_check_module_is_registered_once_with_id_and_check():
    names = sorted(m.name for m in pkgutil.iter_modules(registry.__path__) if not m.name.startswith("_"))
    modules = [importlib.import_module("builder.doctor.checks." + n) for n in names]
    assert sorted(registry.CHECKS, key=lambda m: m.__name__) == modules
    assert all(isinstance(m.ID, str) and m.ID and callable(m.check) for m in modules)
    assert [m.ID for m in registry.CHECKS][:3] == ["platform", "gpu", "cuda-max"]  # the report's order


def test_the_facts_carry_the_wsl_facts_whole_and_doctor_keeps_no_copy(facts):
    """matrix.yaml is the one home: the facts carry every WSL fact the checks read, facts missing one are refused,
    and doctor's code writes none of them itself."""
    assert all(isinstance(facts["wsl"][k], str) and facts["wsl"][k] for k in WSL_FACTS)
    broken = copy.deepcopy(facts)
    del broken["wsl"]["driver_min_windows"]
    with pytest.raises(DoctorError, match="wsl.driver_min_windows: missing"):
        check_facts(broken, "facts.json")
    code = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "builder" / "doctor").rglob("*.py"))
    for key in WSL_FACTS:  # as a string literal (a docstring may name the folder)
        assert not any(q + facts["wsl"][key] + q in code for q in "\"'"), key
    assert "R" + facts["wsl"]["driver_min_windows"].split(".")[0] not in code


def test_without_facts_a_wsl_host_gets_no_wsl_checks_and_a_fix_without_a_driver_version(tmp_path):
    host = hosts.wsl_host(tmp_path, dxg=False)
    checks = {c.id: c for c in doctor.diagnose(None, host).checks}
    assert not any(i.startswith("wsl:") for i in checks) and checks["facts"].status == "warn"


def test_the_wsl_checks_read_the_library_folder_and_driver_packages_from_the_facts(tmp_path, facts):
    moved = copy.deepcopy(facts)
    moved["wsl"]["lib_dir"] = "/opt/wsl-lib"
    moved["wsl"]["linux_driver_packages"] = r"^nothing-matches$"
    moved["wsl"]["driver_min_windows"] = "999.0"
    checks = {c.id: c for c in doctor.diagnose(moved, hosts.wsl_host(tmp_path, linux_driver=True), "tf29").checks}
    assert checks["wsl:libcuda"].message == "/opt/wsl-lib/libcuda.so.1 missing"
    assert "driver 999.0 or newer" in checks["wsl:libcuda"].fix
    assert all(not p.startswith("nvidia-driver") for p in checks["wsl:linux-driver"].message.split(": ")[-1]
               .split(", "))
