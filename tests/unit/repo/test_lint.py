"""Lint with the real tools: ruff on the Python, hadolint on every rendered Dockerfile."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.helpers import ROOT, matrix

DOCKERFILES = sorted((ROOT / "dockerfiles").glob("*/*/Dockerfile"))


def _tool(name):
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} is not installed: pip install -e '.[dev]'")
    return path


def test_ruff():
    folders = [f for f in ("builder", "tests", "benchmarks") if (ROOT / f).is_dir()]
    result = subprocess.run([_tool("ruff"), "check", *folders], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_sees_every_target_of_the_matrix():
    from builder.core import paths

    linted = {p.relative_to(ROOT).as_posix() for p in DOCKERFILES}
    assert linted == {paths.dockerfile_relpath(t) for t in matrix().targets()}


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}")
def test_hadolint(dockerfile):
    # .hadolint.yaml at the root: failure threshold "info", so any finding fails.
    result = subprocess.run([_tool("hadolint"), "--config", str(ROOT / ".hadolint.yaml"), str(dockerfile)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


SCRIPTS = [ROOT / ".ci" / "run", *sorted((ROOT / "scripts").glob("*"))]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_shellcheck_project_scripts(script):
    result = subprocess.run([_tool("shellcheck"), str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
