"""Two `tfenv run --jupyter` at once: the one that loses the port race moves on to the next free port.

Real containers of the small debian base publish the port (the race is Docker's bind, not Jupyter's); the
server itself is tests/slow's business.
"""

from __future__ import annotations

import socket
import threading

import pytest

from builder.docker import jupyter, run
from tests.conftest import BASE_IMAGE


def spec(tmp_path, name: str, label: str) -> run.RunSpec:
    s = run.make_spec(BASE_IMAGE, ["sleep", "infinity"], env_name="test", workdir="/workspace", cwd=str(tmp_path),
                      volumes=[], environment=[], gpu=False, name=name)
    s.labels["io.tfenv.test"] = label
    return s


def published(container) -> int:
    container.reload()
    return int(container.attrs["HostConfig"]["PortBindings"][jupyter.CONTAINER_PORT][0]["HostPort"])


@pytest.fixture
def first_port(monkeypatch):
    """A scan that starts at a port nothing else on this shared machine is likely to use."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(jupyter, "FIRST_PORT", port)
    return port


def test_two_starts_at_once_take_two_ports(client, label, tmp_path, first_port, monkeypatch, capsys):
    both_chose = threading.Barrier(2, timeout=30)
    original = jupyter.start
    started, errors = {}, []

    def start_together(client_, spec_, bind, port, token):
        if threading.current_thread().name not in started:  # each start's first try: both on the same port
            started[threading.current_thread().name] = port
            both_chose.wait()
        return original(client_, spec_, bind, port, token)

    monkeypatch.setattr(jupyter, "start", start_together)
    results = {}

    def one(n):
        try:
            results[n] = jupyter.start_on_a_free_port(client, spec(tmp_path, f"{label}-{n}", label), "127.0.0.1",
                                                      None, "token")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(n,), name=f"start-{n}") for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert set(started.values()) == {first_port}  # the race was real: both tried the same port
    ports = sorted(port for _, port in results.values())
    assert ports[0] == first_port and ports[1] > first_port
    assert sorted(published(c) for c, _ in results.values()) == ports
    err = capsys.readouterr().err
    assert f"tfenv: port {first_port} on 127.0.0.1 was taken while starting" in err
    assert f"Jupyter takes port {ports[1]}" in err


def test_a_port_taken_at_the_moment_of_binding_moves_on(client, label, tmp_path, first_port, monkeypatch, capsys):
    holder = socket.socket()
    free = jupyter.port_free

    def taken_after_the_check(bind, port):
        answer = free(bind, port)
        if answer and port == first_port:  # another program binds it just after tfenv looked
            holder.bind(("127.0.0.1", port))
            holder.listen()
        return answer

    monkeypatch.setattr(jupyter, "port_free", taken_after_the_check)
    try:
        container, port = jupyter.start_on_a_free_port(client, spec(tmp_path, label, label), "127.0.0.1", None, "t")
    finally:
        holder.close()
    assert port > first_port and published(container) == port
    assert f"Jupyter takes port {port}" in capsys.readouterr().err


def test_a_chosen_port_is_never_changed(client, label, tmp_path, first_port):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", first_port))
        holder.listen()
        with pytest.raises(jupyter.PortBusy, match=f"port {first_port} on 127.0.0.1 was taken while starting: pass "
                                                   "another --port"):
            jupyter.start(client, spec(tmp_path, label, label), "127.0.0.1", first_port, "t")
    assert client.containers.list(all=True, filters={"label": f"io.tfenv.test={label}"}) == []
