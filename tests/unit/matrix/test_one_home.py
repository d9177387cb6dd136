"""Every version (and Debian suite and base image name) the matrix owns is written in matrix.yaml alone: no string
in builder/'s code (docstrings, the usual place for an example, aside) and no template spells one of them; nor does
builder/'s code spell WSL's library folder (wsl.lib_dir) outside the patterns that match programs' messages."""

from __future__ import annotations

import ast
import re

import pytest

from tests.helpers import ROOT, matrix


def owned_versions() -> dict[str, str]:
    m = matrix()
    owned = {m.image.pip: "image.pip"}
    for env in m.envs.values():
        owned[env.tensorflow] = f"envs.{env.name}.tensorflow"
    for version, stack in m.cuda.items():
        owned[stack.full] = f"cuda.{version}.full"
        owned[stack.cudnn] = f"cuda.{version}.cudnn"
        for platform, driver in stack.driver_min.items():
            owned[driver] = f"cuda.{version}.driver_min.{platform}"
    for release, mins in m.nvidia.driver_min.items():
        for platform, driver in mins.items():
            owned[driver] = f"nvidia.driver_min.{release}.{platform}"
    for variant in m.os.values():
        if variant.suite:
            owned[variant.suite] = f"os.{variant.name}.suite"
            owned[variant.local_base] = f"os.{variant.name}.local_base"
    if m.wsl:
        owned[m.wsl.driver_min_windows] = "wsl.driver_min_windows"
        owned["R" + m.wsl.driver_min_windows.split(".")[0]] = "wsl.driver_min_windows (as NVIDIA names a branch)"
    return owned


def _strings(source: str):
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_code_or_template_writes_a_version_the_matrix_owns():
    owned = owned_versions()
    alternatives = "|".join(map(re.escape, sorted(owned, key=len, reverse=True)))
    pattern = re.compile(r"(?<![\w.])(" + alternatives + r")(?![\w.])")
    found = []
    for path in sorted((ROOT / "builder").rglob("*.py")):
        for line, text in _strings(path.read_text(encoding="utf-8")):
            found += [f"{path.relative_to(ROOT)}:{line}: {v} ({owned[v]})" for v in pattern.findall(text)]
    for path in sorted((ROOT / "builder" / "templates").rglob("*.j2")):
        for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(ROOT)}:{line}: {v} ({owned[v]})" for v in pattern.findall(text)]
    assert not found, "read these from the matrix instead:\n" + "\n".join(found)


def test_no_code_writes_the_wsl_library_folder():
    """matrix.yaml's wsl.lib_dir is the one home of WSL's library folder: advice reads it from the facts. Only the
    patterns files (patterns*.py) spell it, as they match what programs print about the folder WSL mounts."""
    folder = matrix().wsl.lib_dir
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "builder").rglob("*.py"))
             if not path.name.startswith("patterns")
             for line, text in _strings(path.read_text(encoding="utf-8")) if folder in text]
    assert not found, f"read {folder} from the facts (wsl.lib_dir) instead:\n" + "\n".join(found)


def test_the_grep_finds_what_it_looks_for():
    owned = owned_versions()
    assert "23.0.1" in owned and any(v.startswith("2.9") for v in owned) and len(owned) > 20
    assert {"bullseye", "tfenv/debian:bullseye", "R495"} <= set(owned)
    assert list(_strings('"""doc 23.0.1"""\nPIP = "23.0.1"\n')) == [(2, "23.0.1")]
    assert [s for _, s in _strings('WSL_LIB = "/usr/lib/wsl/lib"\n')] == [matrix().wsl.lib_dir]


def test_a_cuda_release_has_its_driver_minimum_once(matrix_data, write_matrix):
    """NVIDIA's table holds the releases without a stack; a release under both is refused, naming the key."""
    from builder.matrix import validate
    from builder.matrix.model import MatrixError

    matrix_data["nvidia"]["driver_min"]["11.2"] = {"linux": "460.27.03", "windows": "460.82"}
    with pytest.raises(MatrixError, match=r"nvidia\.driver_min\.11\.2: CUDA 11\.2 is under 'cuda:'"):
        validate.load(write_matrix(matrix_data))
