"""`tfenv doctor`: the Click side of builder/doctor.py, which stays standard-library only.

This module turns the validated Matrix into the plain-dict facts doctor.py reads, and writes the
standalone copy (facts inlined) for machines that have nothing but Python.
"""

from __future__ import annotations

import json

import click

from builder import doctor, options
from builder.cli import load_matrix
from builder.errors import TfenvError
from builder.matrix import Matrix


class ChecksFailed(TfenvError):
    """The report was printed and at least one check failed."""

    exit_code = 1


def facts_from_matrix(matrix: Matrix) -> dict:
    """What doctor needs from the matrix, as JSON-ready data (the schema doctor.py reads)."""
    envs = {}
    for env in matrix.envs.values():
        envs[env.name] = {
            "tensorflow": env.tensorflow,
            "python_min": env.python_min,
            "python_max": env.python_max,
            "cuda": env.cuda.version,
            "cuda_full": env.cuda.full,
            "cudnn": env.cudnn,
            "sonames": list(env.sonames),
            "optional_sonames": list(env.optional_sonames),
            "shims": [{"link": s.link, "to": s.to} for s in env.shims],
            "lib_dirs": list(env.cuda.ubuntu.lib_dirs) if env.cuda.ubuntu else [],
        }
    cuda = {v: {"full": s.full, "driver_min": dict(s.driver_min)} for v, s in matrix.cuda.items()}
    return {"schema": 1, "envs": envs, "cuda": cuda}


@click.command("doctor")
@click.option("--env", "env_name", metavar="ENV", callback=options.nonempty,
              help="Check for this environment (default: the installed TF's).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--import", "do_import", is_flag=True, help="Also import TensorFlow once and read its loader log.")
@click.option("--write-standalone", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write a single-file doctor.py with the matrix facts inlined, and exit.")
@click.option("--write-facts", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the matrix facts as JSON (doctor-facts.json beside doctor.py), and exit.")
@click.pass_context
def command(ctx, env_name, as_json, do_import, write_standalone, write_facts):
    """Check GPU, driver, CUDA libraries, Python, WSL2 and Docker for an environment; say what to fix."""
    if env_name is not None and not env_name.strip():
        raise TfenvError("--env '': name an environment (see `tfenv matrix`), or leave --env out")
    m = load_matrix(ctx)
    if env_name:
        m.env(env_name)  # unknown names: one line with the nearest match, exit 2
    facts = facts_from_matrix(m)
    if write_standalone or write_facts:
        from builder import files

        # Both or neither, and never one file twice: a half-done pair would be a doctor without its facts.
        files.distinct([("--write-standalone", write_standalone), ("--write-facts", write_facts)])
        items = [(path, text, None) for path, text in (
            (write_standalone, doctor.standalone_source(facts)),
            (write_facts, json.dumps(facts, indent=2, sort_keys=True) + "\n")) if path]
        for path in files.write_all(items, what="doctor file", newline=None):
            click.echo(str(path))
        return
    try:
        report = doctor.diagnose(facts, doctor.Host.current(), env_name, do_import)
    except doctor.DoctorError as exc:
        raise TfenvError(str(exc)) from None
    click.echo(doctor.format_json(report) if as_json else doctor.format_text(report, facts), nl=False)
    if report.failed:
        raise ChecksFailed(f"{len(report.failed)} doctor check(s) failed; the fixes are above")
