"""A clone made the way Git for Windows makes it (core.autocrlf=true) keeps LF in every bash script,
Dockerfile and template, and CRLF in every PowerShell script: .gitattributes decides, not the user's git.

It clones the committed HEAD of this checkout, so it tests what is committed, not the working tree.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    git = shutil.which("git")
    if not git or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (or no git): nothing to clone")
    dest = tmp_path_factory.mktemp("autocrlf") / "clone"
    result = subprocess.run([git, "-c", "core.autocrlf=true", "clone", "--quiet", str(ROOT), str(dest)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return dest


def _tracked(clone: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(clone), "ls-files"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def test_the_lf_files_that_matter_are_tracked(clone):
    files = set(_tracked(clone))
    for name in ("scripts/quickstart", ".ci/run", "wsl/tf29/install.sh", "builder/templates/wsl/install.sh.j2",
                 "scripts/docker-up",
                 "dockerfiles/tf29/debian11/Dockerfile", "tests/fakes/nvidia-smi"):
        assert name in files


CORPUS = "tests/unit/project_corpus/"  # real projects' files, byte for byte as published (-text)
VERBATIM = (CORPUS, "benchmarks/project_heldout/")  # and the blind held-out projects, likewise


def test_every_file_but_powershell_is_lf(clone):
    with_cr = [name for name in _tracked(clone) if not name.endswith(".ps1") and not name.startswith(VERBATIM)
               and b"\r" in (clone / name).read_bytes()]
    assert with_cr == []


def test_the_project_corpus_keeps_its_published_bytes(clone):
    """A Windows freeze stays CRLF and UTF-16 on any checkout: tfenv must read it as the user has it."""
    for name in ("bubbliiiing-yolov4-tf2/requirements.txt", "nicknochnack-codethat-fastml/requirements.txt"):
        assert (clone / CORPUS / name).read_bytes() == (ROOT / CORPUS / name).read_bytes()
        assert b"\r" in (clone / CORPUS / name).read_bytes()  # CRLF (UTF-16 for the second)


def test_powershell_scripts_are_crlf(clone):
    scripts = [name for name in _tracked(clone) if name.endswith(".ps1")]
    assert scripts
    for name in scripts:
        data = (clone / name).read_bytes()
        assert data.count(b"\n") == data.count(b"\r\n") > 0, name


def test_bash_runs_a_script_from_that_clone(clone):
    """What broke before: bash stopping at `set -o pipefail` on a CRLF checkout."""
    result = subprocess.run(["bash", str(clone / "wsl" / "tf29" / "install.sh"), "--help"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "usage: bash" in result.stdout
