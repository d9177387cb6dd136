"""tfenv explain on the corpus of real failure logs (tests/unit/explain_corpus/, index in SOURCES.md): for each
log, the top finding names the cause the thread found, its fix mentions one of the file's `keys` (words of the
thread's working fix, written by reading its `fix`, not the log), and the advice is right for the log's platform
(no Linux loader advice for Windows, no DLL advice for Linux). The corpus itself must stay wide: enough logs,
sources and platforms, and every rule backed by logs from several threads.

`python -m tests.unit.diagnose.test_explain_corpus` rewrites the generated part of SOURCES.md (above its notes)."""

from __future__ import annotations

import sys
from collections import Counter
from urllib.parse import urlparse

import pytest
import yaml

from builder.diagnose import rules
from builder.matrix.facts import facts_from_matrix
from tests.helpers import UNIT, matrix
from tests.unit.diagnose.explain_scoring import OTHER_PLATFORM, PLATFORMS, explain_as_user, judge

CORPUS = UNIT / "explain_corpus"
FILES = sorted(p for p in CORPUS.glob("[0-9]*.yaml"))
CASES = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in FILES}
UNCLEAR = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((CORPUS / "unclear").glob("*.yaml"))}
SOURCES = CORPUS / "SOURCES.md"
NOTES = "## Notes"
MIN_LOGS, MIN_SITES, MIN_PER_PLATFORM, MIN_THREADS_PER_RULE = 200, 40, 30, 3
# The one rule short of three threads, and why (the figure is three: this is a known gap, reported).
SHORT = {"store-python": (2, "no third unclaimed public thread whose log shows the Store Python as the root cause "
                             "was found in the stored index")}


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


def site(url):
    """The repository (github.com/owner/repo) or the Q&A site/blog host a thread lives on."""
    u = urlparse(url)
    parts = [p for p in u.path.split("/") if p]
    if u.netloc == "github.com" and len(parts) >= 2:
        return f"github.com/{parts[0]}/{parts[1]}".lower()
    return u.netloc.lower()


def thread(url):
    return url.split("#", 1)[0].rstrip("/")


def test_every_log_is_complete():
    for stem, case in CASES.items():
        missing = {"source", "platform", "cause", "fix", "keys", "log"} - set(case)
        assert not missing, (stem, missing)
        assert case["keys"] and all(isinstance(k, str) and k for k in case["keys"]), stem
        assert case["cause"] in rules.IDS, (stem, case["cause"])


def test_the_corpus_is_wide():
    assert len(FILES) >= MIN_LOGS
    assert len({site(c["source"]) for c in CASES.values()}) >= MIN_SITES
    per_platform = Counter(c["platform"] for c in CASES.values())
    assert all(per_platform[p] >= MIN_PER_PLATFORM for p in PLATFORMS), per_platform
    every = list(CASES.values()) + list(UNCLEAR.values())
    assert len({thread(c["source"]) for c in every}) == len(every), "one log per thread"


def test_no_thread_is_both_in_the_corpus_and_a_held_out_set():
    """A held-out score means something only on threads the rules were not written from (benchmarks/explain_heldout*/
    index.tsv: file, source, cause, platform)."""
    held = {}
    for index in sorted((UNIT.parent.parent / "benchmarks").glob("explain_heldout*/index.tsv")):
        for row in index.read_text(encoding="utf-8").splitlines():
            if row.strip():
                held[thread(row.split("\t")[1])] = index.parent.name
    assert len(held) > 200
    every = list(CASES.values()) + list(UNCLEAR.values())
    both = sorted((thread(c["source"]), held[thread(c["source"])]) for c in every if thread(c["source"]) in held)
    assert not both, both


@pytest.mark.parametrize("rule", rules.IDS)
def test_every_rule_is_backed_by_several_threads(rule):
    threads = {thread(c["source"]) for c in CASES.values() if c["cause"] == rule}
    assert len(threads) >= SHORT.get(rule, (MIN_THREADS_PER_RULE,))[0], (rule, sorted(threads))


def sources_index():
    """The generated part of SOURCES.md: every log with its thread and cause, then the counts."""
    out = [f"# Sources ({len(CASES)} cases, {len({site(c['source']) for c in CASES.values()}) } repositories and "
           "sites)", "", "file: source URL : cause", ""]
    out += [f"- {stem}.yaml: {c['source']} : {c['cause']}" for stem, c in CASES.items()]
    out += ["", "## Logs that cannot tell (unclear/: kept, not scored)", ""]
    out += [f"- {stem}.yaml: {c['source']} : {c['cause']}: {c['unclear']}" for stem, c in UNCLEAR.items()]
    for title, counts in (("cause", Counter(c["cause"] for c in CASES.values())),
                          ("platform", Counter(c["platform"] for c in CASES.values()))):
        out += ["", f"## Counts per {title}", ""] + [f"- {k}: {n}" for k, n in sorted(counts.items())]
    return "\n".join(out) + "\n\n"


def test_sources_md_lists_every_log():
    text = SOURCES.read_text(encoding="utf-8")
    assert text.split(NOTES, 1)[0] == sources_index(), "run python -m tests.unit.diagnose.test_explain_corpus"


@pytest.mark.parametrize("stem", sorted(UNCLEAR), ids=[s[:40] for s in sorted(UNCLEAR)])
def test_unclear_logs_say_why_and_get_one_platforms_advice(stem, facts):
    """A log whose lines alone cannot tell its thread's cause is kept with the reason; explain still reads it."""
    case = UNCLEAR[stem]
    assert len(case["unclear"]) > 20
    result = explain_as_user(case, facts)
    for f in result.findings:
        assert all(1 <= n <= result.log.line_count for n in f.evidence)
        other = OTHER_PLATFORM.get(case["platform"])
        assert not (other and other.search(f.fix)), f.fix


def test_facts_as_the_standalone_and_the_web_page_carry_them_give_the_same_answers(facts):
    """They carry the facts as JSON with sorted keys ('2.10' before '2.9'): no answer may hang on the tables' order."""
    import io
    import json
    import zipfile

    from builder import diagnose
    from builder.doctor import standalone

    data = standalone.build(facts)
    carried = json.loads(zipfile.ZipFile(io.BytesIO(data[len(standalone.SHEBANG):])).read(
        "builder/doctor/doctor-facts.json"))
    assert list(carried["tf_tested"]) != list(facts["tf_tested"])  # the order this test is about
    for stem, case in CASES.items():
        assert (diagnose.explain(case["log"], carried).as_dict() ==
                diagnose.explain(case["log"], facts).as_dict()), stem


@pytest.mark.parametrize("stem", sorted(CASES), ids=[s[:40] for s in sorted(CASES)])
def test_corpus_log(stem, facts):
    got, wrong = judge(CASES[stem], facts)
    assert not wrong, (got, wrong)


if __name__ == "__main__":
    notes = SOURCES.read_text(encoding="utf-8").split(NOTES, 1)[1]
    SOURCES.write_text(sources_index() + NOTES + notes, encoding="utf-8")
    sys.exit(0)
