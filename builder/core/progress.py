"""Showing a build as it runs: a rich live display on a terminal, plain lines otherwise.

Both displays take the same few calls from builder.docker.images (step, output, download, note, finish), so the
build code never asks which one it has. Every display keeps the last output lines, which a failed build
prints with its error.
"""

from __future__ import annotations

import collections
import sys

TAIL_LINES = 25


class Display:
    """Plain lines on stdout: what CI logs and `--plain` get."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self.tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)

    def _print(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def start(self, title: str) -> None:
        self.tail.clear()
        self._print(f"==> {title}")

    def step(self, number: int, total: int, instruction: str) -> None:
        self.tail.clear()  # the tail shown on failure belongs to the failing step only
        short = instruction if len(instruction) <= 160 else instruction[:157] + "..."
        self._print(f"[{number}/{total}] {short}")

    def cached(self) -> None:
        self._print("      cached")

    def output(self, line: str) -> None:
        self.tail.append(line)
        self._print(f"      {line}")

    def download(self, layer: str, status: str, current: int | None, total: int | None) -> None:
        # Plain logs get one line per layer state change, never a line per progress tick.
        if current is None or status not in ("Downloading", "Extracting"):
            self._print(f"      {layer}: {status}")

    def note(self, text: str) -> None:
        self._print(text)

    def finish(self) -> None:
        pass


class RichDisplay(Display):
    """A live panel: step n/m with the current instruction, the latest output line, download bars."""

    def __init__(self, console=None):
        super().__init__()
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console or Console()
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[detail]}"),
            DownloadColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
        )
        self._steps = None
        self._layers: dict[str, int] = {}
        self._started = False

    def _ensure_started(self) -> None:
        if not self._started:
            self.progress.start()
            self._started = True

    def start(self, title: str) -> None:
        self.tail.clear()
        self._ensure_started()
        self.progress.console.print(f"[bold]==> {title}[/bold]")
        if self._steps is not None:
            self.progress.remove_task(self._steps)
        self._steps = self.progress.add_task("steps", total=None, detail="")

    def step(self, number: int, total: int, instruction: str) -> None:
        self.tail.clear()
        self._ensure_started()
        short = instruction if len(instruction) <= 70 else instruction[:67] + "..."
        self.progress.console.print(f"[cyan][{number}/{total}][/cyan] {short}", markup=True, highlight=False)
        self.progress.update(self._steps, description=f"step {number}/{total}", total=total,
                             completed=number - 1, detail="")

    def cached(self) -> None:
        self.progress.console.print("      [dim]cached[/dim]")

    def output(self, line: str) -> None:
        self.tail.append(line)
        if self._steps is not None:
            self.progress.update(self._steps, detail=line[:60])

    def download(self, layer: str, status: str, current: int | None, total: int | None) -> None:
        self._ensure_started()
        if layer not in self._layers:
            self._layers[layer] = self.progress.add_task(f"  {layer}", total=total or None, detail=status)
        task = self._layers[layer]
        self.progress.update(task, detail=status, **({"completed": current} if current is not None else {}),
                             **({"total": total} if total else {}))

    def note(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False)

    def finish(self) -> None:
        if self._started:
            self.progress.stop()
            self._started = False


def display(plain: bool = False) -> Display:
    """Rich on an interactive terminal, plain lines when asked or when output is piped."""
    if plain or not sys.stdout.isatty():
        return Display()
    return RichDisplay()
