# The page's entry into tfenv's diagnose package (run by worker.js inside Pyodide). It does what `tfenv explain`
# does with a file: decode the bytes as the CLI decodes them, explain with the matrix facts, format as the CLI
# prints. The package and its facts are the zip `tfenv doctor --write-standalone` writes (tfenv.zip).
import json
import sys

sys.path.insert(0, "/home/pyodide/tfenv.zip")

from builder import diagnose  # noqa: E402
from builder.diagnose import i18n  # noqa: E402
from builder.diagnose.textio import Unreadable, decode  # noqa: E402
from builder.doctor.facts import load_facts  # noqa: E402

FACTS = load_facts()


def explain(data, name, platform, tf, cuda, lang):
    """JSON: the CLI's text and exit status (0 explained, 1 nothing recognised, 2 not a text log), and what
    the page needs to link the setup: the findings' ids, the platform and the tfenv environments that fit.
    lang goes to the diagnose package's own language switch, as `tfenv explain --lang` gives it."""
    try:
        text = decode(bytes(data.to_py() if hasattr(data, "to_py") else data), name)
    except Unreadable as exc:
        return json.dumps({"status": 2, "text": f"tfenv: error: {exc}\n"})
    with i18n.using(i18n.choose_language(lang)):
        result = diagnose.explain(text, FACTS, platform=platform or None, tf=tf or None, cuda=cuda or None)
        answer = diagnose.format_text(result)
    ctx = result.context
    return json.dumps({"status": 0 if result.explained else 1, "text": answer,
                       "findings": [f.id for f in result.findings],
                       "platform": ctx.platform.value if ctx.platform else "", "envs": list(ctx.envs)})
