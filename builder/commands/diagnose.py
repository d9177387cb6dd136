"""Diagnose: doctor (this machine's GPU, driver and CUDA libraries against an environment)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from builder.commands.common import load_matrix
from builder.errors import ChecksFailed, TfenvError


@click.command("doctor")
@click.option("--env", "env_name", metavar="ENV", help="Check for this environment (default: the installed TF's).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--import", "do_import", is_flag=True, help="Also import TensorFlow once and read its loader log.")
@click.option("--write-standalone", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a single-file doctor.py with the matrix facts inlined, and exit.")
@click.option("--write-facts", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the matrix facts as JSON (doctor-facts.json beside doctor.py), and exit.")
@click.pass_context
def doctor_command(ctx, env_name, as_json, do_import, write_standalone, write_facts):
    """Check GPU, driver, CUDA libraries, Python, WSL2 and Docker for an environment; say what to fix."""
    from builder import doctor
    from builder.facts import facts_from_matrix

    m = load_matrix(ctx)
    if env_name:
        m.env(env_name)  # unknown names: one line with the nearest match, exit 2
    facts = facts_from_matrix(m)
    if write_standalone or write_facts:
        for path, text in ((write_standalone, doctor.standalone_source(facts)),
                           (write_facts, json.dumps(facts, indent=2, sort_keys=True) + "\n")):
            if path:
                _write(Path(path), text)
                click.echo(path)
        return
    try:
        report = doctor.diagnose(facts, doctor.Host.current(), env_name, do_import)
    except doctor.DoctorError as exc:
        raise TfenvError(str(exc)) from None
    click.echo(doctor.format_json(report) if as_json else doctor.format_text(report, facts), nl=False)
    if report.failed:
        raise ChecksFailed(f"{len(report.failed)} doctor check(s) failed; the fixes are above")


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise TfenvError(f"cannot write {path}: {exc.strerror}") from None
