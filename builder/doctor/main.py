"""The standalone doctor's command line: `python doctor.py [--env ENV] [--json] [--import] [--explain FILE]
[--lang en|zh-CN]`."""

import argparse
import json
import os
import sys
from typing import List, Optional

from builder.diagnose import i18n
from builder.doctor.host import DoctorError, Host
from builder.doctor.report import diagnose, format_json, format_text


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="doctor.py", description="Why TensorFlow does not see your GPU.")
    parser.add_argument("--env", help="the tfenv environment to check for (default: the installed TensorFlow's)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--import", dest="do_import", action="store_true", help="also import TensorFlow once")
    parser.add_argument("--facts", help="matrix facts JSON (from tfenv doctor --write-facts FILE)")
    parser.add_argument("--explain", metavar="FILE", help="explain a TensorFlow error log instead ('-': stdin)")
    parser.add_argument("--platform", choices=("windows", "wsl1", "wsl2", "linux"), help="with --explain: the log's")
    parser.add_argument("--lang", choices=i18n.LANGUAGES, help="the report's language (default: the locale's)")
    args = parser.parse_args(argv)
    with i18n.using(i18n.choose_language(args.lang)):
        return _run(args)


def _run(args) -> int:
    beside = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] else None
    try:
        from builder.doctor.facts import load_facts

        if args.env is not None and not args.env.strip():
            raise DoctorError(i18n.t("--env '': name an environment, or leave --env out"))
        facts = load_facts(args.facts, beside)
        if args.explain:
            return explain(args.explain, facts, args.json, args.platform)
        report = diagnose(facts, Host.current(), args.env, args.do_import)
    except DoctorError as exc:
        print(f"doctor: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: one line and 70 (as tfenv), not a traceback a user must read
        print(f"doctor: internal error: {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return 70
    _write(format_json(report) if args.json else format_text(report, facts))
    return 1 if report.failed else 0


def explain(path: str, facts: Optional[dict], as_json: bool, platform: Optional[str]) -> int:
    """`tfenv explain` for a machine with nothing but Python: 0 explained, 1 nothing recognised, 2 unreadable."""
    from builder import diagnose
    from builder.diagnose.textio import Unreadable, read_path

    try:
        text = read_path(path)
    except Unreadable as exc:
        print(f"doctor: error: {exc}", file=sys.stderr)
        return 2
    result = diagnose.explain(text, facts, platform=platform)
    out = json.dumps(result.as_dict(), indent=2) + "\n" if as_json else diagnose.format_text(result)
    _write(out)
    return 0 if result.explained else 1


def _write(text: str) -> None:
    """Print even where the console cannot encode a character (a cp1252 Windows console and a UTF-8 log)."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        encoding = getattr(sys.stdout, "encoding", None) or "ascii"
        sys.stdout.write(text.encode(encoding, "replace").decode(encoding))
