"""`tfenv devcontainer`: .devcontainer/ for VS Code Dev Containers and GitHub Codespaces.

devcontainer.json builds .devcontainer/Dockerfile, the project's own rendered Dockerfile (FROM the
environment image, tfenv.lock's pins inline), so the dev container is the project image, locally (where
tfenv built the environment image) and in Codespaces (with the environment image in a registry it can
pull: `tfenv build ENV --repo ghcr.io/ORG/tensorflow --push`, then `tfenv devcontainer --repo ...`).
The configured --ca-cert goes into the folder as extra-ca.crt, so that a plain `docker build` of it (what VS
Code runs, without tfenv) trusts the same TLS proxy or mirror as `tfenv build` does.
"""

from __future__ import annotations

import json
from pathlib import Path

from builder.core import files
from builder.matrix.model import Matrix
from builder.project.image import ProjectImage, dockerfile

FOLDER = ".devcontainer"
EXTENSIONS = ("ms-python.python", "ms-toolsai.jupyter")
JUPYTER_PORT = 8888
CA_FILE = "extra-ca.crt"  # the name the project Dockerfile looks for next to itself


def config(image: ProjectImage, m: Matrix, gpus: bool = False) -> dict:
    """The devcontainer.json content (the Dev Container spec's keys only)."""
    workdir = m.image.workdir
    data = {
        "name": f"{image.name} ({image.target.env.name}, {image.target.os.name})",
        "build": {"dockerfile": "Dockerfile", "context": "."},
        # The image's non-root user, for the container's processes and for VS Code's server alike.
        "containerUser": m.image.user,
        "remoteUser": m.image.user,
        "workspaceMount": f"source=${{localWorkspaceFolder}},target={workdir},type=bind",
        "workspaceFolder": workdir,
        "hostRequirements": {"gpu": "optional"},
        "forwardPorts": [JUPYTER_PORT],
        "portsAttributes": {str(JUPYTER_PORT): {"label": "Jupyter", "onAutoForward": "notify"}},
        "customizations": {"vscode": {
            "extensions": list(EXTENSIONS),
            "settings": {"python.defaultInterpreterPath": f"{m.image.venv}/bin/python"},
        }},
    }
    if gpus:
        data["runArgs"] = ["--gpus", "all"]  # only on request: docker run fails with it on a host without GPUs
    return data


def write(root: Path, image: ProjectImage, m: Matrix, gpus: bool = False, ca_pem: bytes | None = None) -> list[Path]:
    """devcontainer.json and the Dockerfile; with ca_pem (the configured --ca-cert) also extra-ca.crt, which the
    Dockerfile trusts while it builds (behind a TLS proxy, pip cannot reach the index otherwise), as
    `tfenv build --ca-cert` gives it to the build; the image does not keep it."""
    folder = root / FOLDER
    files.make_folder(folder, "devcontainer folder")
    items = [(folder / "devcontainer.json", json.dumps(config(image, m, gpus), indent=2) + "\n", None),
             (folder / "Dockerfile", dockerfile(image, m), None)]
    if ca_pem is not None:
        items.append((folder / CA_FILE, ca_pem, None))
    return files.write_all(items, what="devcontainer file")
