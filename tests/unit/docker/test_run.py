"""tfenv run without a container: option parsing, the SDK/CLI option builder, ports, CLI refusals."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from builder.docker import jupyter, run
from tests.helpers import ROOT, tfenv

# --- -v and -e ---------------------------------------------------------------------------


def test_volume_defaults_to_rw_and_resolves_relative_host(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    assert run.parse_volume("data:/data") == run.Mount(str(tmp_path / "data"), "/data", False)
    assert run.parse_volume(f"{tmp_path}:/x/:ro") == run.Mount(str(tmp_path), "/x", True)


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("/tmp", "expected HOST:CONTAINER"),
        ("/tmp:/a:ro:extra", "expected HOST:CONTAINER"),
        (":/a", "expected HOST:CONTAINER"),
        ("/tmp:", "expected HOST:CONTAINER"),
        ("/tmp:/a:rx", "must be ro or rw"),
        ("/tmp:relative", "must be absolute"),
        ("/no/such/dir/tfenv:/a", "does not exist"),
        ("named-volume:/a", "does not exist"),  # no silent named volumes
    ],
)
def test_bad_volume_is_one_line_naming_the_value(value, says):
    with pytest.raises(run.BadOption) as exc:
        run.parse_volume(value)
    assert says in str(exc.value)
    assert f"-v {value}:" in str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize(
    ("value", "want"),
    [
        (r"C:\Users\me\data:/data", (r"C:\Users\me\data", "/data", "rw")),
        ("c:/Users/me:/w:ro", ("c:/Users/me", "/w", "ro")),
        ("/home/me:/w", ("/home/me", "/w", "rw")),
    ],
)
def test_split_volume_knows_windows_drive_letters(value, want):
    assert run.split_volume(value) == want


def test_split_volume_drive_without_container_fails():
    with pytest.raises(run.BadOption, match="expected HOST:CONTAINER"):
        run.split_volume(r"C:\data")


def test_env_values_may_contain_equals():
    assert run.parse_env("A=b=c") == ("A", "b=c")
    assert run.parse_env("EMPTY=") == ("EMPTY", "")


@pytest.mark.parametrize(("value", "says"), [("NOVALUE", "expected KEY=VALUE"), ("1X=2", "not a valid"),
                                               ("=v", "not a valid"), ("A-B=1", "not a valid")])
def test_bad_env_is_refused(value, says):
    with pytest.raises(run.BadOption, match=says):
        run.parse_env(value)


# --- the spec and its two renderings ------------------------------------------------------------


def spec_for(tmp_path, **kw):
    args = dict(env_name="tf29", workdir="/workspace", cwd=str(tmp_path), volumes=[], environment=[], gpu=False)
    args.update(kw)
    return run.make_spec("tfenv/tensorflow:tf29", ["python", "-c", "pass"], **args)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX uid mapping")
def test_spec_maps_host_uid_and_gives_it_a_writable_home(tmp_path):
    spec = spec_for(tmp_path)
    assert spec.user == f"{os.getuid()}:{os.getgid()}"
    assert spec.environment["HOME"] == "/tmp"
    assert spec.mounts == [run.Mount(str(tmp_path), "/workspace")]
    assert spec.labels == {"io.tfenv.managed": "run", "io.tfenv.env": "tf29"}
    assert spec.name.startswith("tfenv-tf29-run-")


def test_spec_user_env_wins_and_a_workdir_volume_replaces_the_cwd_mount(tmp_path):
    other = run.Mount(str(tmp_path / "x"), "/workspace", True)
    spec = spec_for(tmp_path, volumes=[other], environment=[("HOME", "/home/me")])
    assert spec.environment["HOME"] == "/home/me"
    assert spec.mounts == [other]


def test_spec_on_windows_skips_uid_mapping(tmp_path, monkeypatch):
    # Fake: this machine is POSIX; removing os.getuid is how tfenv sees Windows.
    monkeypatch.delattr(os, "getuid", raising=False)
    spec = spec_for(tmp_path)
    assert spec.user is None
    assert "HOME" not in spec.environment


def test_sdk_kwargs_and_cli_argv_say_the_same(tmp_path):
    (tmp_path / "a,b").mkdir()
    spec = spec_for(tmp_path, volumes=[run.Mount(str(tmp_path / "a,b"), "/data", True)],
                    environment=[("K", "v w")], gpu=True, name="tfenv-test-x")
    spec.ports = {"8888/tcp": ("::1", 8890)}
    kw, argv = run.docker_options(spec)
    assert argv[:2] == ["docker", "run"] and "--rm" in argv and "-it" not in argv
    assert argv[-4:] == ["tfenv/tensorflow:tf29", "python", "-c", "pass"]
    assert kw["image"] == "tfenv/tensorflow:tf29" and kw["command"] == ["python", "-c", "pass"]
    assert kw["name"] == "tfenv-test-x" and argv[argv.index("--name") + 1] == "tfenv-test-x"
    assert kw["user"] == argv[argv.index("-u") + 1] if spec.user else "-u" not in argv
    assert kw["working_dir"] == argv[argv.index("-w") + 1] == "/workspace"
    assert [f"{k}={v}" for k, v in kw["environment"].items()] == [argv[i + 1] for i, a in enumerate(argv) if a == "-e"]
    assert [f"{k}={v}" for k, v in kw["labels"].items()] == [argv[i + 1] for i, a in enumerate(argv) if a == "--label"]
    cli_mounts = [argv[i + 1] for i, a in enumerate(argv) if a == "--mount"]
    assert [(m["Source"], m["Target"], m["ReadOnly"]) for m in kw["mounts"]] == [
        (str(tmp_path), "/workspace", False), (str(tmp_path / "a,b"), "/data", True)]
    assert cli_mounts[1] == f'type=bind,"source={tmp_path}/a,b",target=/data,readonly'
    assert kw["device_requests"][0]["Count"] == -1 and argv[argv.index("--gpus") + 1] == "all"
    assert kw["ports"] == {"8888/tcp": ("::1", 8890)} and argv[argv.index("-p") + 1] == "[::1]:8890:8888/tcp"
    assert kw["init"] is True and "--init" in argv


def test_interactive_spec_asks_for_a_tty_both_ways(tmp_path):
    kw, argv = run.docker_options(spec_for(tmp_path, interactive=True))
    assert kw["tty"] and kw["stdin_open"] and "-it" in argv
    kw, _ = run.docker_options(spec_for(tmp_path, gpu=False))
    assert "tty" not in kw and "device_requests" not in kw


class _Explained(Exception):
    def __init__(self, explanation):
        super().__init__(explanation)
        self.explanation = explanation


def test_start_errors_keep_docker_run_exit_codes(tmp_path):
    spec = spec_for(tmp_path)
    missing = run.start_error(_Explained('exec: "nope": executable file not found in $PATH'), spec)
    assert missing.exit_code == 127 and "cannot run 'python'" in str(missing)
    other = run.start_error(_Explained("something else\nbroke"), spec)
    assert other.exit_code == 125 and "\n" not in str(other)


# --- Jupyter: ports, addresses, command --------------------------------------------------------


def test_explicit_busy_port_fails_naming_it():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(jupyter.PortBusy) as exc:
            jupyter.choose_port("127.0.0.1", port)
        assert f"port {port} on 127.0.0.1 is already in use" in str(exc.value)
        assert "--port" in str(exc.value)


def test_scan_skips_busy_ports(monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        monkeypatch.setattr(jupyter, "FIRST_PORT", port)
        chosen = jupyter.choose_port("127.0.0.1", None)
        assert chosen > port and jupyter.port_free("127.0.0.1", chosen)


def test_bind_is_an_ip_and_urls_reach_it_locally():
    assert jupyter.check_bind("0.0.0.0") == "0.0.0.0"
    with pytest.raises(run.BadOption, match="--bind localhost: expected an IP address"):
        jupyter.check_bind("localhost")
    assert jupyter.is_public("0.0.0.0") and jupyter.is_public("::") and not jupyter.is_public("127.0.0.1")
    assert jupyter.lab_url("0.0.0.0", 8888, "t") == "http://127.0.0.1:8888/lab?token=t"
    assert jupyter.lab_url("::1", 8889, "t") == "http://[::1]:8889/lab?token=t"


class _FakeImage:  # only the attribute server_command reads
    attrs = {"Config": {"Cmd": ["jupyter", "lab", "--ip=0.0.0.0"]}}


def test_server_command_adds_allow_root_only_for_root(monkeypatch):
    monkeypatch.setattr(os, "getuid", lambda: 0, raising=False)
    assert jupyter.server_command(_FakeImage()) == ["jupyter", "lab", "--ip=0.0.0.0", "--ServerApp.allow_root=True"]
    monkeypatch.setattr(os, "getuid", lambda: 1000, raising=False)
    assert jupyter.server_command(_FakeImage()) is None


# --- the CLI refuses bad input in one line, before Docker ----------------------------------------


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["run", "tf29", "-v", "/no/such/tfenv:/x", "--", "true"], "-v /no/such/tfenv:/x: the host path"),
        (["run", "tf29", "-v", "/tmp:rel", "--", "true"], "must be absolute"),
        (["run", "tf29", "-e", "NOPE", "--", "true"], "-e NOPE: expected KEY=VALUE"),
        (["run", "tf29", "--port", "9000", "--", "true"], "--port only applies with --jupyter"),
        (["run", "tf29", "--detach", "--", "true"], "--detach only applies with --jupyter"),
        (["run", "tf29", "--jupyter", "--", "python"], "drop the command"),
        (["run", "tf29"], "no command and no terminal"),
        (["run", "tf99", "--", "true"], "tf99"),
        (["stop"], "name the containers to stop"),
    ],
)
def test_cli_refusals_are_one_line(args, says):
    res = tfenv(*args)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tfenv: error: ") and says in lines[0], res.stderr


def test_bind_must_be_an_address_with_jupyter():
    res = tfenv("run", "tf29", "--jupyter", "--bind", "everywhere")
    assert res.returncode == 2
    assert res.stderr.strip() == "tfenv: error: --bind everywhere: expected an IP address such as 127.0.0.1 or 0.0.0.0"


def test_help_lists_run_ps_stop_without_importing_docker():
    res = subprocess.run([sys.executable, "-c", "import sys; from builder.cli import main; "
                          "sys.argv=['tfenv','--help']\ntry: main()\nexcept SystemExit: pass\n"
                          "print('docker' in sys.modules)"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert "run " in res.stdout and "ps " in res.stdout and "stop " in res.stdout
    assert res.stdout.strip().endswith("False")


def test_a_lost_port_race_is_tried_a_bounded_number_of_times(monkeypatch):
    tried = []

    def always_taken(client, spec, bind, port, token):
        tried.append(port)
        raise jupyter.PortTaken(f"port {port} on {bind} was taken while starting: pass another --port")

    monkeypatch.setattr(jupyter, "start", always_taken)
    monkeypatch.setattr(jupyter, "port_free", lambda bind, port: True)
    with pytest.raises(jupyter.PortBusy) as exc:
        jupyter.start_on_a_free_port(None, None, "127.0.0.1", None, "t")
    assert tried == list(range(jupyter.FIRST_PORT, jupyter.FIRST_PORT + jupyter.PORT_TRIES))
    assert str(exc.value) == (f"ports {', '.join(map(str, tried))} on 127.0.0.1 were each taken while starting: "
                              "pass a free --port")
    tried.clear()
    with pytest.raises(jupyter.PortTaken):  # --port given: never another one
        jupyter.start_on_a_free_port(None, None, "127.0.0.1", 9000, "t")
    assert tried == [9000]
