"""Verify an image: start a container, run the shipped testinfra suites in it, always remove it.

testinfra neither starts containers nor passes GPUs, so tfenv starts one with the Docker SDK (with a GPU
request when asked and available), points the suites at it through testinfra's docker:// backend (which
runs `docker exec`), collects one result per check, and removes the container in a `finally`, which also
runs on Ctrl-C.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from builder.core import files
from builder.core.errors import TfenvError
from builder.docker import containers, daemon
from builder.matrix import tags
from builder.matrix.model import Matrix, Target


class CannotRun(TfenvError):
    """The checks could not run (no docker CLI, container did not start, suite broken)."""


@dataclass
class CheckResult:
    nodeid: str
    title: str
    outcome: str  # "passed", "failed", "skipped"
    evidence: str | None = None
    fix: str | None = None


@dataclass
class Outcome:
    image: str
    target: Target
    results: list[CheckResult]

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def failed(self) -> list[CheckResult]:
        return [r for r in self.results if r.outcome == "failed"]


# --- what the image must be: everything the suites compare, from the matrix -----------------------


def expectations(m: Matrix, target: Target, image: str, image_labels: dict, gpu: tuple[bool, str],
                 hint: str) -> dict:
    """The JSON the suites read (builder/verify/suites/conftest.py): matrix facts, labels, GPU mode."""
    env = target.env
    family = target.os.family
    return {
        "image": image,
        "env": env.name,
        "os": target.os.name,
        "os_family": family,
        "os_version": target.os.name[len(family):],
        "python": target.python,
        "python_cmd": "python",  # the image's venv is first on PATH
        "tensorflow": env.tensorflow,
        "cuda": env.cuda.version,
        "cuda_built": env.built_cuda,
        "cudnn_built": env.cudnn,
        "cudnn_installed": target.cudnn_version,
        "sonames": list(env.sonames),
        "optional_sonames": list(env.optional_sonames),
        "shims": [s.as_dict() for s in env.shims],
        "cudart_soname": next(s for s in env.sonames if s.startswith("libcudart.")),
        "cudnn_soname": next(s for s in env.sonames if s.startswith("libcudnn.")),
        "driver_min_linux": env.cuda.driver_min["linux"],
        "wsl_lib": m.wsl.lib_dir if m.wsl else None,  # the driver hint's WSL2 folder (diagnose.loader)
        "uid": m.image.uid,
        "labels_expected": tags.labels(target),
        "labels_found": dict(image_labels or {}),
        "gpu": {"use": gpu[0], "reason": gpu[1], "fix": daemon.GPU_FIX},
        "build_hint": hint,
    }


# --- choosing the image ---------------------------------------------------------------------------


def labelled_target(m: Matrix, client, image: str, env_name: str | None, os_name: str | None):
    """(target, docker image) for --image REF: ENV/--os when given, else what its io.tfenv.* labels claim."""
    img = _local_image(client, image)
    labels = img.labels or {}
    if env_name is None:
        claimed = labels.get("io.tfenv.env")
        if not claimed:
            raise TfenvError(f"image {image} has no io.tfenv.env label: name the environment it should be "
                             f"(`tfenv test ENV --image {image}`)")
        env_name, os_name = claimed, os_name or labels.get("io.tfenv.os")
    return m.target(env_name, os_name), img


def _local_image(client, ref: str):
    from docker.errors import ImageNotFound

    try:
        return client.images.get(ref)
    except ImageNotFound:
        raise daemon.ImageMissing(f"image {ref} not found locally: pull it (`docker pull {ref}`) or build it "
                                      f"(`tfenv build ENV --os OS`)") from None


# --- running --------------------------------------------------------------------------------------


def require_docker_cli() -> str:
    path = shutil.which("docker")
    if not path:
        raise CannotRun("tfenv test runs its checks with `docker exec` (pytest-testinfra's docker backend), but "
                        "the `docker` command is not on PATH: install the Docker CLI (Docker Desktop includes it)")
    return path


def run(m: Matrix, target: Target, image: str, image_labels: dict, gpu: tuple[bool, str], hint: str,
        junit_xml: str | None = None, client=None, extra_labels: dict | None = None,
        project: dict | None = None) -> Outcome:
    """Start the container, run the suites, remove the container; KeyboardInterrupt propagates after cleanup.

    gpu: (use_gpu, reason) from daemon.resolve_gpus. project: what a project image adds
    (builder/verify/suites/test_project.py), from builder.project.image.test_expectations.
    """
    require_docker_cli()
    c = client or daemon.client()
    use_gpu = gpu[0]
    expect = expectations(m, target, image, image_labels, gpu, hint)
    if project:
        expect["project"] = project
    with files.temp_dir("test") as tmp:
        expect_file = tmp / "expect.json"
        expect_file.write_text(json.dumps(expect, indent=1), encoding="utf-8")
        # pytest writes the report beside expect.json; it is moved into place only when complete.
        staged_junit = tmp / "junit.xml" if junit_xml else None
        with containers.signals_as_interrupt(), container(c, image, target, use_gpu, extra_labels) as cont:
            results = run_suites(cont.id, expect_file, str(staged_junit) if staged_junit else None)
        if staged_junit:
            files.make_folder(Path(junit_xml).parent, "JUnit XML folder")  # new/dir/j.xml: as pytest would
            files.write_text(junit_xml, staged_junit.read_text(encoding="utf-8"), what="JUnit XML report")
    return Outcome(image, target, results)


@contextmanager
def container(c, image: str, target: Target, use_gpu: bool, extra_labels: dict | None = None) -> Iterator:
    """A running container that idles until the suites are done, removed however the block ends."""
    from docker.errors import APIError

    name = f"tfenv-test-{target.env.name}-{target.os.name}-{secrets.token_hex(4)}".replace(".", "")
    labels = {containers.MANAGED_LABEL: "test", **(extra_labels or {})}
    cont = None
    try:
        try:
            # entrypoint, not command: an image with its own ENTRYPOINT must not wrap the idle process.
            cont = containers.start(c, dict(image=image, entrypoint=["sleep"], command=["infinity"], name=name,
                                            labels=labels, device_requests=daemon.device_requests(use_gpu),
                                            auto_remove=False))
        except APIError as exc:
            raise CannotRun(f"could not start {image}: {exc.explanation or exc}") from None
        cont.reload()
        if cont.status != "running":
            logs = cont.logs(tail=5).decode(errors="replace").strip()
            raise CannotRun(f"the container of {image} exited at once ({cont.status}): {logs or 'no output'}")
        yield cont
    finally:
        containers.remove(c, cont or name)


def run_suites(container_id: str, expect_file: Path, junit_xml: str | None = None,
               suite_dir: Path | None = None) -> list[CheckResult]:
    """pytest, in-process, on the shipped suites; the pytest plugin below collects one result per check."""
    from builder.verify.suites import SUITE_DIR

    suite_dir = suite_dir or SUITE_DIR
    args = [str(suite_dir), "-c", str(suite_dir / "pytest.ini"), "--rootdir", str(suite_dir),
            f"--hosts=docker://{container_id}", f"--tfenv-expect={expect_file}",
            "-p", "testinfra.plugin", "-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:randomly"]
    if junit_xml:
        args.append(f"--junitxml={junit_xml}")
    collector = Collector()
    # Only testinfra and our collector: a user's other pytest plugins must not change what "verified" means.
    with _env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"):
        code = pytest.main(args, plugins=[collector])
    if collector.errors:  # checked first: pytest reports collection errors as INTERRUPTED too
        raise CannotRun(f"the image suites could not be collected: {collector.errors[0]}")
    if code == pytest.ExitCode.INTERRUPTED:
        raise KeyboardInterrupt
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not collector.results:
        raise CannotRun(f"the image suites did not run (pytest exit status {int(code)})")
    return collector.ordered()


@contextmanager
def _env(**values):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class Collector:
    """A pytest plugin: one CheckResult per test, with the evidence and fix a CheckFailed carries."""

    def __init__(self):
        self.results: dict[str, CheckResult] = {}
        self.errors: list[str] = []
        self._order: list[str] = []

    def pytest_collection_modifyitems(self, items):
        self._order = [item.nodeid for item in items]

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(_last_line(str(report.longrepr)))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = (yield).get_result()
        current = self.results.get(item.nodeid)
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.results[item.nodeid] = CheckResult(item.nodeid, _title(item), "skipped",
                                                    evidence=reason.replace("Skipped: ", "", 1))
        elif report.failed and (current is None or current.outcome != "failed"):
            exc = call.excinfo.value if call.excinfo else None
            evidence = getattr(exc, "evidence", None) or _exc_text(call.excinfo)
            if report.when != "call":
                evidence = f"could not set up the check: {evidence}"
            self.results[item.nodeid] = CheckResult(item.nodeid, _title(item), "failed", evidence,
                                                    getattr(exc, "fix", None))
        elif report.passed and report.when == "call" and current is None:
            self.results[item.nodeid] = CheckResult(item.nodeid, _title(item), "passed")

    def ordered(self) -> list[CheckResult]:
        rank = {nodeid: i for i, nodeid in enumerate(self._order)}
        return sorted(self.results.values(), key=lambda r: rank.get(r.nodeid, len(rank)))


def _title(item) -> str:
    doc = (getattr(item, "function", None).__doc__ or item.name).strip().splitlines()[0]
    params = {k: v for k, v in getattr(getattr(item, "callspec", None), "params", {}).items()
              if k != "_testinfra_host"}
    try:
        return doc.format(**{k: _fmt(v) for k, v in params.items()})
    except (KeyError, IndexError, ValueError):
        return doc


def _fmt(value) -> str:
    if isinstance(value, dict) and "link" in value:
        return f"{value['link']} -> {value['to']}"
    return "none" if value is None else str(value)


def _exc_text(excinfo) -> str:
    if excinfo is None:
        return "failed"
    text = f"{excinfo.type.__name__}: {excinfo.value}".strip()
    return text if len(text) <= 400 else text[:397] + "..."


def _last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else text
