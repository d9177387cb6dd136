"""Click's usage errors read like every other error: one line, `tfenv: error: ...`, exit 2 (README "Exit status");
and options a command would silently ignore are refused the same way."""

from __future__ import annotations

import functools

import pytest

from tests import helpers

tfenv = functools.partial(helpers.tfenv, clean_env=True, timeout=120)


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr
    assert len(lines) == 1 and lines[0].startswith("tfenv: error: "), result.stderr
    assert result.stdout == ""
    return lines[0]


@pytest.mark.parametrize(("argv", "says"), [
    (["run", "--nope"], "No such option '--nope'. (Did you mean one of: '--name', "),
    (["build", "tf29", "--os"], "Option '--os' requires an argument."),
    (["show"], "Missing argument 'ENV'. See `tfenv show --help`."),
    (["base", "debian12"], "Invalid value for 'OS': 'debian12' is not 'debian11'. See `tfenv base --help`."),
    (["doctor", "--lang", "xx"], "Invalid value for '--lang': 'xx' is not one of 'en', 'zh-CN'."),
    (["run", "tf29", "--port", "0"], "Invalid value for '--port': 0 is not in the range 1<=x<=65535."),
    (["test", "--gpus", "some"], "'some' is not one of 'auto', 'all', 'none'"),
    (["explain", "--platform", "macos"], "Invalid value for '--platform'"),
    (["frob"], "No such command 'frob'. See `tfenv --help`."),
    (["--nope"], "No such option '--nope'. See `tfenv --help`."),
])
def test_usage_errors_are_one_line_and_exit_2(argv, says):
    line = one_line(tfenv(*argv))
    assert says in line
    assert "Usage:" not in line and "Try '" not in line


def test_tfenv_alone_still_shows_the_help():
    result = tfenv()
    assert result.returncode == 2 and "Use an environment:" in result.stdout + result.stderr


@pytest.mark.parametrize("write", ["--write-standalone", "--write-facts"])
@pytest.mark.parametrize(("given", "argv"), [
    (["--json"], "--json"), (["--import"], "--import"), (["--env", "tf29"], "--env tf29"),
    (["--lang", "zh-CN"], "--lang zh-CN"), (["--json", "--import"], "--json --import")])
def test_doctor_writing_refuses_the_report_options_it_would_ignore(tmp_path, write, given, argv):
    line = one_line(tfenv("doctor", write, "out.file", *given, cwd=tmp_path))
    assert f"not apply to {write}, which writes the file and exits" in line
    assert f"(`python doctor.py {argv}`)" in line
    assert list(tmp_path.iterdir()) == []


def test_doctor_writing_alone_still_writes(tmp_path):
    result = tfenv("doctor", "--write-standalone", "doctor.py", "--write-facts", "facts.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doctor.py", "facts.json"]
