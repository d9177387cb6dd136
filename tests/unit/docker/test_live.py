"""`tfenv shell` and `tfenv ps` figures without Docker: choosing a container, the stats arithmetic."""

from __future__ import annotations

import pytest

from builder.commands.environment import _env_was_given
from builder.docker import live


class Box:
    def __init__(self, name):
        self.name = name


def test_choose_the_only_one_or_the_named_one():
    a, b = Box("tfenv-tf29-run-aaaaaa"), Box("tfenv-tf29-jupyter-bbbbbb")
    assert live.choose([a], None) is a
    assert live.choose([a, b], "tfenv-tf29-jupyter-bbbbbb") is b


@pytest.mark.parametrize("running, name, says", [
    ([], None, "no tfenv container is running: start one with `tfenv run`"),
    (["b-2", "a-1"], None, "2 tfenv containers are running, name one: tfenv shell {a-1,b-2}"),
    (["a-1"], "c-3", "no running tfenv container named c-3 (running: a-1)"),
])
def test_choose_says_what_to_do(running, name, says):
    with pytest.raises(live.NoContainer) as err:
        live.choose([Box(n) for n in running], name)
    assert str(err.value).startswith(says)


def test_exec_argv_uses_a_tty_only_on_a_terminal(monkeypatch):
    monkeypatch.setattr(live.shutil, "which", lambda name: "/usr/bin/docker")
    assert live.exec_argv("c1", True) == ["/usr/bin/docker", "exec", "-it", "c1", "bash"]
    assert live.exec_argv("c1", False) == ["/usr/bin/docker", "exec", "-i", "c1", "bash"]


STATS = {  # the shape of GET /containers/ID/stats?stream=false (cgroup v2)
    "cpu_stats": {"cpu_usage": {"total_usage": 3_000_000_000}, "system_cpu_usage": 110_000_000_000,
                  "online_cpus": 2},
    "precpu_stats": {"cpu_usage": {"total_usage": 2_000_000_000}, "system_cpu_usage": 100_000_000_000},
    "memory_stats": {"usage": 400 * 2**20, "limit": 8 * 2**30, "stats": {"inactive_file": 100 * 2**20}},
}


def test_cpu_and_memory_as_docker_stats_computes_them():
    assert live.cpu_percent(STATS) == "20.0%"  # 1 s of CPU in 10 s of 2 CPUs' system time, times 2
    assert live.memory(STATS) == "300MiB / 8.0GiB"


def test_a_stopped_container_has_no_figures():
    assert live.cpu_percent({"cpu_stats": {}, "precpu_stats": {}}) == "-"
    assert live.memory({"memory_stats": {}}) == "-"


@pytest.mark.parametrize("output, shown", [
    ("1024, 16384\n", "1024MiB / 16384MiB"),
    ("10, 100\n20, 100\n", "30MiB / 200MiB"),
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", "-"),
    ("", "-"),
])
def test_gpu_memory_from_nvidia_smi(output, shown):
    assert live.gpu_memory(output) == shown


class Ctx:
    def __init__(self, raw):
        self.meta = {"tfenv.raw_args": raw}


@pytest.mark.parametrize("raw, env, given", [
    (["tf29", "--", "python", "x.py"], "tf29", True),
    (["--", "python", "x.py"], "python", False),
    (["-e", "A=1", "--", "python"], "python", False),
    (["tf29"], "tf29", True),
    ([], None, False),
    (["--jupyter"], None, False),
])
def test_run_tells_an_environment_from_a_command_after_dashdash(raw, env, given):
    assert _env_was_given(Ctx(raw), env) is given
