"""The project image: a thin layer FROM the verified environment image, built, tagged and tested.

Its Dockerfile is rendered from tfenv.yaml and tfenv.lock (pins inline, like the environment images), so
an unchanged lock renders the same Dockerfile and every step comes from the layer cache.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

from builder.core.errors import TfenvError
from builder.core.progress import Display
from builder.docker import daemon
from builder.matrix import tags
from builder.matrix.model import Matrix, Target
from builder.project import plan
from builder.project.config import Project
from builder.project.resolve import ProjectLock


class EnvImageMissing(daemon.ImageMissing):
    """The environment image the project builds on is not in the local daemon."""


@dataclass(frozen=True)
class ProjectImage:
    name: str  # the sanitised project name
    target: Target
    jupyter: bool
    base_ref: str  # the environment image it is FROM
    ref: str  # tfenv-project/NAME:ENV-OS[-jupyter]-LOCKHASH
    lock: ProjectLock
    apt: tuple[str, ...]
    runtime_apt: dict = dataclasses.field(default_factory=dict)  # matrix.yaml projects.runtime_apt


def env_image_ref(project: Project, m: Matrix, repo: str | None = None) -> str:
    """The environment image the project is FROM: its alias tag, the Jupyter stage's with jupyter: true."""
    return tags.image_refs(project.target(m), m.repo(repo), jupyter=project.jupyter)[1]


def describe(project: Project, m: Matrix, lock: ProjectLock, repo: str | None = None) -> ProjectImage:
    target = project.target(m)
    base_ref = env_image_ref(project, m, repo)
    name = tags.project_name(project.root.name)
    ref = tags.project_ref(name, target, project.jupyter, lock.digest)
    return ProjectImage(name, target, project.jupyter, base_ref, ref, lock, project.apt,
                        m.projects.get("runtime_apt") or {})


def dockerfile(image: ProjectImage, m: Matrix) -> str:
    from builder.render.dockerfiles import jinja_env

    apt = apt_packages(image)
    return jinja_env("project").get_template("Dockerfile.j2").render(
        name=image.name, env=image.target.env.name, base_ref=image.base_ref, apt=apt,
        added_apt=apt[len(image.apt):], unpinned_apt=any("=" not in a for a in apt),
        apt_distro=image.target.os.family, pins=[p for p in image.lock.hashed() if " @ " not in p],
        vcs_pins=[p for p in image.lock.requirements() if " @ " in p],
        labels=tags.project_labels(image.name, image.base_ref, image.lock.digest),
        workdir=m.image.workdir, uid=m.image.uid,
    )


def apt_packages(image: ProjectImage) -> list[str]:
    """tfenv.yaml's apt list, git when tfenv.lock has a git requirement (pip clones it), and the libraries
    its packages load but do not ship (matrix.yaml projects.runtime_apt)."""
    apt = list(image.apt)
    wanted = ["git"] if any(v.startswith("@ git+") for _, v in image.lock.pins) else []
    wanted += plan.runtime_apt(image.lock.pins, image.runtime_apt)
    for package in wanted:
        if not any(a.split("=")[0] == package for a in apt):
            apt.append(package)
    return apt



def require_env_image(c, project: Project, m: Matrix, repo: str | None) -> None:
    """EnvImageMissing, with the command that builds it, unless the environment image is local."""
    base_ref = env_image_ref(project, m, repo)
    hint = tags.build_hint(project.target(m), jupyter=project.jupyter, repo=repo, default_repo=m.image.repo)
    if not daemon.has_image(c, base_ref):
        raise EnvImageMissing(f"the {project.environment}/{project.os} image {base_ref} is not built: "
                              f"build it with `{hint}`, or run `tfenv build --build-env` here")


@dataclass
class ProjectBuild:
    image: ProjectImage
    image_id: str
    cached: int
    cacheable: int
    seconds: float


def build(project: Project, m: Matrix, image: ProjectImage, options, display: Display, c=None,
          build_env: bool = False) -> ProjectBuild:
    """Build the project image on its environment image (built first with --build-env when missing)."""
    from builder.docker import images

    c = c or daemon.client()
    if build_env and not daemon.has_image(c, image.base_ref):
        env_options = dataclasses.replace(options, jupyter=project.jupyter, push=False)
        images.build(m, image.target, env_options, display, c)
    require_env_image(c, project, m, options.repo)
    args = images.build_args(image.base_ref, options, base_arg="TFENV_BASE")
    start = time.monotonic()
    try:
        built = images.build_stage(c, dockerfile(image, m), [image.ref], options, display, args,
                                   what=f"project {image.name} on {image.base_ref}")
    finally:
        display.finish()
    return ProjectBuild(image, built.image_id, built.cached, built.cacheable, time.monotonic() - start)


def test_expectations(project: Project, lock: ProjectLock, target: Target) -> dict:
    """What the project suite checks (builder/verify/suites/test_project.py): every top-level requirement that is in
    the image imports (TF is the environment's suite's; a Windows-only package or a backport is not there)."""
    from builder.project.resolve import env_pins, normalize, top_level_names

    installed = {normalize(n) for n, _ in lock.pins} | set(env_pins(target, project.jupyter))
    names = [n for n in top_level_names(project) if normalize(n) in installed]
    return {"name": tags.project_name(project.root.name), "requirements": names, "lock": lock.digest}


def check_labels(img, image: ProjectImage) -> None:
    labels = img.labels or {}
    if labels.get("io.tfenv.project-lock") != image.lock.digest:
        raise TfenvError(f"{image.ref} was not built from this tfenv.lock: run `tfenv build`")
