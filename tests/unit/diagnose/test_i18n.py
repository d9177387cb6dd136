"""The translations of explain's and doctor's messages (builder/diagnose/locale/*.json, keyed by the English msgid).

Every msgid is collected statically: ast over builder/ for each t(...) call, its argument a string literal, a
module constant, a dict of constants indexed (t(FIXES[name])) or a conditional of those. A catalogue must
translate each of them, keep every command, path, placeholder, file name and version the English has, and hold
nothing that no code asks for.

`python -m tests.unit.diagnose.test_i18n` prints the msgids a catalogue lacks, as JSON to fill in."""

from __future__ import annotations

import ast
import json
import re
import sys
from collections import defaultdict

import pytest
import yaml

from builder import diagnose
from builder.diagnose import i18n
from builder.matrix.facts import facts_from_matrix
from tests.helpers import ROOT, UNIT, matrix, tfenv

BUILDER = ROOT / "builder"
LOCALES = BUILDER / "diagnose" / "locale"
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != "en"]
# What a translation must carry over unchanged: commands and spans in backticks, {placeholders} (and literal
# braces such as ${LD_LIBRARY_PATH:+...}), paths, file names, options, environment variables, versions.
PROTECTED = re.compile("|".join((
    r"`[^`]+`",
    r"\{[^{}]*\}",
    r"(?:[A-Za-z]:)?(?:[\\/][\w.+-]+){2,}[\\/]?",
    r"[\w+-]+(?:\.[\w+-]+)*\.(?:dll|so|exe|py|ps1|json|yaml|h|cc)(?:\.\d+)*\b",
    r"(?<![\w-])--?[a-z][\w-]*(?:=\S+)?",
    r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b(?:=[\w./:${}+-]*[\w/}])?",
    r"(?<![\w.])\d+(?:\.(?:\d+|x))+\+?",
    r"\bR\d{3}\+?",
    r"\b[a-z]+\d+[a-z\d_]*\b",
)))
# Names that stay as they are in any language: a message made only of them and protected spans needs no CJK.
NAMES = re.compile(r"\b(?:TF|TensorFlow|CUDA|cuDNN|GPU|Python|Docker|WSL|Windows|Linux|NVIDIA|tfenv|doctor|ok)\b")
CJK = re.compile(r"[\u3400-\u9fff]")
CORPUS = sorted((UNIT / "explain_corpus").glob("[0-9]*.yaml"))


def _module_constants(tree):
    """Module-level NAME = "text" and NAME = {key: "text", ...} assignments."""
    strings, dicts = {}, {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                strings[name] = value.value
            elif isinstance(value, ast.Dict) and all(isinstance(v, ast.Constant) for v in value.values):
                dicts[name] = [v.value for v in value.values]
    return strings, dicts


def _is_t_call(node):
    func = getattr(node, "func", None)
    return isinstance(node, ast.Call) and (
        (isinstance(func, ast.Name) and func.id == "t") or (isinstance(func, ast.Attribute) and func.attr == "t"))


def collect_msgids():
    """{msgid: ['file:line', ...]} for every t() call under builder/; unresolvable arguments raise."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(BUILDER.rglob("*.py"))}
    consts = {p: _module_constants(tree) for p, tree in trees.items()}
    global_strings = defaultdict(set)
    for strings, _ in consts.values():
        for name, value in strings.items():
            global_strings[name].add(value)
    found, unresolved = defaultdict(list), []

    def resolve(node, path):
        strings, dicts = consts[path]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.Name) and (node.id in strings or len(global_strings.get(node.id, ())) == 1):
            return [strings.get(node.id) or next(iter(global_strings[node.id]))]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in dicts:
            return dicts[node.value.id]
        if isinstance(node, ast.IfExp):
            body, orelse = resolve(node.body, path), resolve(node.orelse, path)
            return None if body is None or orelse is None else body + orelse
        return None

    for path, tree in trees.items():
        for node in ast.walk(tree):
            if _is_t_call(node) and node.args:
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                msgids = resolve(node.args[0], path)
                if msgids is None:
                    unresolved.append(where)
                for msgid in msgids or ():
                    found[msgid].append(where)
    assert not unresolved, f"t() needs a literal msgid (or a constant, or a dict of them): {unresolved}"
    return dict(found)


def protected(text):
    return sorted(set(PROTECTED.findall(text)))


def load(lang):
    return json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def msgids():
    return collect_msgids()


def test_the_collector_finds_explain_and_doctor_messages(msgids):
    files = {where.split(":")[0] for places in msgids.values() for where in places}
    assert any("diagnose/rules/" in f for f in files) and any("builder/doctor/" in f for f in files), files
    assert len(msgids) > 150, len(msgids)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation(lang, msgids):
    catalogue = load(lang)
    missing = {m: places[0] for m, places in msgids.items() if not catalogue.get(m)}
    assert not missing, f"{len(missing)} message(s) untranslated in {lang}.json " \
                        f"(python -m tests.unit.diagnose.test_i18n lists them): {missing}"
    stale = sorted(set(catalogue) - set(msgids))
    assert not stale, f"{lang}.json translates messages no code asks for: {stale}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_commands_paths_placeholders_and_versions(lang):
    bad = {}
    for msgid, text in load(lang).items():
        lost = [span for span in protected(msgid) if span not in text]
        added = set(re.findall(r"\{[^{}]*\}", text)) - set(re.findall(r"\{[^{}]*\}", msgid))
        if lost or added:
            bad[msgid] = {"lost": lost, "added": sorted(added)}
    assert not bad, json.dumps(bad, ensure_ascii=False, indent=1)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_are_translated(lang):
    """A message with words in it gets words of the language (a copy of the English is no translation)."""
    untranslated = [m for m, text in load(lang).items()
                    if re.search(r"[A-Za-z]{2,}", NAMES.sub("", PROTECTED.sub("", m))) and not CJK.search(text)]
    assert not untranslated, untranslated


def test_doctor_builds_no_check_from_untranslated_text():
    """Every message and fix of a doctor Check is a t() call (or a value made by one): a string literal or
    f-string given to Check() directly would reach the report untranslated."""
    raw = []
    for path in sorted((BUILDER / "doctor").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None)
            if isinstance(node, ast.Call) and getattr(func, "id", getattr(func, "attr", None)) == "Check":
                args = node.args[2:4] + [k.value for k in node.keywords if k.arg in ("message", "fix")]
                raw += [f"{path.relative_to(ROOT)}:{node.lineno}" for a in args
                        if isinstance(a, ast.JoinedStr) or (isinstance(a, ast.Constant) and a.value)]
    assert raw == [], raw


def test_protected_spans_are_found():
    text = ("run `tfenv doctor --env {env}` with LD_LIBRARY_PATH=/usr/lib/wsl/lib, cudart64_110.dll, "
            "libcudnn.so.8, CUDA 11.2 and R495+ in C:\\Program\\CUDA\\v11.2\\bin; see tf29 and 11.x")
    assert protected(text) == sorted({
        "`tfenv doctor --env {env}`", "LD_LIBRARY_PATH=/usr/lib/wsl/lib", "cudart64_110.dll", "libcudnn.so.8",
        "11.2", "R495+", "C:\\Program\\CUDA\\v11.2\\bin", "tf29", "11.x"})


def test_every_corpus_finding_reads_in_chinese_with_the_same_causes():
    """The whole corpus in zh-CN: the same findings as in English, each title, cause, fix and tfenv line in Chinese,
    with the English text's commands (backticked spans) all there."""
    facts = facts_from_matrix(matrix())
    for path in CORPUS:
        log = yaml.safe_load(path.read_text(encoding="utf-8"))["log"]
        english = diagnose.explain(log, facts)
        with i18n.using("zh-CN"):
            chinese = diagnose.explain(log, facts)
            text = diagnose.format_text(chinese)
        assert [f.id for f in chinese.findings] == [f.id for f in english.findings], path.name
        for en, zh in zip(english.findings, chinese.findings):
            for field in ("title", "cause", "fix", "tfenv"):
                if getattr(en, field):
                    assert CJK.search(getattr(zh, field)), (path.name, en.id, field, getattr(zh, field))
                    lost = [c for c in re.findall(r"`[^`]+`", getattr(en, field)) if c not in getattr(zh, field)]
                    assert not lost, (path.name, en.id, field, lost)
        wrapped = [line for line in text.splitlines() if line.startswith("   ") and not line.startswith("   第 ")]
        assert text.startswith("读取了 ") and all(i18n.columns(line) <= 100 or " " not in line.strip()
                                                 for line in wrapped)  # why/fix/tfenv fit 100 columns


@pytest.mark.parametrize("name", ["001-win-tf22-cudart64-101-path", "003-linux-tf29-conda-libcudart-11-0"])
def test_tfenv_explain_lang_zh_cn(name):
    path = UNIT / "explain_corpus" / f"{name}.yaml"
    log = yaml.safe_load(path.read_text(encoding="utf-8"))["log"]
    english = tfenv("explain", "-", input=log)
    chinese = tfenv("explain", "--lang", "zh-CN", "-", input=log)
    by_locale = tfenv("explain", "-", input=log, env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"})
    assert english.returncode == chinese.returncode == 0, chinese.stderr
    assert by_locale.stdout == chinese.stdout
    assert "   原因: " in chinese.stdout and "   解决: " in chinese.stdout and "why:" not in chinese.stdout
    ids = re.findall(r"\[([a-z0-9-]+)\]$", english.stdout, re.M)
    assert ids and ids == re.findall(r"\[([a-z0-9-]+)\]$", chinese.stdout, re.M)
    evidence = [line.split(": ", 1)[1] for line in english.stdout.splitlines() if line.startswith("   line ")]
    assert evidence and all(e in chinese.stdout for e in evidence)  # the log's own lines, quoted unchanged
    data = json.loads(tfenv("explain", "--lang", "zh-CN", "--json", "-", input=log).stdout)
    assert CJK.search(data["findings"][0]["title"])


if __name__ == "__main__":
    wanted = collect_msgids()
    for lang in sys.argv[1:] or TRANSLATED:
        have = load(lang) if (LOCALES / f"{lang}.json").exists() else {}
        todo = {m: "" for m in wanted if not have.get(m)}
        print(json.dumps(todo, ensure_ascii=False, indent=1))
