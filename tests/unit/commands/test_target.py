"""commands/target.py: the one place a command learns whether it works on ENV's environment or on this folder's
project, with the repository in force and the build hint every missing-image error gives."""

from __future__ import annotations

import pytest

from builder.commands import target
from builder.core.errors import TfenvError
from builder.project import config


@pytest.fixture
def clean_repo_settings(monkeypatch, tmp_path):
    monkeypatch.delenv("TFENV_REPO", raising=False)
    monkeypatch.setenv("TFENV_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_env_given_is_the_environment_with_the_matrix_repo(m, clean_repo_settings):
    subject = target.choose(m, "tf29", "debian11")
    assert subject.project is None and subject.target.env.name == "tf29"
    assert subject.repo == m.image.repo
    assert subject.build_hint == "tfenv build tf29 --os debian11"


def test_the_hint_names_a_repo_other_than_the_matrix_one(m, clean_repo_settings):
    subject = target.choose(m, "tf29", "debian11", "ghcr.io/a/tf", jupyter=True)
    assert subject.repo == "ghcr.io/a/tf"
    assert subject.build_hint == "tfenv build tf29 --os debian11 --jupyter --repo ghcr.io/a/tf"


def test_no_env_and_no_tfenv_yaml_raises_the_commands_own_error(m, clean_repo_settings):
    assert not target.in_project()
    with pytest.raises(LookupError, match="name an environment"):
        target.choose(m, None, None, no_project=LookupError("name an environment"))
    with pytest.raises(TfenvError, match="no tfenv.yaml in .*tfenv init"):
        target.choose(m, None, None)


def test_no_env_in_a_project_folder_is_the_project(m, clean_repo_settings):
    config.write_init(m, "tf29", "debian11", True, clean_repo_settings)
    assert target.in_project()
    subject = target.choose(m, None, None, "ghcr.io/a/tf")
    assert subject.project is not None and subject.project.environment == "tf29"
    assert subject.target.os.name == "debian11" and subject.repo == "ghcr.io/a/tf"
    assert subject.build_hint == "tfenv build"
    with pytest.raises(TfenvError, match="--os does not apply in a project folder"):
        target.choose(m, None, "debian11")
