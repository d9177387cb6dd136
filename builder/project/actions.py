"""What build, test, run and lock do in a project folder (one with tfenv.yaml), for the thin commands."""

from __future__ import annotations

from pathlib import Path

from builder.core.errors import TfenvError
from builder.core.progress import Display
from builder.docker import daemon
from builder.matrix.model import Matrix
from builder.project import config, image, resolve


def load(m: Matrix, folder: Path | None = None) -> config.Project:
    return config.require(m, folder)


def lock(m: Matrix, project: config.Project, index_url: str | None = None,
         ca_cert: str | None = None, refresh: bool = False) -> tuple[resolve.ProjectLock, bool]:
    return resolve.ensure_lock(project, m, index_url=index_url, ca_cert=ca_cert, refresh=refresh)


def build(m: Matrix, project: config.Project, options, display: Display, build_env: bool = False,
          client=None) -> image.ProjectBuild:
    """Resolve (when tfenv.lock is missing or stale), then build: a conflict stops before any build."""
    if options.push:
        raise TfenvError("--push is for environment images; push a project image with `docker push`")
    c = client or daemon.client()
    if not build_env:  # say so before resolving (network, seconds)
        image.require_env_image(c, project, m, options.repo)
    project_lock, resolved = resolve.ensure_lock(project, m, index_url=options.pip_index_url, ca_cert=options.ca_cert)
    if resolved:
        for note in project_lock.notes:
            display.note(f"note: {note}")
        display.note(f"wrote {project_lock.path.name}: {len(project_lock.pins)} packages on top of "
                     f"{project.environment}")
    described = image.describe(project, m, project_lock, options.repo)
    return image.build(project, m, described, options, display, c, build_env=build_env)


def current_image(m: Matrix, project: config.Project, c, repo: str | None = None) -> image.ProjectImage:
    """The project image for today's tfenv.lock, which must be built already."""
    target = project.target(m)
    project_lock = resolve.current_lock(project, target, m)
    if project_lock is None:
        why = "is missing" if not project.lock_path.is_file() else "is older than tfenv.yaml or the requirements"
        raise TfenvError(f"{project.lock_path.name} {why}: run `tfenv build` (or `tfenv lock`)")
    described = image.describe(project, m, project_lock, repo)
    daemon.require_image(c, described.ref, "tfenv build")
    return described


def test(m: Matrix, project: config.Project, gpu: tuple[bool, str], junit_xml: str | None = None,
         repo: str | None = None, client=None):
    """The environment's whole suite on the project image, plus an import of every requirement."""
    from builder.verify import runner

    runner.require_docker_cli()
    c = client or daemon.client()
    described = current_image(m, project, c, repo)
    img = c.images.get(described.ref)
    image.check_labels(img, described)
    return runner.run(m, described.target, described.ref, img.labels or {}, gpu, "tfenv build",
                      junit_xml=junit_xml, client=c,
                      project=image.test_expectations(project, described.lock, described.target))
