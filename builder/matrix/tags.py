"""Image names: one immutable tag that states the content, plus the short alias."""

from __future__ import annotations

import re

from builder.matrix.model import Target


def content_tag(target: Target) -> str:
    """e.g. 2.9.3-gpu-cuda11.2-cudnn8.1-py3.9-ubuntu20.04"""
    cudnn = ".".join(target.cudnn_version.split(".")[:2])
    return (
        f"{target.env.tensorflow}-gpu-cuda{target.env.cuda.version}-cudnn{cudnn}"
        f"-py{target.python}-{target.os.name}"
    )


def alias_tag(target: Target) -> str:
    """tf29 for the environment's first (default) OS variant, tf29-debian11 for the others."""
    if target.os.name == target.env.os[0]:
        return target.env.name
    return f"{target.env.name}-{target.os.name}"


def image_refs(target: Target, repo: str, jupyter: bool = False) -> list[str]:
    """repo:content-tag and repo:alias (with -jupyter for the Jupyter stage), content tag first."""
    suffix = "-jupyter" if jupyter else ""
    return [f"{repo}:{content_tag(target)}{suffix}", f"{repo}:{alias_tag(target)}{suffix}"]


def labels(target: Target) -> dict[str, str]:
    """The io.tfenv.* labels: what the image claims to be, read back by `tfenv test`."""
    env = target.env
    return {
        "io.tfenv.env": env.name,
        "io.tfenv.os": target.os.name,
        "io.tfenv.tensorflow": env.tensorflow,
        "io.tfenv.python": target.python,
        "io.tfenv.cuda": env.cuda.full,
        "io.tfenv.cudnn": target.cudnn_version,
        "io.tfenv.sonames": ",".join(env.sonames),
        "io.tfenv.driver-min-linux": env.cuda.driver_min["linux"],
    }


def oci_labels(target: Target) -> dict[str, str]:
    """The org.opencontainers.image.* labels (the Dockerfile sets them; the bake file repeats them)."""
    env = target.env
    return {
        "org.opencontainers.image.title": f"TensorFlow {env.tensorflow} GPU ({target.os.name})",
        "org.opencontainers.image.description": (
            f"TensorFlow {env.tensorflow}, CUDA {env.cuda.full}, cuDNN {target.cudnn_version}, "
            f"Python {target.python} on {target.os.name}, by tfenv"
        ),
        "org.opencontainers.image.version": content_tag(target),
        "org.opencontainers.image.licenses": "Apache-2.0",
        "org.opencontainers.image.base.name": target.os.base_image,
    }


# --- a user's project image (tfenv.yaml): a thin layer on an environment image ----------------------

PROJECT_REPO_PREFIX = "tfenv-project/"
_PATH_COMPONENT_SEP = re.compile(r"[^a-z0-9]+")


def project_name(folder_name: str) -> str:
    """A folder name as a Docker repository path component: [a-z0-9]+ joined by single '-'."""
    name = _PATH_COMPONENT_SEP.sub("-", folder_name.lower()).strip("-")
    return name[:100] or "project"


def build_hint(target: Target, jupyter: bool = False, repo: str | None = None, default_repo: str | None = None) -> str:
    """The command that builds a target's image: the one hint every missing-image error gives. --repo only
    when it differs from the matrix's."""
    repo_arg = f" --repo {repo}" if repo and repo != default_repo else ""
    return f"tfenv build {target.env.name} --os {target.os.name}{' --jupyter' if jupyter else ''}{repo_arg}"


def project_ref(name: str, target: Target, jupyter: bool, lock_digest: str) -> str:
    """tfenv-project/NAME:ENV-OS[-jupyter]-LOCKHASH: which environment it is on, and exactly which lock."""
    stage = "-jupyter" if jupyter else ""
    return f"{PROJECT_REPO_PREFIX}{project_name(name)}:{target.env.name}-{target.os.name}{stage}-{lock_digest}"


def project_labels(name: str, base_ref: str, lock_digest: str) -> dict[str, str]:
    """Added to the environment's io.tfenv.* labels, which the project image inherits unchanged."""
    return {
        "org.opencontainers.image.title": f"{project_name(name)} (tfenv project)",
        "org.opencontainers.image.description": f"the project {project_name(name)} on {base_ref}, by tfenv",
        "org.opencontainers.image.version": lock_digest,
        "org.opencontainers.image.base.name": base_ref,
        "io.tfenv.project": project_name(name),
        "io.tfenv.project-lock": lock_digest,
        "io.tfenv.base-image": base_ref,
    }
