"""The matrix for CI engines: a GitHub Actions `include` list and a buildx bake file.

tfenv schedules nothing itself: both outputs are plain data derived from matrix.yaml, so any runner
fleet (GitHub Actions) or BuildKit builder (local, remote, Kubernetes) builds the matrix in parallel.
Tags come from builder.matrix.tags, the same functions `tfenv show` uses.
"""

from __future__ import annotations

import json
import re

from builder.core.errors import TfenvError
from builder.core.paths import dockerfile_dir
from builder.matrix import tags
from builder.matrix.model import Matrix, Target

# The Dockerfile's stage names (builder/templates/docker/Dockerfile.j2 and jupyter.j2).
BASE_STAGE = "tensorflow"
JUPYTER_STAGE = "jupyter"
CACHE_SUFFIX = "-buildcache"
# The bake variable that holds the image repository; `REPO=ghcr.io/org/tensorflow docker buildx bake`.
REPO_VARIABLE = "REPO"
# TensorFlow's wheels for these lines are x86_64 only: say so, so ARM builders do not try.
PLATFORMS = ["linux/amd64"]

_BAKE_NAME = re.compile(r"[^a-zA-Z0-9_-]")


class CiError(TfenvError):
    """A CI output cannot be produced as asked."""


def bake_name(text: str) -> str:
    """Bake target and group names allow only [a-zA-Z0-9_-]: tf29/ubuntu20.04 -> tf29-ubuntu20-04."""
    return _BAKE_NAME.sub("-", text)


def target_name(target: Target, jupyter: bool = False) -> str:
    name = bake_name(f"{target.env.name}-{target.os.name}")
    return f"{name}-{JUPYTER_STAGE}" if jupyter else name


def cuda_group(version: str) -> str:
    """'11.2' -> 'cuda11-2'."""
    return bake_name(f"cuda{version}")


# --- GitHub Actions ------------------------------------------------------------------------------


def matrix_entry(target: Target, repo: str) -> dict:
    """One `include` entry. `gpu`: the image is a CUDA build, so its GPU checks need a GPU runner."""
    return {
        "env": target.env.name,
        "os": target.os.name,
        "tensorflow": target.env.tensorflow,
        "cuda": target.env.cuda.version,
        "python": target.python,
        "base_image": target.os.base_image,
        "context": dockerfile_dir(target),
        "bake_target": target_name(target),
        "bake_jupyter_target": target_name(target, jupyter=True),
        "tags": tags.image_refs(target, repo),
        "jupyter_tags": tags.image_refs(target, repo, jupyter=True),
        "gpu": bool(target.env.sonames),  # every env loads CUDA today; a CPU-only env would say False
    }


def github_matrix(m: Matrix, targets: list[Target], repo: str | None = None) -> list[dict]:
    return [matrix_entry(t, m.repo(repo)) for t in targets]


# --- buildx bake ---------------------------------------------------------------------------------


def _cache_ref(target: Target, jupyter: bool) -> str:
    stage = f"-{JUPYTER_STAGE}" if jupyter else ""
    return f"${{{REPO_VARIABLE}}}:{tags.content_tag(target)}{stage}{CACHE_SUFFIX}"


def _bake_target(target: Target, jupyter: bool) -> dict:
    # Tags are written with ${REPO} so one committed file serves every registry.
    refs = tags.image_refs(target, f"${{{REPO_VARIABLE}}}", jupyter=jupyter)
    labels = {**tags.oci_labels(target), **tags.labels(target)}
    cache_from = [f"type=registry,ref={_cache_ref(target, False)}"]
    if jupyter:
        labels["io.tfenv.stage"] = JUPYTER_STAGE
        cache_from.append(f"type=registry,ref={_cache_ref(target, True)}")
    return {
        "context": dockerfile_dir(target),
        "dockerfile": "Dockerfile",
        "target": JUPYTER_STAGE if jupyter else BASE_STAGE,
        # Only the base image: mirrors and CA certificates are the user's (`--set *.args.X=...`).
        "args": {"BASE_IMAGE": target.os.base_image},
        "platforms": list(PLATFORMS),
        "tags": refs,
        "labels": labels,
        "cache-from": cache_from,
        "cache-to": [f"type=registry,ref={_cache_ref(target, jupyter)},mode=max"],
    }


def bake_file(m: Matrix, targets: list[Target] | None = None, repo: str | None = None) -> dict:
    """A buildx bake definition (JSON form): one target per environment, OS variant and stage."""
    targets = targets or m.targets()
    bake_targets: dict[str, dict] = {}
    base_names: list[str] = []
    by_cuda: dict[str, list[str]] = {}
    for target in targets:
        for jupyter in (False, True):
            name = target_name(target, jupyter)
            if name in bake_targets:  # two matrix names that differ only in '.' vs '-'
                raise CiError(f"bake target name {name!r} is used twice: rename one environment or OS variant")
            bake_targets[name] = _bake_target(target, jupyter)
            by_cuda.setdefault(cuda_group(target.env.cuda.version), []).append(name)
        base_names.append(target_name(target))
    everything = list(bake_targets)
    groups = {
        "default": {"targets": base_names},  # `docker buildx bake`: the images without Jupyter
        "all": {"targets": everything},
        JUPYTER_STAGE: {"targets": [n for n in everything if n not in base_names]},
    }
    for name in sorted(by_cuda, key=lambda g: [int(p) for p in re.findall(r"\d+", g)]):
        if name in groups or name in bake_targets:
            raise CiError(f"bake group name {name!r} collides with another group or target")
        groups[name] = {"targets": by_cuda[name]}
    return {
        "variable": {REPO_VARIABLE: {"default": m.repo(repo)}},
        "group": groups,
        "target": bake_targets,
    }


def dump(data) -> str:
    """Stable text for committed files: drift checks compare it byte for byte."""
    return json.dumps(data, indent=2) + "\n"
