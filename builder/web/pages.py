"""A static page per rule, so that a search for a message lands on an answer without running any wasm:
the message lines the rule recognises in real, cited logs (tests/unit/explain_corpus, only the log lines),
the cause, the fix on each platform and the tfenv way, as the rule itself words them; and an index page."""

from __future__ import annotations

from pathlib import Path

import yaml

from builder import diagnose
from builder.core.paths import checkout_root
from builder.diagnose import i18n, rules
from builder.web.site import CSP, jinja, ui_text

PLATFORMS = ("windows", "linux", "wsl2")
MAX_LINES = 6  # quoted log lines per source
MAX_SOURCES = 5  # cited logs per page
LANGUAGES = {"en": "English", "zh-CN": "简体中文"}  # each language of diagnose.i18n by its own name


def corpus_dir() -> Path | None:
    root = checkout_root()
    folder = root / "tests" / "unit" / "explain_corpus" if root else None
    return folder if folder and folder.is_dir() else None


def load_corpus(folder: Path | None) -> list:
    if folder is None:
        return []
    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("[0-9]*.yaml"))]


def finding(case: dict, facts: dict, rule_id: str, platform: str | None = None):
    """The rule's finding on a corpus log (as `tfenv explain` would run it), or None."""
    result = diagnose.explain(case["log"], facts, platform=platform)
    if platform is None and not result.context.platform and case.get("platform") in PLATFORMS:
        result = diagnose.explain(case["log"], facts, platform=case["platform"])
    return next((f for f in result.findings if f.id == rule_id), None)


def rule_page(rule, cases: list, facts: dict) -> dict | None:
    """What one rule's page shows, or None when no corpus log shows the rule (there is nothing real to cite)."""
    sources, first = [], None
    for case in cases:
        found = finding(case, facts, rule.ID)
        if found is None:
            continue
        first = first or (found, case)
        raw = case["log"].split("\n")  # the lines as the log has them (a search for the message finds them)
        sources.append({"url": case["source"], "lines": [raw[n - 1].rstrip("\r") for n in found.evidence][:MAX_LINES]})
    if first is None:
        return None
    top, case = first
    fixes = {}  # fix -> the platforms it is the fix on, in PLATFORMS order
    for platform in PLATFORMS:
        on = finding(case, facts, rule.ID, platform)
        if on is not None:
            fixes.setdefault(on.fix, []).append(platform)
    summary = (rule.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    return {"id": rule.ID, "title": top.title, "summary": summary, "cause": top.cause,
            "fixes": [{"platforms": platforms, "fix": fix} for fix, platforms in fixes.items()],
            "tfenv": top.tfenv, "sources": sources[:MAX_SOURCES]}


def build(facts: dict, corpus: Path | None = None) -> dict:
    """language -> its rule pages: every rule with a corpus log in English; in another language of the diagnose
    package (through its own switch) the rules its catalogue translates (a title still in English: not yet)."""
    cases = load_corpus(corpus or corpus_dir())
    out = {}
    for lang in i18n.LANGUAGES:
        with i18n.using(lang):
            pages = [page for page in (rule_page(rule, cases_of(rule, cases), facts) for rule in rules.RULES) if page]
        if lang != "en":
            english = {page["id"]: page["title"] for page in out["en"]}
            pages = [page for page in pages if page["title"] != english.get(page["id"])]
        if pages:
            out[lang] = pages
    return out


def files(built: dict) -> dict:
    """site path -> bytes: rules/ID.html and rules/index.html in English, LANG/rules/... in the others."""
    out = {}
    for lang in built:
        out.update(render(lang, built))
    return out


def cases_of(rule, cases: list) -> list:
    """The corpus logs of this rule: those it is the cause of first, then those it also shows in."""
    return [c for c in cases if c["cause"] == rule.ID] + [c for c in cases if rule.ID in (c.get("also") or [])]


def render(lang: str, built: dict) -> dict:
    """One language's rule pages and index, each linking its other languages: English under rules/, the
    others under LANG/rules/."""
    folder = "rules/" if lang == "en" else f"{lang}/rules/"
    root = "../" * folder.count("/")
    home = root + ("index.html" if lang == "en" else f"index.html?lang={lang}")
    others = [({"code": code, "name": LANGUAGES[code]}, root + ("rules/" if code == "en" else f"{code}/rules/"),
               {page["id"] for page in built[code]}) for code in built if code != lang]
    shared = {"csp": CSP, "text": ui_text()[lang], "lang": lang, "root": root, "home": home}
    env = jinja()
    out = {}
    for page in built[lang]:
        links = [(other, href + f"{page['id']}.html") for other, href, ids in others if page["id"] in ids]
        out[f"{folder}{page['id']}.html"] = env.get_template("rule.html").render(
            rule=page, languages=links, **shared).encode()
    out[f"{folder}index.html"] = env.get_template("rules.html").render(
        rules=built[lang], languages=[(o, h + "index.html") for o, h, _ in others], **shared).encode()
    return out
