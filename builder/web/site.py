"""The explain page: index.html, its script and worker, tfenv's diagnose package with the matrix facts
(the zip `tfenv doctor --write-standalone` writes) and the Python entry the worker calls."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

TEMPLATES = Path(__file__).resolve().parent.parent / "templates" / "web"
# Nothing leaves the browser: scripts, workers, fetches and styles from this site only; wasm may compile.
CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'"
STATIC = ("app.js", "worker.js", "entry.py", "style.css")
APP_PATH = "/home/pyodide/tfenv.zip"  # where worker.js writes tfenv.zip; entry.py puts it on sys.path


def jinja() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    env.filters["code"] = code_spans
    return env


def code_spans(text: str) -> Markup:
    """Escaped text with its `backtick` spans (commands, as the diagnose messages mark them) as <code>."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text))))


def ui_text() -> dict:
    """The page's own labels in each language (the answers' text comes from the diagnose package)."""
    return json.loads((TEMPLATES / "ui.json").read_text(encoding="utf-8"))


def site_data(matrix, source_url: str | None, rule_languages: list) -> dict:
    """What app.js needs besides its labels: env -> the committed setup scripts an answer links to
    (windows/ENV/setup.ps1, wsl/ENV/setup.ps1), the repository they are in, the languages of the rule pages."""
    from builder.core import paths
    from builder.render import windows
    envs = {}
    for env in matrix.envs.values():
        envs[env.name] = {"windows": paths.windows_relpath(env) if windows.supported(env) else None,
                          "wsl": paths.wsl_relpath(env, paths.WSL_POWERSHELL) if env.cuda.wsl is not None else None}
    return {"source": (source_url or "").rstrip("/"), "envs": envs, "rule_languages": rule_languages}


def files(matrix, facts: dict, runtime, source_url: str | None, rule_languages: list) -> dict:
    """site path -> bytes for the page (the runtime's own files come from runtime.files())."""
    from builder.doctor import standalone

    page = jinja().get_template("index.html").render(
        csp=CSP, pyodide_version=runtime.version, ui_text=_json_block(ui_text()),
        site=_json_block(site_data(matrix, source_url, rule_languages)))
    # The standalone doctor's zip, its .py precompiled like the stdlib (the page starts without compiling).
    app = runtime.precompile(standalone.build(facts), APP_PATH)
    out = {"index.html": page.encode(), "tfenv.zip": app}
    for name in STATIC:
        out[name] = (TEMPLATES / name).read_bytes()
    return out


def _json_block(data) -> Markup:
    """JSON for a <script type="application/json"> block: '<' escaped so no text can close the element."""
    return Markup(json.dumps(data, ensure_ascii=False, sort_keys=True).replace("<", "\\u003c"))
