"""`tfenv ci matrix` and `tfenv bake` against the matrix, `tfenv show`, the templates and the bake format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from builder.core import paths
from builder.matrix import tags, validate
from builder.render import dockerfiles
from tests.helpers import ROOT, invoke, tfenv

MATRIX = validate.load(ROOT / "matrix.yaml")
PAIRS = [(t.env.name, t.os.name) for t in MATRIX.targets()]
REPO = MATRIX.image.repo


def ok(*args, **kw) -> str:
    result = invoke(*args, **kw)
    assert result.exception is None, f"{args}: {result.exception!r}\n{result.output}"
    return result.output


def show(env: str, os_name: str, repo: str = REPO) -> dict:
    info = json.loads(ok("show", env, "--os", os_name, "--repo", repo, "--json"))
    (variant,) = info["variants"]
    return variant


@pytest.fixture(scope="module")
def bake() -> dict:
    return json.loads(ok("bake"))


def resolved(values, repo=REPO):
    return [v.replace("${REPO}", repo) for v in values]


# --- ci matrix -----------------------------------------------------------------------------------


def test_ci_matrix_json_is_one_line_with_every_env_and_variant_once():
    out = ok("ci", "matrix", "--json")
    assert out.count("\n") == 1, "one line: the workflow writes it to $GITHUB_OUTPUT as include=<json>"
    entries = json.loads(out)
    assert isinstance(entries, list)
    assert sorted((e["env"], e["os"]) for e in entries) == sorted(PAIRS)
    assert len({(e["env"], e["os"]) for e in entries}) == len(entries)


@pytest.mark.parametrize("env,os_name", PAIRS, ids=[f"{e}/{o}" for e, o in PAIRS])
def test_ci_matrix_tags_equal_tfenv_show(env, os_name):
    repo = "ghcr.io/example-org/tensorflow"
    (entry,) = json.loads(ok("ci", "matrix", env, "--os", os_name, "--repo", repo, "--json"))
    variant = show(env, os_name, repo)
    assert entry["tags"] == variant["tags"]
    assert entry["jupyter_tags"] == variant["jupyter_tags"]
    assert entry["context"] == str(Path(variant["dockerfile"]).parent.as_posix())
    assert entry["base_image"] == variant["base_image"]
    assert entry["gpu"] is True  # every environment in the matrix is a CUDA build


def test_ci_matrix_os_filter_is_repeatable():
    entries = json.loads(ok("ci", "matrix", "--os", "debian11", "--os", "ubuntu18.04", "--json"))
    expected = [p for p in PAIRS if p[1] in ("debian11", "ubuntu18.04")]
    assert sorted((e["env"], e["os"]) for e in entries) == sorted(expected)
    assert {e["os"] for e in entries} == {"debian11", "ubuntu18.04"}


def test_ci_matrix_table_lists_every_entry():
    lines = ok("ci", "matrix").splitlines()
    assert len(lines) == len(PAIRS)
    assert lines[0].split()[:2] == list(PAIRS[0])


@pytest.mark.parametrize("args,message", [
    (["--os", "debain11"], "unknown OS variant 'debain11'; did you mean 'debian11'?"),
    (["tf29x"], "unknown environment 'tf29x'"),
    (["tf22", "--os", "debian11"], "no environment among tf22 has the OS variant(s) debian11"),
])
def test_ci_matrix_bad_selection_is_one_line_error(args, message):
    result = invoke("ci", "matrix", *args, "--json")
    assert result.exception is not None and not result.output
    assert message in str(result.exception)
    assert "\n" not in str(result.exception)


def test_cli_bad_selection_exits_2_without_traceback():
    run = tfenv("ci", "matrix", "--os", "windows")
    assert run.returncode == 2
    assert run.stderr.startswith("tfenv: error: unknown OS variant 'windows'")
    assert "Traceback" not in run.stderr and not run.stdout


# --- bake: content against the matrix ------------------------------------------------------------


def _name(env: str, os_name: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "-", f"{env}-{os_name}")


def test_bake_has_every_env_and_variant_once_per_stage(bake):
    expected = sorted([_name(e, o) for e, o in PAIRS] + [_name(e, o) + "-jupyter" for e, o in PAIRS])
    assert sorted(bake["target"]) == expected  # dict keys: each once
    contexts = [(t["context"], t["target"]) for t in bake["target"].values()]
    assert len(set(contexts)) == len(contexts), "two targets build the same Dockerfile stage"


@pytest.mark.parametrize("env,os_name", PAIRS, ids=[f"{e}/{o}" for e, o in PAIRS])
def test_bake_target_matches_show_and_matrix(bake, env, os_name):
    variant = show(env, os_name)
    target = MATRIX.target(env, os_name)
    base, jupyter = bake["target"][_name(env, os_name)], bake["target"][_name(env, os_name) + "-jupyter"]
    assert resolved(base["tags"]) == variant["tags"]
    assert resolved(jupyter["tags"]) == variant["jupyter_tags"]
    for t in (base, jupyter):
        assert t["context"] == paths.dockerfile_relpath(target).rsplit("/", 1)[0]
        assert t["dockerfile"] == "Dockerfile"
        assert t["args"] == {"BASE_IMAGE": variant["base_image"]}
        assert tags.labels(target).items() <= t["labels"].items()
        assert t["labels"]["org.opencontainers.image.version"] == tags.content_tag(target)
        assert t["platforms"] == ["linux/amd64"]
    assert (base["target"], jupyter["target"]) == ("tensorflow", "jupyter")
    assert jupyter["labels"]["io.tfenv.stage"] == "jupyter"
    # Registry cache on the same repository, tag + "-buildcache"; the Jupyter stage reads both.
    content = tags.content_tag(target)
    assert base["cache-from"] == [f"type=registry,ref=${{REPO}}:{content}-buildcache"]
    assert base["cache-to"] == [f"type=registry,ref=${{REPO}}:{content}-buildcache,mode=max"]
    assert jupyter["cache-from"] == [f"type=registry,ref=${{REPO}}:{content}-buildcache",
                                     f"type=registry,ref=${{REPO}}:{content}-jupyter-buildcache"]
    assert jupyter["cache-to"] == [f"type=registry,ref=${{REPO}}:{content}-jupyter-buildcache,mode=max"]


def test_bake_stages_and_args_exist_in_the_dockerfile_templates(bake):
    templates = ROOT / "builder" / "templates" / "docker"
    text = "\n".join(p.read_text(encoding="utf-8") for p in templates.glob("*.j2"))
    stages = set(re.findall(r"^FROM\s+\S+\s+AS\s+(\S+)", text, re.MULTILINE | re.IGNORECASE))
    args = set(re.findall(r"^ARG\s+([A-Za-z_][A-Za-z0-9_]*)", text, re.MULTILINE))
    for name, t in bake["target"].items():
        assert t["target"] in stages, f"{name}: no stage {t['target']!r} in the templates ({stages})"
        assert set(t["args"]) <= args, f"{name}: args {set(t['args']) - args} are not ARGs of the Dockerfile"


@pytest.mark.parametrize("env,os_name", PAIRS, ids=[f"{e}/{o}" for e, o in PAIRS])
def test_bake_labels_equal_the_rendered_dockerfile_labels(bake, env, os_name):
    text = dockerfiles.render_target(MATRIX.target(env, os_name), MATRIX).text
    blocks = re.findall(r"^LABEL (.*?)(?=^\S)", text, re.MULTILINE | re.DOTALL)
    base = dict(re.findall(r'([\w.-]+)="([^"]*)"', blocks[0]))
    jupyter = {**base, **dict(re.findall(r'([\w.-]+)="([^"]*)"', blocks[1]))}
    assert base == bake["target"][_name(env, os_name)]["labels"]
    assert jupyter == bake["target"][_name(env, os_name) + "-jupyter"]["labels"]


def test_bake_groups(bake):
    groups, targets = bake["group"], bake["target"]
    base = [n for n in targets if not n.endswith("-jupyter")]
    assert groups["default"]["targets"] == base
    assert groups["all"]["targets"] == list(targets)
    assert groups["jupyter"]["targets"] == [n for n in targets if n.endswith("-jupyter")]
    by_cuda = {}
    for env, os_name in PAIRS:
        group = "cuda" + MATRIX.envs[env].cuda.version.replace(".", "-")
        by_cuda.setdefault(group, set()).update({_name(env, os_name), _name(env, os_name) + "-jupyter"})
    assert {g for g in groups if g.startswith("cuda")} == set(by_cuda) == {"cuda10-1", "cuda10-2", "cuda11-0",
                                                                          "cuda11-2"}
    for group, members in by_cuda.items():
        assert set(groups[group]["targets"]) == members
    assert bake["variable"] == {"REPO": {"default": REPO}}


def test_bake_repo_option_sets_the_variable_default():
    data = json.loads(ok("bake", "tf29", "--os", "debian11", "--repo", "ghcr.io/example-org/tensorflow"))
    assert data["variable"]["REPO"]["default"] == "ghcr.io/example-org/tensorflow"
    assert sorted(data["target"]) == ["tf29-debian11", "tf29-debian11-jupyter"]
    assert data["group"]["cuda11-2"]["targets"] == ["tf29-debian11", "tf29-debian11-jupyter"]


def test_bake_name_collision_is_an_error(matrix_data, write_matrix):
    # "tf29.x" and "tf29-x" both become the bake name "tf29-x-debian11".
    matrix_data["envs"]["tf29-x"] = matrix_data["envs"]["tf29"]
    matrix_data["envs"]["tf29.x"] = matrix_data["envs"]["tf29"]
    result = invoke("bake", "--os", "debian11", matrix_file=write_matrix(matrix_data))
    assert "bake target name 'tf29-x-debian11' is used twice" in str(result.exception)


# --- bake: the file format ----------------------------------------------------------------------

# Attribute types of a bake target, from the buildx bake file reference (docs/bake-reference.md).
TARGET_ATTRS = {
    "args": dict, "annotations": list, "attest": list, "cache-from": list, "cache-to": list, "call": str,
    "context": str, "contexts": dict, "description": str, "dockerfile-inline": str, "dockerfile": str,
    "entitlements": list, "inherits": list, "labels": dict, "matrix": dict, "name": str, "network": str,
    "no-cache-filter": list, "no-cache": bool, "output": list, "platforms": list, "pull": bool,
    "secret": list, "shm-size": str, "ssh": list, "tags": list, "target": str, "ulimits": list,
}
NAME = re.compile(r"^[a-zA-Z0-9_-]+$")


def bake_format_problems(data) -> list[str]:
    """What `docker buildx bake` would reject in a JSON bake file (buildx is not installed here)."""
    problems = []
    if not isinstance(data, dict):
        return ["top level is not an object"]
    problems += [f"unknown block {k!r}" for k in data if k not in ("variable", "group", "target", "function")]
    variables = data.get("variable", {})
    for name, spec in variables.items():
        if not NAME.match(name) or not isinstance(spec, dict) or set(spec) - {"default", "description"}:
            problems.append(f"variable {name!r}: expected {{default, description}}")
    targets = data.get("target", {})
    for name, target in targets.items():
        if not NAME.match(name):
            problems.append(f"target name {name!r} is not [a-zA-Z0-9_-]+")
        for attr, value in target.items():
            kind = TARGET_ATTRS.get(attr)
            if kind is None:
                problems.append(f"target {name}: unknown attribute {attr!r}")
            elif not isinstance(value, kind):
                problems.append(f"target {name}: {attr} is not a {kind.__name__}")
            elif kind is list and not all(isinstance(v, str) for v in value):
                problems.append(f"target {name}: {attr} has a non-string item")
            elif kind is dict and not all(isinstance(v, str) for v in value.values()):
                problems.append(f"target {name}: {attr} has a non-string value")
        for ref in re.findall(r"\$\{([^}]*)\}", json.dumps(target)):
            if ref not in variables:
                problems.append(f"target {name}: ${{{ref}}} is not a declared variable")
    for name, group in data.get("group", {}).items():
        if not NAME.match(name):
            problems.append(f"group name {name!r} is not [a-zA-Z0-9_-]+")
        if set(group) - {"targets", "description"} or not isinstance(group.get("targets"), list):
            problems.append(f"group {name}: expected a 'targets' list")
            continue
        problems += [f"group {name}: unknown target {t!r}" for t in group["targets"]
                     if t not in targets and t not in data["group"]]
    return problems


def test_bake_file_has_the_bake_format(bake):
    assert bake_format_problems(bake) == []
    for name, t in bake["target"].items():
        missing = {"context", "dockerfile", "target", "tags", "labels", "args"} - set(t)
        assert not missing, f"{name} lacks {missing}"


@pytest.mark.parametrize("breakage,problem", [
    (lambda d: d["target"]["tf29-debian11"].update({"cache_from": []}), "unknown attribute 'cache_from'"),
    (lambda d: d["target"]["tf29-debian11"].update({"tags": "x"}), "tags is not a list"),
    (lambda d: d["group"]["all"]["targets"].append("nope"), "unknown target 'nope'"),
    (lambda d: d["group"].update({"cuda11.2": {"targets": []}}), "group name 'cuda11.2'"),
    (lambda d: d["variable"].clear(), "${REPO} is not a declared variable"),
])
def test_bake_format_check_catches_breakage(bake, breakage, problem):
    data = json.loads(json.dumps(bake))
    breakage(data)
    assert any(problem in p for p in bake_format_problems(data)), bake_format_problems(data)


# --- bake: output and drift ---------------------------------------------------------------------


def test_committed_bake_file_matches_the_matrix():
    assert "docker-bake.json matches matrix.yaml" in ok("bake", "--check")
    assert (ROOT / "docker-bake.json").read_text(encoding="utf-8") == ok("bake")


def test_bake_output_file_equals_stdout(tmp_path):
    out = tmp_path / "bake.json"
    ok("bake", "-o", str(out))
    assert out.read_text(encoding="utf-8") == ok("bake")
    assert "bake.json matches matrix.yaml" in ok("bake", "--check", "-o", str(out))


def test_one_value_matrix_edit_is_bake_drift(tmp_path, matrix_data, write_matrix):
    committed = tmp_path / "docker-bake.json"
    committed.write_text((ROOT / "docker-bake.json").read_text(encoding="utf-8"), encoding="utf-8")
    matrix_data["cuda"]["11.2"]["full"] = "11.2.1"  # one value: the io.tfenv.cuda label changes
    result = invoke("bake", "--check", "-o", str(committed), matrix_file=write_matrix(matrix_data))
    assert result.exception is not None
    assert "docker-bake.json differs from matrix.yaml: run `tfenv bake -o docker-bake.json`" in str(result.exception)


def test_bake_check_missing_file_is_one_line_error(tmp_path):
    result = invoke("bake", "--check", "-o", str(tmp_path / "nope.json"))
    assert "nope.json: cannot read: No such file or directory" in str(result.exception)
