"""The real projects of tests/unit/project_corpus go `tfenv init` -> `tfenv lock` and lock or are refused as
tests/unit/project_corpus/expected.yaml says (network: the resolver reads the package index; minutes).

Three of them that land on tf29 or tf210 also `tfenv build` on debian11 (the shared tf29 image, tf29_image,
and tf210 built on its layers when missing), pass `tfenv test` and run their own smoke command in `tfenv run`
(TF is the environment's: `pip show tensorflow-gpu` is empty); every image made here is removed afterwards.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

import pytest

from builder.project.family import TENSORFLOW_NAMES
from tests.helpers import tfenv
from tests.unit.project.test_corpus_init import EXPECTED, copy_project, init_args

pytestmark = [pytest.mark.slow]

HOST_CA = "/etc/ssl/certs/ca-certificates.crt"
RESULTS: dict[str, str] = {}  # slug -> "locks" or the refusal, for the summary


def lock_project(slug: str, dest: Path):
    entry = EXPECTED[slug]
    folder = copy_project(slug, dest)
    init = tfenv(*init_args(entry), cwd=folder)
    return entry, folder, init


@pytest.mark.parametrize("slug", sorted(s for s, e in EXPECTED.items() if not e.get("init_refused")))
def test_corpus_project_locks_or_is_refused_as_expected(tmp_path, slug):
    entry, folder, init = lock_project(slug, tmp_path)
    assert init.returncode == 0, init.stderr
    result = tfenv("lock", cwd=folder, timeout=1500)
    expected = entry["outcome"]
    if entry.get("unreachable") and result.returncode != 0 and entry["unreachable"] in result.stderr:
        pytest.skip(f"{slug}: {result.stderr.strip()}")  # its git host is not reachable from here
    if expected == "locks":
        assert result.returncode == 0, result.stderr
        pins = [ln for ln in (folder / "tfenv.lock").read_text(encoding="utf-8").splitlines()
                if ln and not ln.startswith("#")]
        names = {re.split(r"==| @ ", p)[0].lower().replace("_", "-") for p in pins}
        assert not names & set(TENSORFLOW_NAMES), pins  # never a second TensorFlow
        for note in entry.get("notes", []):
            assert note in result.stdout, result.stdout
    else:
        assert result.returncode == 2, result.stdout + result.stderr
        message = result.stderr.strip()
        assert len(message.splitlines()) == 1, message
        for part in expected[len("refused: "):].split(" … "):
            assert part in message, message
        assert not (folder / "tfenv.lock").exists()


# --- three of them built, tested and run on tf29 debian11 ------------------------------------------------

BUILT = sorted(s for s, e in EXPECTED.items() if e.get("smoke"))


@pytest.fixture(scope="module")
def project_images(docker_client, tf29_image):
    """The environment images the projects build on (tf29 from the shared fixture; tf210 built on its layers
    when missing) and every image the tests below make, removed at the end (also on failure)."""
    from builder.docker import daemon

    made: list[str] = []
    repo = tf29_image.repo
    if any(EXPECTED[s]["env"] == "tf210" for s in BUILT) and not daemon.has_image(docker_client,
                                                                                  f"{repo}:tf210-debian11"):
        from tests.conftest import BASE_IMAGE

        ca = ["--ca-cert", HOST_CA] if os.path.isfile(HOST_CA) else []
        built = tfenv("build", "tf210", "--os", "debian11", "--repo", repo, "--base-image", BASE_IMAGE, "--plain",
                      *ca, timeout=2400)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr
        made += [f"{repo}:tf210-debian11", f"{repo}:2.10.1-gpu-cuda11.2-cudnn8.6-py3.9-debian11"]
    yield made
    from docker.errors import DockerException

    for ref in reversed(made):
        with contextlib.suppress(DockerException):
            docker_client.images.remove(ref, noprune=False)
    # the certificate stages' untagged images, labelled with each project's name by its Dockerfile
    for name in BUILT + ["gpu-pin"]:
        for img in docker_client.images.list(filters={"dangling": True, "label": f"io.tfenv.project={name}"}):
            with contextlib.suppress(DockerException):
                docker_client.images.remove(img.id, noprune=False)


@pytest.mark.docker
@pytest.mark.parametrize("slug", BUILT)
def test_corpus_project_builds_passes_its_suite_and_runs_its_smoke_command(tmp_path, slug, tf29_image,
                                                                           project_images):
    entry = EXPECTED[slug]
    assert entry["env"] in ("tf29", "tf210"), "only the tf29 and tf210 debian11 images are built by the slow suite"
    folder = copy_project(slug, tmp_path)
    init = tfenv(*init_args(entry), "--os", "debian11", cwd=folder)
    assert init.returncode == 0, init.stderr
    ca = ["--ca-cert", HOST_CA] if os.path.isfile(HOST_CA) else []
    build = tfenv("build", "--repo", tf29_image.repo, "--plain", *ca, cwd=folder, timeout=2400)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr
    ref = build.stdout.strip().splitlines()[-1].split("project: ", 1)[1]
    project_images.append(ref)
    test = tfenv("test", "--repo", tf29_image.repo, "--gpus", "none", cwd=folder, timeout=1200)
    assert test.returncode == 0, test.stdout[-4000:] + test.stderr
    version = tfenv("run", "--repo", tf29_image.repo, "--", "python", "-c",
                    "import tensorflow as tf; print(tf.__version__)", cwd=folder)
    tf = {"tf29": "2.9.3", "tf210": "2.10.1"}[entry["env"]]
    assert version.returncode == 0 and version.stdout.strip().splitlines()[-1] == tf, version.stderr
    for name in ("tensorflow-gpu", "tensorflow-cpu"):
        show = tfenv("run", "--repo", tf29_image.repo, "--", "pip", "show", name, cwd=folder)
        assert show.stdout.strip() == "", show.stdout  # the environment's TensorFlow only
    smoke = tfenv("run", "--repo", tf29_image.repo, "--", "python", "-c", entry["smoke"], cwd=folder)
    assert smoke.returncode == 0, smoke.stdout[-2000:] + smoke.stderr[-2000:]
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.docker
def test_a_tensorflow_gpu_pin_of_the_line_builds_on_the_environments_tf(tmp_path, tf29_image, project_images):
    """`tensorflow-gpu==2.9.1` (the guides' advice) is the tf29 line: provided, never installed a second time."""
    folder = tmp_path / "gpu-pin"
    folder.mkdir()
    (folder / "requirements.txt").write_text("tensorflow-gpu==2.9.1\ntqdm==4.64.1\n", encoding="utf-8")
    init = tfenv("init", "--os", "debian11", cwd=folder)
    assert init.returncode == 0 and init.stdout.startswith("tf29 (debian11, Python 3.9): tensorflow-gpu==2.9.1 is "
                                                           "the TF 2.9 line"), init.stdout + init.stderr
    ca = ["--ca-cert", HOST_CA] if os.path.isfile(HOST_CA) else []
    build = tfenv("build", "--repo", tf29_image.repo, "--plain", *ca, cwd=folder, timeout=1200)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr
    assert "note: tensorflow-gpu==2.9.1: tf29 provides 2.9.3, the same line with its GPU build" in build.stdout
    project_images.append(build.stdout.strip().splitlines()[-1].split("project: ", 1)[1])
    lock = (folder / "tfenv.lock").read_text(encoding="utf-8")
    assert [ln for ln in lock.splitlines() if ln and not ln.startswith("#")][0].startswith("tqdm==4.64.1")
    probe = tfenv("run", "--repo", tf29_image.repo, "--", "sh", "-c",
                  "python -c 'import tensorflow as tf; print(tf.__version__)' 2>/dev/null; pip show tensorflow-gpu",
                  cwd=folder)
    assert probe.stdout.strip().splitlines()[-1] == "2.9.3", probe.stdout + probe.stderr
    assert "Name: tensorflow-gpu" not in probe.stdout
