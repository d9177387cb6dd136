"""matrix.yaml's data for a user's project: `projects:` (the policy's breakages, bounds, backports, Windows-only
packages, runtime apt packages) and the specifiers of `envs.*.ecosystem`, checked for shape and syntax."""

from __future__ import annotations

from typing import Any

from builder.matrix.checker import Checker


def parse_projects(c: Checker, raw: Any) -> dict:
    """The project policy's data (builder/project/plan.py, solve.py), checked for shape and specifiers."""
    m = c.mapping(raw, "projects", optional=("breakages", "bounds", "backports", "windows_only", "runtime_apt"))
    for i, rule in enumerate(c.items(m.get("breakages", []), "projects.breakages")):
        r = c.mapping(rule, f"projects.breakages[{i}]", required=("tensorflow", "keep"))
        specifier(c, r["tensorflow"], f"projects.breakages[{i}].tensorflow")
        requirement(c, r["keep"], f"projects.breakages[{i}].keep")
    for i, rule in enumerate(c.items(m.get("bounds", []), "projects.bounds")):
        r = c.mapping(rule, f"projects.bounds[{i}]", required=("when", "bounds"))
        requirement(c, r["when"], f"projects.bounds[{i}].when")
        for j, bound in enumerate(c.strings(r["bounds"], f"projects.bounds[{i}].bounds")):
            requirement(c, bound, f"projects.bounds[{i}].bounds[{j}]")
    c.str_map(m.get("backports", {}), "projects.backports")
    c.strings(m.get("windows_only", []), "projects.windows_only")
    c.str_map(m.get("runtime_apt", {}), "projects.runtime_apt", each=c.strings)
    return dict(m)


def specifier(c: Checker, value: Any, where: str) -> None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(str(value))
    except InvalidSpecifier:
        c.fail(where, f"{value!r} is not a version specifier")


def requirement(c: Checker, value: Any, where: str) -> None:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(str(value))
    except InvalidRequirement:
        c.fail(where, f"{value!r} is not a requirement (NAME and a version specifier)")
