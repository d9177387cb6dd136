"""`tfenv test`: prove an image is what the matrix says, and that TensorFlow finds its GPU libraries."""

from __future__ import annotations

import sys

import click

EXIT_CODES = """\b
Exit status:
  0  every check passed (skipped GPU checks allowed)
  1  checks ran and at least one failed
  2  could not run: no Docker daemon or docker CLI, no such image, bad input,
     --gpus all without an NVIDIA runtime
  130 interrupted (the container is removed all the same)

\b
On a GPU host: tfenv test tf29 --gpus all"""


@click.command("test", epilog=EXIT_CODES)
@click.argument("env", required=False)
@click.option("--os", "os_name", help="OS variant (default: the environment's first).")
@click.option("--gpus", type=click.Choice(["auto", "all", "none"]), default="auto", show_default=True,
              help="auto: GPU checks when the Docker daemon has an NVIDIA runtime, else skipped; "
                   "all: require a GPU; none: CPU checks only.")
@click.option("--junit-xml", type=click.Path(dir_okay=False, writable=True), help="Also write JUnit XML here.")
@click.option("--repo", help="Image repository (default: from the matrix).")
@click.option("--image", "image_ref", metavar="REF",
              help="Test this image instead; without ENV its io.tfenv.* labels say which environment it is.")
@click.pass_context
def command(ctx, env, os_name, gpus, junit_xml, repo, image_ref):
    """Run the image checks in a container of ENV's image and report one line per check.

    CPU checks always run: OS, Python, TensorFlow and its build info, every CUDA soname TF loads, TF's
    loader log, a CPU op, pip check, non-root user, NVIDIA_* variables, labels. GPU checks run when a GPU
    is passed in, and are reported as skipped (with the reason) when not.
    """
    from builder import dockerhost, verify
    from builder.cli import load_matrix
    from builder.project import config

    m = load_matrix(ctx)
    in_project = image_ref is None and env is None and config.find() is not None
    if image_ref is None and env is None and not in_project:
        raise click.UsageError("name an environment (e.g. `tfenv test tf29`) or pass --image REF "
                               "(or run it in a folder with tfenv.yaml)")
    verify.require_docker_cli()
    c = dockerhost.client()
    gpu = dockerhost.resolve_gpus(c, gpus)  # --gpus all without a runtime fails here, before anything starts
    if in_project:
        from builder.project import actions

        outcome = actions.test(m, actions.load(m), gpu, junit_xml=junit_xml, repo=repo, client=c)
    else:
        target, ref, img, hint = verify.resolve_target(m, c, env, os_name, repo, image_ref)
        outcome = verify.run(m, target, ref, img.labels or {}, gpu, hint, junit_xml=junit_xml, client=c)
    print_outcome(outcome, rich_output=sys.stdout.isatty())
    if outcome.failed:
        raise verify.ChecksFailed(f"{len(outcome.failed)} of {len(outcome.results)} checks failed on {ref}")


# --- the report: one line per check; evidence and fix under each failure -------------------------

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
