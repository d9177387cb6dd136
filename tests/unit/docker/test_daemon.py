"""Every Docker request is bounded: a daemon that accepts and never answers fails in one line, on any call."""

from __future__ import annotations

import functools
import threading
import time

import pytest

from builder.docker import daemon
from tests import helpers
from tests.fakes.hung_daemon import FIRST_CONTACT, HungDaemon

tfenv = functools.partial(helpers.tfenv, clean_env=True, timeout=60)


@pytest.fixture
def sock_path(tmp_path):
    return str(tmp_path / "hung.sock")  # AF_UNIX paths are short: tmp_path stays under 108 bytes


def timed(*args, host: str):
    started = time.monotonic()
    result = tfenv(*args, env={"DOCKER_HOST": host, "TFENV_DOCKER_TIMEOUT": "1"})
    return result, time.monotonic() - started


def did_not_answer(result, host: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"tfenv: error: cannot reach the Docker daemon ({host} did not answer within 1 s")
    assert "TFENV_DOCKER_TIMEOUT" in lines[0]


def test_a_daemon_that_never_answers_fails_at_the_first_contact(sock_path):
    with HungDaemon(sock_path) as hung:
        result, elapsed = timed("ps", host=hung.docker_host)
    did_not_answer(result, hung.docker_host)
    assert elapsed < 20


@pytest.mark.parametrize("argv", [["ps"], ["stop", "--all"], ["run", "tf29", "--", "true"],
                                  ["build", "tf29", "--no-pull"], ["test", "tf29"], ["shell"]])
def test_a_daemon_that_stops_answering_after_the_ping_fails_every_command(sock_path, argv):
    with HungDaemon(sock_path, answer=FIRST_CONTACT) as hung:
        result, elapsed = timed(*argv, host=hung.docker_host)
    assert any(r.endswith("/_ping") for r in hung.requests)  # the first contact went through
    assert hung.requests[-1].split("?")[0].split("/")[-1] not in ("_ping", "version")  # a later call hung
    did_not_answer(result, hung.docker_host)
    assert elapsed < 20  # docker-py's own default would have waited 60 s, tfenv's earlier one 600 s


@pytest.mark.parametrize("call", ["build", "pull", "push"])
def test_requests_docker_py_sends_without_a_timeout_get_one(sock_path, monkeypatch, call):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{sock_path}")
    monkeypatch.setenv("TFENV_DOCKER_TIMEOUT", "1")
    import io

    with HungDaemon(sock_path, answer=FIRST_CONTACT):
        c = daemon.client()
        started = time.monotonic()
        with pytest.raises(daemon.DockerUnavailable, match="did not answer within 1 s"):
            if call == "build":
                c.api.build(fileobj=io.BytesIO(b""), custom_context=True, decode=True)
            else:
                getattr(c.api, call)("tfenv-ci/hung", tag="x", stream=True, decode=True)
        assert time.monotonic() - started < 10
        c.close()


LONG_WAITS = {  # the call, and the request the fake daemon holds
    "a container's exit": (lambda c: c.api.wait("tfenv-ci-hung"), "/containers/tfenv-ci-hung/wait"),
    "an image import": (lambda c: c.api.import_image_from_data(b"x", repository="tfenv-ci/hung"), "/images/create"),
    "a container's removal": (lambda c: c.api.remove_container("tfenv-ci-hung", force=True),
                              "/containers/tfenv-ci-hung"),
    "an image's removal": (lambda c: c.api.remove_image("tfenv-ci-hung", force=True), "/images/tfenv-ci-hung"),
}


@pytest.mark.parametrize("what", list(LONG_WAITS))
def test_waits_that_last_as_long_as_the_work_are_not_cut_at_the_timeout(sock_path, monkeypatch, what):
    call, held = LONG_WAITS[what]
    monkeypatch.setenv("DOCKER_HOST", f"unix://{sock_path}")
    monkeypatch.setenv("TFENV_DOCKER_TIMEOUT", "1")
    outcome = []
    with HungDaemon(sock_path, answer=FIRST_CONTACT) as hung:
        c = daemon.client()

        def wait():
            try:
                outcome.append(call(c))
            except Exception as exc:  # noqa: BLE001 - whatever ends it is the outcome
                outcome.append(exc)

        waiter = threading.Thread(target=wait, daemon=True)
        waiter.start()
        waiter.join(timeout=3)  # three times the timeout: a container may run for hours, an import or removal minutes
        assert waiter.is_alive() and outcome == []
        assert hung.requests[-1].split("?")[0].endswith(held)
    waiter.join(timeout=10)  # the fake closed the connection: the wait ends
    c.close()


def test_a_connection_lost_mid_stream_is_one_line():
    import urllib3.exceptions

    exc = urllib3.exceptions.ProtocolError("Connection broken: IncompleteRead(0 bytes read)")
    assert "cannot reach the Docker daemon (Connection broken" in str(daemon.lost_connection(exc))
    assert daemon.lost_connection(ValueError("a bug")) is None
