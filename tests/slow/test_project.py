"""A user's project end to end with the real daemon, on the shared tf29 debian11 image (tf29_image):
init -> build -> test -> run, a fully cached rebuild, the environment's layers kept, a notebook executed
headless, a conflict refused before building.

Every project image and container made here is removed at the end, also on failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import urllib.request
import uuid
from pathlib import Path

import pytest

from builder.render import lock as lock_file
from tests.helpers import tfenv

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NOTEBOOK = Path(__file__).resolve().parent / "notebooks" / "train_and_plot.ipynb"
HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
# Versions that fit tf29's pins (numpy 1.24.1 on Python 3.9).
REQUIREMENTS = "pandas==2.0.3\nmatplotlib==3.7.5\nscikit-learn==1.3.2\n"


def project_repo_images(client, repo: str) -> list:
    return client.images.list(name=repo)


@pytest.fixture(scope="module")
def built_project(tmp_path_factory, tf29_image, docker_client):
    """The sample project, initialised and built once; every image in its repository removed afterwards."""
    folder = tmp_path_factory.mktemp("p") / f"tfenv-it-project-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "requirements.txt").write_text(REQUIREMENTS, encoding="utf-8")
    shutil.copy(NOTEBOOK, folder / NOTEBOOK.name)
    repo = f"tfenv-project/{folder.name}"
    ca = ["--ca-cert", HOST_CA] if os.path.isfile(HOST_CA) else []
    try:
        init = tfenv("init", "tf29", "--os", "debian11", "--jupyter", cwd=folder)
        assert init.returncode == 0, init.stderr
        build = tfenv("build", "--repo", tf29_image.repo, "--plain", *ca, cwd=folder)
        assert build.returncode == 0, build.stdout[-3000:] + build.stderr
        ref = build.stdout.strip().splitlines()[-1].split("project: ", 1)[1]
        yield {"folder": folder, "ref": ref, "repo": repo, "ca": ca, "env_repo": tf29_image.repo,
               "env_ref": tf29_image.jupyter_refs[1], "build": build}
    finally:
        from docker.errors import DockerException

        for img in project_repo_images(docker_client, repo):
            for tag in img.tags:
                with contextlib.suppress(DockerException):
                    docker_client.images.remove(tag, noprune=False)
        # the certificate stage's untagged images (labelled with the project's name by the Dockerfile)
        for img in docker_client.images.list(filters={"dangling": True, "label": f"io.tfenv.project={folder.name}"}):
            with contextlib.suppress(DockerException):
                docker_client.images.remove(img.id, noprune=False)


def test_build_writes_the_lock_and_tags_the_image(built_project, docker_client):
    folder, ref = built_project["folder"], built_project["ref"]
    pins = [f"{name}=={version}" for name, version in lock_file.parse(folder / "tfenv.lock").pins]
    assert {"pandas==2.0.3", "matplotlib==3.7.5", "scikit-learn==1.3.2"} <= set(pins)
    assert not any(p.startswith(("numpy==", "tensorflow==", "protobuf==")) for p in pins)  # the env has them
    assert ref.startswith(f"{built_project['repo']}:tf29-debian11-jupyter-")
    labels = docker_client.images.get(ref).labels
    assert labels["io.tfenv.env"] == "tf29" and labels["io.tfenv.os"] == "debian11"
    assert labels["io.tfenv.base-image"] == built_project["env_ref"]
    assert labels["io.tfenv.project-lock"] == ref.rsplit("-", 1)[1]


def test_project_image_starts_with_every_layer_of_the_environment_image(built_project, docker_client):
    env_layers = docker_client.images.get(built_project["env_ref"]).attrs["RootFS"]["Layers"]
    layers = docker_client.images.get(built_project["ref"]).attrs["RootFS"]["Layers"]
    assert layers[: len(env_layers)] == env_layers and len(layers) > len(env_layers)


def test_unchanged_rebuild_is_fully_cached(built_project, docker_client):
    before = docker_client.images.get(built_project["ref"]).id
    again = tfenv("build", "--repo", built_project["env_repo"], "--plain", *built_project["ca"],
                  cwd=built_project["folder"], timeout=300)
    assert again.returncode == 0, again.stderr
    steps = [line for line in (again.stdout + again.stderr).splitlines() if " steps cached, " in line]
    assert steps, again.stdout + again.stderr
    cached, cacheable = steps[-1].split("(", 1)[1].split(" steps", 1)[0].split("/")
    assert cached == cacheable and int(cacheable) > 0, steps[-1]
    assert docker_client.images.get(built_project["ref"]).id == before
    assert "wrote tfenv.lock" not in again.stdout + again.stderr  # the lock was current: nothing was resolved again


def test_tfenv_test_runs_the_whole_suite_and_imports_every_requirement(built_project):
    result = tfenv("test", "--repo", built_project["env_repo"], cwd=built_project["folder"], timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr
    for name in ("pandas", "matplotlib", "scikit-learn"):
        assert f"PASS  {name} imports" in result.stdout
    assert "PASS  `pip check` is clean" in result.stdout
    assert "PASS  libcudnn.so.8 loads by name through ctypes" in result.stdout  # the environment's suite too


def test_run_imports_the_project_packages_with_tensorflow(built_project):
    result = tfenv("run", "--repo", built_project["env_repo"], "--gpus", "none", "--", "python", "-c",
                   "import pandas, matplotlib, sklearn, tensorflow; print('ok', pandas.__version__)",
                   cwd=built_project["folder"], timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "ok 2.0.3"


def test_notebook_trains_and_plots_headless(built_project):
    folder = built_project["folder"]
    result = tfenv("run", "--repo", built_project["env_repo"], "--gpus", "none", "--", "jupyter", "nbconvert",
                   "--to", "notebook", "--execute", NOTEBOOK.name, "--output", "executed.ipynb",
                   cwd=folder, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    executed = json.loads((folder / "executed.ipynb").read_text(encoding="utf-8"))
    outputs = [o for cell in executed["cells"] if cell["cell_type"] == "code" for o in cell["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs)  # matplotlib's loss plot
    assert any("loss [" in "".join(o.get("text", "")) for o in outputs)


def test_a_requirement_that_moves_a_pin_is_refused_before_building(built_project, docker_client):
    folder = built_project["folder"]
    requirements = folder / "requirements.txt"
    lock_before = (folder / "tfenv.lock").read_text(encoding="utf-8")
    images_before = {i.id for i in project_repo_images(docker_client, built_project["repo"])}
    requirements.write_text(REQUIREMENTS + "numpy>=2\n", encoding="utf-8")
    try:
        result = tfenv("build", "--repo", built_project["env_repo"], "--plain", *built_project["ca"], cwd=folder,
                       timeout=300)
    finally:
        requirements.write_text(REQUIREMENTS, encoding="utf-8")
    assert result.returncode == 2
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1, result.stderr  # one line: the requirement, why it cannot be met, what fits
    assert errors[0].startswith("tfenv: error: 1 requirement cannot be met on tf29 (nothing was built): "
                                "numpy>=2 (requirements.txt:4): "), errors
    assert errors[0].endswith("; numpy 1.24.1 fits"), errors
    assert "Step " not in result.stdout + result.stderr
    assert {i.id for i in project_repo_images(docker_client, built_project["repo"])} == images_before
    assert (folder / "tfenv.lock").read_text(encoding="utf-8") == lock_before


def test_lock_refreshes_and_a_dependency_conflict_names_the_newest_fit(built_project):
    folder = built_project["folder"]
    lock_before = (folder / "tfenv.lock").read_text(encoding="utf-8")
    refreshed = tfenv("lock", cwd=folder, timeout=300)
    assert refreshed.returncode == 0, refreshed.stderr
    assert refreshed.stdout.startswith(str(folder / "tfenv.lock"))
    assert (folder / "tfenv.lock").read_text(encoding="utf-8") == lock_before  # same inputs, same resolution
    requirements = folder / "requirements.txt"
    requirements.write_text(REQUIREMENTS + "opencv-python-headless==4.12.0.88\n", encoding="utf-8")
    try:
        result = tfenv("lock", cwd=folder, timeout=300)
    finally:
        requirements.write_text(REQUIREMENTS, encoding="utf-8")
    assert result.returncode == 2
    line = result.stderr.strip()
    match = re.fullmatch(r"tfenv: error: 1 requirement cannot be met on tf29 \(nothing was built\): "
                         r"opencv-python-headless==4\.12\.0\.88 \(requirements\.txt:4\): opencv-python-headless "
                         r"4\.12\.0\.88 needs numpy>=2\S*, the environment keeps numpy\S+; "
                         r"opencv-python-headless (\S+) fits", line)
    assert match, line
    fit = tuple(int(p) for p in match.group(1).split("."))
    assert fit < (4, 12)  # the newest that fits comes from the index, below the version that does not
    assert (folder / "tfenv.lock").read_text(encoding="utf-8") == lock_before


def test_jupyter_runs_on_the_project_image(built_project, docker_client):
    name = f"tfenv-it-project-jupyter-{uuid.uuid4().hex[:6]}"
    folder = built_project["folder"]
    started = tfenv("run", "--repo", built_project["env_repo"], "--gpus", "none", "--jupyter", "--detach",
                    "--name", name, cwd=folder, timeout=300)
    try:
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip().splitlines()[-1]
        assert url.startswith("http://127.0.0.1:") and "/lab?token=" in url, started.stdout
        with urllib.request.urlopen(url, timeout=30) as resp:
            assert resp.status == 200
        assert docker_client.containers.get(name).image.tags == [built_project["ref"]]
    finally:
        stop = tfenv("stop", name, cwd=folder, timeout=120)
    assert stop.returncode == 0, stop.stderr


def test_devcontainer_folder_builds_the_project_image(built_project, docker_client):
    """What VS Code builds from .devcontainer/ is the project image: same lock, same labels, non-root user."""
    folder = built_project["folder"]
    # The same --ca-cert as the project's build: behind a TLS proxy the plain `docker build` below (VS Code's)
    # trusts it only through the extra-ca.crt that tfenv devcontainer puts into the folder.
    written = tfenv("devcontainer", "--repo", built_project["env_repo"], *built_project["ca"], cwd=folder,
                    timeout=120)
    assert written.returncode == 0, written.stderr
    assert ("wrote .devcontainer/extra-ca.crt" in written.stdout) == bool(built_project["ca"]), written.stdout
    config = json.loads((folder / ".devcontainer" / "devcontainer.json").read_text(encoding="utf-8"))
    tag = f"{built_project['repo']}:devcontainer"  # in the project's repository: the fixture removes it
    build = subprocess.run(["docker", "build", "-q", "-t", tag, str(folder / ".devcontainer")], capture_output=True,
                           text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    img = docker_client.images.get(tag)
    assert img.labels["io.tfenv.project-lock"] == built_project["ref"].rsplit("-", 1)[1]
    assert img.attrs["Config"]["User"] == "1000" and config["remoteUser"] == "tf"
    assert img.attrs["Config"]["WorkingDir"] == config["workspaceFolder"] == "/workspace"
