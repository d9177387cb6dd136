"""What a command works on, decided in one place: the environment ENV names, or, with no ENV in a folder with
tfenv.yaml, that project; with the image repository in force and the command that builds the image."""

from __future__ import annotations

from dataclasses import dataclass

from builder.core.errors import TfenvError
from builder.matrix import tags
from builder.matrix.model import Matrix, Target

PROJECT_BUILD_HINT = "tfenv build"  # in a project folder, `tfenv build` makes the project's image


@dataclass(frozen=True)
class Subject:
    """An environment target, or a project (then target is the environment it is built on)."""

    matrix: Matrix
    target: Target
    repo: str  # --repo, TFENV_REPO, the config file, else the matrix's image.repo
    jupyter: bool = False
    project: object | None = None  # builder.project.config.Project

    @property
    def build_hint(self) -> str:
        """The command every missing-image error names: --repo only when it is not the matrix's."""
        if self.project is not None:
            return PROJECT_BUILD_HINT
        return tags.build_hint(self.target, jupyter=self.jupyter, repo=self.repo, default_repo=self.matrix.image.repo)


def repo(m: Matrix, given: str | None) -> str:
    """--repo, else TFENV_REPO, else the config file's repo, else the matrix's image.repo."""
    from builder.core import config

    return m.repo(config.defaults(repo=given)["repo"])


def in_project(folder=None) -> bool:
    """Whether this folder holds a tfenv.yaml: a command given no ENV then works on that project."""
    from builder.project import config

    return config.find(folder) is not None


def environment(m: Matrix, env: str, os_name: str | None, given_repo: str | None = None,
                jupyter: bool = False) -> Subject:
    return Subject(m, m.target(env, os_name), repo(m, given_repo), jupyter)


def choose(m: Matrix, env: str | None, os_name: str | None, given_repo: str | None = None, *,
           jupyter: bool = False, no_project: Exception | None = None) -> Subject:
    """ENV's environment; without ENV, this folder's project (no_project is raised when there is none; by
    default the project loader's own error, which says to run `tfenv init`)."""
    if env is not None:
        return environment(m, env, os_name, given_repo, jupyter)
    if no_project is not None and not in_project():
        raise no_project
    if os_name:
        raise TfenvError("--os does not apply in a project folder: tfenv.yaml names the OS variant")
    from builder.project import actions

    project = actions.load(m)
    return Subject(m, project.target(m), repo(m, given_repo), project.jupyter, project)
