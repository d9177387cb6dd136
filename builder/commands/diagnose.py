"""Diagnose: doctor (this machine's GPU, driver and CUDA libraries against an environment)."""

from __future__ import annotations

import json

import click

from builder.commands import common
from builder.commands.common import load_matrix
from builder.core.errors import BadOption, ChecksFailed, TfenvError
from builder.diagnose import i18n

# --lang of explain and doctor; without it the locale (LC_ALL, LC_MESSAGES, LANG; Windows: the UI language).
lang_option = click.option("--lang", type=click.Choice(i18n.LANGUAGES), metavar="|".join(i18n.LANGUAGES),
                           help="The language of the report (default: the locale's, else English).")


@click.command("doctor")
@click.option("--env", "env_name", metavar="ENV", callback=common.nonempty,
              help="Check for this environment (default: the installed TF's).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--import", "do_import", is_flag=True, help="Also import TensorFlow once and read its loader log.")
@click.option("--write-standalone", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the standalone doctor (one file, Python 3.6+, facts inside; --explain LOG too), and exit.")
@click.option("--write-facts", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write the matrix facts as JSON (doctor-facts.json beside doctor.py), and exit.")
@lang_option
@click.pass_context
def doctor_command(ctx, env_name, as_json, do_import, write_standalone, write_facts, lang):
    """Check GPU, driver, CUDA libraries, Python, WSL2 and Docker for an environment; say what to fix."""
    _refuse_what_writing_ignores(write_standalone, write_facts, env_name=env_name, json=as_json, do_import=do_import,
                                 lang=lang)
    with i18n.using(i18n.choose_language(lang)):
        _doctor(ctx, env_name, as_json, do_import, write_standalone, write_facts)


def _refuse_what_writing_ignores(write_standalone, write_facts, **given) -> None:
    """--write-standalone/--write-facts write every environment's facts and exit: a report option beside them
    would be silently ignored. The written doctor takes them itself (`python doctor.py --env tf29 --json`)."""
    writing = "--write-standalone" if write_standalone else "--write-facts" if write_facts else None
    flags = {"env_name": "--env", "json": "--json", "do_import": "--import", "lang": "--lang"}
    ignored = {flags[name]: value for name, value in given.items() if value}
    if writing and ignored:
        names = ", ".join(ignored)
        verb = "does" if len(ignored) == 1 else "do"
        argv = " ".join(flag if value is True else f"{flag} {value}" for flag, value in ignored.items())
        raise BadOption(f"{names} {verb} not apply to {writing}, which writes the file and exits: give "
                        f"{'it' if len(ignored) == 1 else 'them'} to the written doctor (`python doctor.py {argv}`)")


def _doctor(ctx, env_name, as_json, do_import, write_standalone, write_facts):
    from builder import doctor
    from builder.matrix.facts import facts_from_matrix

    m = load_matrix(ctx)
    if env_name:
        m.env(env_name)  # unknown names: one line with the nearest match, exit 2
    facts = facts_from_matrix(m)
    if write_standalone or write_facts:
        from builder.core import files
        from builder.doctor import standalone

        # Both or neither, and never one file twice: a half-done pair would be a doctor without its facts.
        files.distinct([("--write-standalone", write_standalone), ("--write-facts", write_facts)])
        items = [(path, data(), None) for path, data in (
            (write_standalone, lambda: standalone.build(facts)),
            (write_facts, lambda: (json.dumps(facts, indent=2, sort_keys=True) + "\n").encode())) if path]
        for path in files.write_all(items, what="doctor file"):
            click.echo(str(path))
        return
    try:
        report = doctor.diagnose(facts, doctor.Host.current(), env_name, do_import)
    except doctor.DoctorError as exc:
        raise TfenvError(str(exc)) from None
    click.echo(doctor.format_json(report) if as_json else doctor.format_text(report, facts), nl=False)
    if report.failed:
        raise ChecksFailed(i18n.t("{count} doctor check(s) failed; the fixes are above", count=len(report.failed)))


@click.command("explain")
@click.argument("source", metavar="[FILE|-]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the diagnosis as JSON.")
@click.option("--platform", type=click.Choice(["windows", "wsl1", "wsl2", "linux"]),
              help="The platform the log comes from (default: inferred from the log).")
@click.option("--tf", "tf_version", metavar="VERSION", help="The TensorFlow version (default: inferred).")
@click.option("--cuda", "cuda_version", metavar="VERSION", help="The CUDA version installed (default: inferred).")
@lang_option
@click.pass_context
def explain_command(ctx, source, as_json, platform, tf_version, cuda_version, lang):
    """Read a TensorFlow log, traceback or console session (FILE, or stdin when piped) and explain each problem,
    root cause first: what went wrong, the lines it shows, the fix for that platform, and the tfenv way.

    Offline. Exit status 0 when something was explained, 1 when nothing was recognised, 2 for input that is
    not a readable text log.
    """
    with i18n.using(i18n.choose_language(lang)):
        _explain(ctx, source, as_json, platform, tf_version, cuda_version)


def _explain(ctx, source, as_json, platform, tf_version, cuda_version):
    import sys

    from builder import diagnose
    from builder.diagnose.textio import Unreadable, read_path
    from builder.matrix.facts import facts_from_matrix

    if source is None:
        if sys.stdin.isatty():
            raise TfenvError("give a log FILE, or pipe a log in: tfenv explain - < log.txt")
        source = "-"
    try:
        text = read_path(source)
    except Unreadable as exc:
        raise TfenvError(str(exc)) from None
    result = diagnose.explain(text, facts_from_matrix(load_matrix(ctx)), platform=platform, tf=tf_version,
                              cuda=cuda_version)
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2))
    elif sys.stdout.isatty():
        _print_rich(result)
    else:
        click.echo(diagnose.format_text(result), nl=False)
    ctx.exit(0 if result.explained else 1)


def _print_rich(result) -> None:
    """The text report with colour on a terminal (the diagnosis core itself stays standard-library only)."""
    from rich.console import Console
    from rich.markup import escape

    from builder.diagnose.i18n import t
    from builder.diagnose.report import UNDECIDED, context_line

    console = Console(highlight=False)
    read = t("Read {count} line(s): {context}.", count=result.log.line_count, context=context_line(result.context))
    console.print(f"[dim]{escape(read)}[/dim]")
    if not result.findings:
        console.print(f"\n[yellow]{escape(t(UNDECIDED))}[/yellow]")
    for i, f in enumerate(result.findings, 1):
        colour = "green" if f.harmless else "bold red" if i == 1 else "red"
        console.print(f"\n[{colour}]{i}. {escape(f.title)}[/{colour}] [dim]\\[{f.id}][/dim]")
        for n in f.evidence:
            where = t("line {number}: {text}", number=n, text="")  # the line's own text in its colour after it
            console.print(f"   [dim]{escape(where)}[/dim][cyan]{escape(result.log.line_text(n))}[/cyan]")
        for label, body in ((t("why"), f.cause), (t("fix"), f.fix), (t("tfenv"), f.tfenv)):
            if body:
                console.print(f"   [bold]{label}:[/bold] {escape(body)}")
