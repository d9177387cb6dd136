"""The `tfenv test` report: one line per check, with the evidence and the fix under each failure."""

from __future__ import annotations

import click

MARKS = {"passed": "PASS", "failed": "FAIL", "skipped": "SKIP"}
STYLES = {"passed": "green", "failed": "bold red", "skipped": "yellow"}


def summary(outcome) -> str:
    t = outcome.target
    return (f"{t.env.name} on {t.os.name} ({outcome.image}): {outcome.count('passed')} passed, "
            f"{outcome.count('failed')} failed, {outcome.count('skipped')} skipped")


def print_outcome(outcome, rich_output: bool) -> None:
    if rich_output:
        _print_rich(outcome)
        return
    for r in outcome.results:
        line = f"{MARKS[r.outcome]}  {r.title}"
        if r.outcome == "skipped" and r.evidence:
            line += f"  -- {r.evidence}"
        click.echo(line)
        if r.outcome == "failed":
            click.echo(f"      found: {r.evidence}")
            if r.fix:
                click.echo(f"      fix:   {r.fix}")
    click.echo(summary(outcome))


def _print_rich(outcome) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("check")
    table.add_column("details")
    for r in outcome.results:
        details = Text()
        if r.outcome == "failed":
            details.append(r.evidence or "")
            if r.fix:
                details.append("\nfix: ", style="bold")
                details.append(r.fix)
        elif r.outcome == "skipped":
            details.append(r.evidence or "", style="dim")
        table.add_row(Text(MARKS[r.outcome], style=STYLES[r.outcome]), r.title, details)
    console = Console()
    console.print(table)
    console.print(summary(outcome), style="bold red" if outcome.failed else "bold green")
