"""What `tfenv explain` answers for each input the web tests give the site: every corpus log in every language
the CLI offers, a UTF-16 file, the --platform/--tf/--cuda options, a log with nothing known, a binary. Used by
tests/web/test_site.py and benchmarks/bench_web.py; the node tests read the JSON write_expected() writes."""

from __future__ import annotations

import base64
import json
import tempfile
from pathlib import Path

import yaml

from tests.helpers import UNIT, invoke, tfenv

CORPUS = UNIT / "explain_corpus"


def languages() -> list:
    """The languages `tfenv explain --lang` offers (English alone before it had the option)."""
    from builder.commands.diagnose import explain_command

    for param in explain_command.params:
        if param.name == "lang":
            return list(param.type.choices)
    return ["en"]


def cli_cases(folder: Path) -> list:
    """Each corpus log, and a few inputs of other kinds, with what `tfenv explain` printed and returned."""
    inputs = [(p.stem, yaml.safe_load(p.read_text(encoding="utf-8"))["log"].encode(), {}) for p in
              sorted(CORPUS.glob("[0-9]*.yaml"))]
    first = yaml.safe_load(sorted(CORPUS.glob("[0-9]*.yaml"))[0].read_text(encoding="utf-8"))["log"]
    inputs += [("utf16-bom", b"\xff\xfe" + first.replace("\n", "\r\n").encode("utf-16-le"), {}),
               ("options", first.encode(), {"platform": "linux", "tf": "2.9", "cuda": "11.2"}),
               ("nothing-known", b"hello\nworld\n", {})]
    cases = []
    for lang in languages():
        for name, data, options in inputs:
            path = folder / f"{name}.log"
            path.write_bytes(data)
            args = ["explain", str(path)] + [f"--{k}={v}" for k, v in options.items()]
            args += ["--lang", lang] if lang != "en" or len(languages()) > 1 else []
            result = invoke(*args)
            assert result.exception is None and result.return_value in (0, 1), result.output
            cases.append({"name": name, "file": base64.b64encode(data).decode(), "lang": lang,
                          "status": result.return_value, "text": result.stdout, "platform": options.get("platform", ""),
                          "tf": options.get("tf", ""), "cuda": options.get("cuda", "")})
    binary = folder / "binary.log"
    binary.write_bytes(bytes(range(256)) * 8)
    run = tfenv("explain", str(binary))
    assert run.returncode == 2, run.stderr
    cases.append({"name": str(binary), "file": base64.b64encode(binary.read_bytes()).decode(), "lang": "en",
                  "status": 2, "text": run.stderr, "platform": "", "tf": "", "cuda": ""})
    return cases


def write_expected(path: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="tfenv-web-cases-") as folder:
        data = {"langs": languages(), "cases": cli_cases(Path(folder))}
    path.write_text(json.dumps(data), encoding="utf-8")
