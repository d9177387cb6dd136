"""Running tfenv containers: pick one for `tfenv shell`, and one-shot CPU, memory and GPU figures for `tfenv ps`.

Figures come from the Docker stats API (one answer per container, not a stream) and, for GPU memory, from
`nvidia-smi` run in the container with a short timeout; all containers are asked at once and whatever has
not answered by the deadline shows as '-', so `tfenv ps` never hangs on a busy daemon.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

from builder.core.errors import TfenvError

STATS_DEADLINE_S = 5.0
SMI_TIMEOUT_S = 3
SMI_QUERY = ["nvidia-smi", "--query-gpu=memory.used,memory.total", "--format=csv,noheader,nounits"]


class NoContainer(TfenvError):
    """`tfenv shell` found no running tfenv container, several, or not the one named."""


@dataclass
class Usage:
    cpu: str = "-"  # "12.5%"
    memory: str = "-"  # "310MiB / 7.7GiB"
    gpu_memory: str = "-"  # "1024MiB / 16384MiB", "-" without nvidia-smi


def choose(running: list, name: str | None):
    """The container to open a shell in: the named one, or the only one running."""
    names = sorted(c.name for c in running)
    if name is not None:
        for c in running:
            if c.name == name:
                return c
        raise NoContainer(f"no running tfenv container named {name} (running: {', '.join(names) or 'none'})")
    if not running:
        raise NoContainer("no tfenv container is running: start one with `tfenv run` (e.g. `tfenv run --jupyter -d`)")
    if len(running) > 1:
        raise NoContainer(f"{len(running)} tfenv containers are running, name one: tfenv shell "
                          f"{{{','.join(names)}}}")
    return running[0]


def exec_argv(name: str, interactive_tty: bool) -> list[str]:
    """`docker exec -it NAME bash` (-i alone when stdin is not a terminal, so a piped script works)."""
    docker = shutil.which("docker")
    if docker is None:
        raise TfenvError("tfenv shell runs `docker exec`, but the docker CLI is not on PATH: install it")
    return [docker, "exec", "-it" if interactive_tty else "-i", name, "bash"]


def shell(name: str) -> int:
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    try:
        return subprocess.call(exec_argv(name, tty))
    except KeyboardInterrupt:
        return 130


# --- tfenv ps figures -------------------------------------------------------------------------------


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f}{unit}" if unit in ("B", "KiB", "MiB") else f"{n:.1f}{unit}"
        n /= 1024
    return f"{n:.1f}GiB"


def cpu_percent(stats: dict) -> str:
    """As `docker stats` computes it: the container's share of the host's CPU time since the previous sample."""
    cpu, pre = stats.get("cpu_stats") or {}, stats.get("precpu_stats") or {}
    try:
        delta = cpu["cpu_usage"]["total_usage"] - pre["cpu_usage"]["total_usage"]
        system = cpu["system_cpu_usage"] - pre["system_cpu_usage"]
    except (KeyError, TypeError):
        return "-"
    online = cpu.get("online_cpus") or len(cpu["cpu_usage"].get("percpu_usage") or []) or 1
    if system <= 0:
        return "-"
    return f"{max(delta, 0) / system * online * 100:.1f}%"


def memory(stats: dict) -> str:
    """Used memory without the page cache (cgroup v2 inactive_file, v1 total_inactive_file), and the limit."""
    mem = stats.get("memory_stats") or {}
    if "usage" not in mem:
        return "-"
    extra = mem.get("stats") or {}
    cache = extra.get("inactive_file", extra.get("total_inactive_file", 0))
    used = max(mem["usage"] - cache, 0)
    return f"{_size(used)} / {_size(mem['limit'])}" if mem.get("limit") else _size(used)


def gpu_memory(output: str) -> str:
    """nvidia-smi's 'used, total' lines (MiB), summed over the GPUs the container sees."""
    used = total = 0
    for line in output.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            return "-"
        used, total = used + int(parts[0]), total + int(parts[1])
    return f"{used}MiB / {total}MiB" if total else "-"


def _measure(container, usage: Usage) -> None:
    try:
        stats = container.stats(stream=False)
        usage.cpu, usage.memory = cpu_percent(stats), memory(stats)
    except Exception:  # noqa: BLE001 - a container that stopped meanwhile keeps its '-'
        return
    try:
        result = container.exec_run(["timeout", str(SMI_TIMEOUT_S), *SMI_QUERY], user="0")
        if result.exit_code == 0:
            usage.gpu_memory = gpu_memory(result.output.decode(errors="replace"))
    except Exception:  # noqa: BLE001 - no nvidia-smi, no timeout binary: no GPU figure
        pass


def usage(containers: list, deadline_s: float = STATS_DEADLINE_S) -> dict[str, Usage]:
    """name -> Usage for the running containers, all asked in parallel, bounded by deadline_s."""
    results = {c.name: Usage() for c in containers}
    threads = []
    for c in containers:
        if c.status == "running":
            t = threading.Thread(target=_measure, args=(c, results[c.name]), daemon=True)
            t.start()
            threads.append(t)
    end = time.monotonic() + deadline_s
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))
    # a copy: a thread past the deadline may still write into its Usage
    return {name: Usage(u.cpu, u.memory, u.gpu_memory) for name, u in results.items()}
