"""builder.docker.images against the real Docker daemon, with tiny Dockerfiles on the local debian base.

Every image and container here carries the label io.tfenv.test=<unique> and is removed by the fixture.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import uuid

import pytest

from builder.core import progress
from builder.docker import daemon, images
from tests.conftest import BASE_IMAGE
from tests.helpers import ROOT, as_from_a_terminal, matrix, tfenv

BASE = BASE_IMAGE


def dockerfile(label, *steps):
    return "\n".join([f"FROM {BASE}", f"LABEL io.tfenv.test={label}", *steps]) + "\n"


def leftover_containers(client, label):
    return client.containers.list(all=True, filters={"label": f"io.tfenv.test={label}"})


def test_build_tags_counts_steps_and_a_rebuild_is_all_cache(client, label):
    text = dockerfile(label, "RUN echo hello-from-build > /hello", 'LABEL io.tfenv.env="tiny"')
    first = images.run_build(client, images.context_tar(text), tag=f"tfenv-ci/tiny:{label}", display=progress.Display())
    assert first.steps == 4 and first.cacheable == 3 and first.image_id.startswith("sha256:")
    images.tag(client, first.image_id, f"tfenv-ci/tiny:{label}-alias")
    image = client.images.get(f"tfenv-ci/tiny:{label}-alias")
    assert image.id == first.image_id and image.labels["io.tfenv.env"] == "tiny"
    again = images.run_build(client, images.context_tar(text), tag=f"tfenv-ci/tiny:{label}", display=progress.Display())
    assert (again.cached, again.image_id) == (3, first.image_id)  # a no-op rebuild is the same image


def untagged_from(client, marker: str) -> list:
    """The untagged images whose step ran a command containing `marker`."""
    found = []
    for image in client.images.list(all=True, filters={"dangling": True}):
        cmd = (image.attrs.get("ContainerConfig") or {}).get("Cmd") or image.attrs["Config"].get("Cmd") or []
        if any(marker in part for part in cmd):
            found.append(image.id)
    return found


def test_an_earlier_stage_leaves_no_untagged_image_and_the_last_stage_stays_cached(client, label):
    # The shape of the environment and project Dockerfiles: a `ca` stage the main stage copies from.
    marker = f"stage-{label}"
    text = (f"FROM {BASE} AS ca\nRUN mkdir /ca && echo {marker} > /ca/x\n"
            f"FROM {BASE}\nLABEL io.tfenv.test={label}\nCOPY --from=ca /ca/ /tmp/ca/\nRUN cat /tmp/ca/x\n")
    ref = f"tfenv-ci/stages:{label}"
    first = images.run_build(client, images.context_tar(text), tag=ref, display=progress.Display())
    assert untagged_from(client, marker) == []
    assert first.cacheable == 3  # LABEL, COPY, RUN of the last stage: the `ca` stage runs each time
    again = images.run_build(client, images.context_tar(text), tag=ref, display=progress.Display())
    assert (again.cached, again.cacheable, again.image_id) == (3, 3, first.image_id)
    assert untagged_from(client, marker) == []


def test_failing_step_names_the_step_shows_its_output_and_leaves_no_container(client, label, capsys):
    text = dockerfile(label, "RUN echo step-one", "RUN echo the-last-words >&2; exit 3")
    with pytest.raises(images.BuildFailed) as info:
        images.run_build(client, images.context_tar(text), tag=f"tfenv-ci/tiny:{label}", display=progress.Display())
    assert str(info.value) == "build failed at step 4/4 (RUN echo the-last-words >&2; exit 3): exit code 3"
    assert info.value.exit_code == 1
    out = capsys.readouterr().out
    assert "--- last output of step 4/4 ---" in out and "the-last-words" in out.split("--- last output")[1]
    assert leftover_containers(client, label) == []


def test_rich_display_renders_a_build(client, label):
    import io

    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    display = progress.RichDisplay(console)
    display.start("tiny")
    images.run_build(client, images.context_tar(dockerfile(label, "RUN echo rich")), tag=f"tfenv-ci/tiny:{label}",
                     display=display)
    display.finish()
    assert "[3/3]" in console.file.getvalue() and "RUN echo rich" in console.file.getvalue()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_stops_the_build_and_removes_its_container(client, label):
    script = textwrap.dedent(f"""
        import sys
        from builder.core import progress
        from builder.docker import daemon, images
        text = {dockerfile(label, "RUN echo started && sleep 300")!r}
        try:
            images.run_build(daemon.client(), images.context_tar(text), tag="tfenv-ci/tiny:{label}",
                             display=progress.Display())
        except KeyboardInterrupt:
            sys.exit(130)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            preexec_fn=as_from_a_terminal,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    # Wait until step 3 runs: the LABEL step makes a short-lived container of its own, so a container
    # alone does not say that the RUN step has started.
    seen = []
    watchdog = threading.Timer(120, proc.kill)  # a build that never starts must not hang the suite
    watchdog.start()
    try:
        for line in proc.stdout:
            seen.append(line)
            if line.strip() == "started":
                break
    finally:
        watchdog.cancel()
    assert seen and seen[-1].strip() == "started", "".join(seen)
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=60)
    out = "".join(seen) + rest
    assert proc.returncode == 130, out
    # Either tfenv removes the step's container or the daemon, cancelling the build, already has.
    assert re.search(r"build interrupted at step 3/3: (removed its container \w+|no container was left)", out), out
    assert leftover_containers(client, label) == []


def test_missing_base_image_says_how_to_make_it(client):

    m = matrix()
    nope = f"tfenv-ci/no-such-base:{uuid.uuid4().hex[:8]}"
    opts = images.BuildOptions(base_image=nope, pull=False)
    with pytest.raises(images.BaseImageMissing) as info:
        images.resolve_base(client, m.target("tf29", "debian11"), opts, progress.Display())
    assert str(info.value) == (f"base image {nope} is not available locally and cannot be pulled "
                               f"(pulling is off (--no-pull)): create it with `tfenv base debian11 --tag {nope}`")
    assert images.resolve_base(client, m.target("tf29", "debian11"), images.BuildOptions(base_image=BASE),
                               progress.Display()) == BASE


def test_push_to_an_unreachable_registry_is_one_line(client, label):
    built = images.run_build(client, images.context_tar(dockerfile(label)), tag=f"tfenv-ci/tiny:{label}",
                             display=progress.Display())
    ref = f"127.0.0.1:9/tfenv-ci/tiny:{label}"
    images.tag(client, built.image_id, ref)
    with pytest.raises(images.PushFailed) as info:
        images.push(client, [ref], progress.Display())
    assert str(info.value).startswith(f"push of {ref} failed: ") and "\n" not in str(info.value)


# --- the CLI: every problem is one line and a non-zero exit --------------------------------------------


def test_cli_without_daemon_says_how_to_start_one():
    result = tfenv("build", "tf29", "--os", "debian11", env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert result.returncode == 2
    assert result.stderr.startswith("tfenv: error: cannot reach the Docker daemon")
    assert "start it with" in result.stderr and "Traceback" not in result.stderr


def test_cli_ubuntu_base_that_cannot_be_pulled(client):
    if daemon.has_image(client, "ubuntu:20.04"):
        pytest.skip("ubuntu:20.04 is local here")
    result = tfenv("build", "tf29", "--os", "ubuntu20.04", "--plain")
    assert result.returncode == 2, result.stdout + result.stderr
    line = result.stderr.strip()
    assert line.startswith("tfenv: error: base image ubuntu:20.04 is not available locally and cannot be pulled (")
    assert line.endswith("`docker load -i base.tar` here") and "\n" not in line


def test_cli_bad_ca_cert_is_one_line(tmp_path):
    result = tfenv("build", "tf29", "--os", "debian11", "--ca-cert", str(tmp_path / "none.crt"))
    assert result.returncode == 2
    missing = tmp_path / "none.crt"
    assert result.stderr.strip() == f"tfenv: error: --ca-cert {missing}: cannot read: No such file or directory"
