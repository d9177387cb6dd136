"""`tfenv init` on the real projects of tests/unit/project_corpus (files verbatim, SOURCES.md): each names the
environment its expected outcome says, in one line, or is refused in one line (no network: init only reads).

The lock outcomes (network: the resolver reads the package index) are tests/slow/test_project_corpus.py's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.helpers import UNIT, tfenv

CORPUS = UNIT / "project_corpus"
EXPECTED = yaml.safe_load((CORPUS / "expected.yaml").read_text(encoding="utf-8"))


def copy_project(slug: str, dest: Path) -> Path:
    folder = dest / slug
    shutil.copytree(CORPUS / slug, folder)
    return folder


def init_args(entry: dict) -> list[str]:
    return ["init"] + (["--requirements", entry["requirements"]] if entry.get("requirements") else [])


def test_every_corpus_project_has_an_expected_outcome_and_a_source():
    folders = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    assert folders == sorted(EXPECTED), "every corpus project needs an entry in expected.yaml, and only they"
    sources = (CORPUS / "SOURCES.md").read_text(encoding="utf-8")
    for slug in folders:
        meta = yaml.safe_load((CORPUS / slug / "meta.yaml").read_text(encoding="utf-8"))
        assert meta["repo"] in sources and meta["commit"] in sources, slug
        entry = EXPECTED[slug]
        assert entry["outcome"] == "locks" or entry["outcome"].startswith("refused: "), slug
        assert entry.get("why"), f"{slug}: say why this outcome is right for the user"


@pytest.mark.parametrize("slug", sorted(EXPECTED))
def test_init_names_the_expected_environment(tmp_path, slug):
    entry = EXPECTED[slug]
    folder = copy_project(slug, tmp_path)
    result = tfenv(*init_args(entry), cwd=folder)
    if entry.get("init_refused"):
        assert result.returncode == 2, result.stdout + result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and entry["init_refused"] in result.stderr
        assert not (folder / "tfenv.yaml").exists()
        return
    assert result.returncode == 0, result.stderr
    text = (folder / "tfenv.yaml").read_text(encoding="utf-8")
    assert f"\nenvironment: {entry['env']}\n" in text, result.stdout
    if entry.get("requirements"):
        assert f"\nrequirements: {entry['requirements']}\n" in text
    why = result.stdout.splitlines()[0]
    assert why.startswith(f"{entry['env']} ("), why  # one line saying why
