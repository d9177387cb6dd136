"""A project's requirements as published (no network): the readers, the environment `tfenv init` picks,
and the policy that decides what goes to the resolver (TF provided, other lines refused, local paths)."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.project import family, plan, poetry, reader, sources
from builder.project.resolve import env_pins
from tests.helpers import tfenv


def read(tmp_path: Path, name: str, text: str, files: dict | None = None) -> sources.Sources:
    for other, content in (files or {}).items():
        (tmp_path / other).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / other).write_text(content, encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    return reader.read(tmp_path / name, tmp_path)


# --- readers ----------------------------------------------------------------------------------------


def test_requirements_txt_follows_includes_continuations_comments_and_options(tmp_path):
    s = read(tmp_path, "requirements.txt",
             "-r base.txt\n--constraint=pins.txt\n-i https://pypi.example.org/simple\n"
             "numpy==1.19.2 \\\n  --hash=sha256:abc  # a freeze\nFlask==1.1.2 # web\n",
             {"base.txt": "tensorflow_gpu==2.4.1\n", "pins.txt": "six==1.15.0\n"})
    assert [(r.text, r.origin) for r in s.requirements] == [
        ("tensorflow_gpu==2.4.1", "base.txt:1"), ("numpy==1.19.2", "requirements.txt:4"),
        ("Flask==1.1.2", "requirements.txt:6")]
    assert [r.text for r in s.constraints] == ["six==1.15.0"]
    assert s.options == ["-i https://pypi.example.org/simple"]
    assert [p.name for p in s.files] == ["requirements.txt", "base.txt", "pins.txt"]


def test_a_utf16_freeze_from_powershell_reads(tmp_path):
    (tmp_path / "requirements.txt").write_bytes("fastapi==0.65.2\r\nuvicorn==0.14.0\r\n".encode("utf-16"))
    assert [r.text for r in reader.read(tmp_path / "requirements.txt", tmp_path).requirements] == [
        "fastapi==0.65.2", "uvicorn==0.14.0"]


@pytest.mark.parametrize("line, kind", [
    ("git+https://git.example.org/o/cocoapi.git#subdirectory=PythonAPI&egg=pycocotools", "vcs"),
    ("mylib @ git+https://git.example.org/o/mylib@v1.0", "vcs"), ("-e .", "local"), ("./pkg", "local"),
    ("certifi @ file:///C:/ci/certifi_1600", "local"), ("apache-beam[gcp]==2.20.0", "pep508"),
])
def test_requirement_kinds(tmp_path, line, kind):
    assert read(tmp_path, "requirements.txt", line + "\n").requirements[0].kind == kind


def test_setup_py_is_parsed_never_run(tmp_path):
    s = read(tmp_path, "setup.py", "import os\nos.system('touch ran')\nREQS = ['tensorflow == 2.9.1', "
             "'apache-beam[gcp] == 2.40.0']\nsetup(name='x', install_requires=REQS, python_requires='>=3.7')\n")
    assert [r.text for r in s.requirements] == ["tensorflow == 2.9.1", "apache-beam[gcp] == 2.40.0"]
    assert s.python == ">=3.7" and not (tmp_path / "ran").exists()


def test_setup_py_reading_requirements_txt_reads_that_file(tmp_path):
    s = read(tmp_path, "setup.py", "with open('requirements.txt') as f:\n    reqs = f.read().splitlines()\n"
             "setuptools.setup(install_requires=reqs)\n", {"requirements.txt": "tensorflow>=2.3.1,<2.6.0\n"})
    assert [r.text for r in s.requirements] == ["tensorflow>=2.3.1,<2.6.0"]


def test_computed_install_requires_is_one_line(tmp_path):
    with pytest.raises(sources.SourceError, match=r"^setup.py:1: install_requires is computed when setup.py runs"):
        read(tmp_path, "setup.py", "setup(install_requires=['tensorflow'>=2.4, 'numpy'])\n")


def test_environment_yml_takes_pip_entries_python_and_notes_conda_packages(tmp_path):
    s = read(tmp_path, "environment.yml", "dependencies:\n  - python=3.7\n  - cudatoolkit=10.1\n"
             "  - tensorflow-gpu=2.2.0=h0d30ee6_0\n  - pip:\n    - tensorflow-addons==0.11.2\n")
    assert (s.python, s.python_soft) == ("==3.7.*", True)
    assert [r.text for r in s.requirements] == ["tensorflow-addons==0.11.2", "tensorflow-gpu==2.2.0.*"]
    assert s.notes == ["environment.yml: conda packages are not pip requirements and are not installed: "
                       "cudatoolkit==10.1.*"]


def test_pyproject_project_table_and_poetry(tmp_path):
    s = read(tmp_path, "pyproject.toml", '[project]\nname="x"\nrequires-python=">=3.8"\n'
             'dependencies=["tensorflow~=2.9.0"]\n')
    assert ([r.text for r in s.requirements], s.python) == (["tensorflow~=2.9.0"], ">=3.8")
    lines, python, skipped = poetry.requirements({"python": ">=3.6.2,<3.10", "httpx": {"extras": ["http2"],
                                                  "version": "^0.19.0"}, "typer": "^0.3.2", "tensorflow": "2.5.0",
                                                  "musdb": {"version": "0.3.1", "optional": True}, "x": "~1.2"})
    assert lines == ["httpx[http2]>=0.19.0,<0.20.0", "typer>=0.3.2,<0.4.0", "tensorflow==2.5.0", "x>=1.2,<1.3.0"]
    assert (python, skipped) == (">=3.6.2,<3.10", ["musdb (optional)"])


@pytest.mark.parametrize("text, says", [
    ("-r missing.txt\n", "requirements.txt:1: -r missing.txt: no such file"),
    ("numpy===\n", "requirements.txt:1: 'numpy===' is not a requirement"),
    ("--install-everything\n", "requirements.txt:1: pip option --install-everything is not supported"),
])
def test_a_bad_requirements_file_is_one_line_naming_file_and_line(tmp_path, text, says):
    with pytest.raises(sources.SourceError) as err:
        read(tmp_path, "requirements.txt", text)
    assert str(err.value).startswith(says) and "\n" not in str(err.value)


def test_include_loops_stop(tmp_path):
    s = read(tmp_path, "requirements.txt", "-r a.txt\nsix\n", {"a.txt": "-r requirements.txt\nsix\n"})
    assert [r.origin for r in s.requirements] == ["a.txt:2", "requirements.txt:2"]


# --- the TF line and the environment --------------------------------------------------------------------


@pytest.mark.parametrize("spec, version, fits", [
    ("==2.9.1", "2.9.3", True), ("==2.6.4", "2.6.5", True), ("==2.2.*", "2.2.3", True), ("==2.3.0rc0", "2.3.4", True),
    ("~=2.5.0", "2.5.3", True), (">=2.3,<2.6", "2.5.3", True), ("==2.2.0", "2.9.3", False),
    ("~=2.11.0", "2.10.1", False),
    (">=1.11.0", "2.9.3", True), ("==2.4", "2.4.4", True), ("<2.0", "2.2.3", False),
])
def test_a_tf_requirement_is_on_a_line(spec, version, fits):
    assert family.on_line(spec, version) is fits


@pytest.mark.parametrize("tf, python, soft, env, os_name", [
    ([("tensorflow-gpu", "==2.9.1")], None, False, "tf29", "ubuntu20.04"),
    ([("tensorflow_gpu", "==2.2.0")], None, False, "tf22", "ubuntu18.04"),
    ([("tensorflow", ">=2.3.1,<2.6.0")], None, False, "tf25", "ubuntu18.04"),
    ([("tensorflow", ">=2.7.0,<2.10.0")], ">=3.9", False, "tf29", "debian11"),
    ([("tensorflow", "==2.4.1")], "==3.7.*", True, "tf24", "ubuntu18.04"),
    ([], None, False, "tf210", "ubuntu20.04"),
])
def test_init_picks_the_newest_environment_that_fits(m, tf, python, soft, env, os_name):
    choice = family.choose(m, tf, python, soft, "setup.py: python_requires" if python else None)
    assert (choice.target.env.name, choice.target.os.name) == (env, os_name), choice.why
    assert "\n" not in choice.why


@pytest.mark.parametrize("tf, says", [
    ([("tensorflow", "==1.15.0")], "tensorflow==1.15.0: no tfenv environment has that TensorFlow line; the nearest "
                                   "is tf22 (TF 2.2.3)"),
    ([("tensorflow", "~=2.11.0")], "the nearest is tf210 (TF 2.10.1)"),
    ([("tensorflow", "==2.1.0")], "the nearest is tf22"),
])
def test_init_names_the_nearest_when_none_fits(m, tf, says):
    with pytest.raises(family.ChooseError, match=says.replace("(", r"\(").replace(")", r"\)")):
        family.choose(m, tf, None, False, None)


def test_init_refuses_a_python_no_variant_has(m):
    with pytest.raises(family.ChooseError, match=r"^setup.py: python_requires wants Python >=3.10; tf29 has "
                                                 r"Python 3.8 or 3.9"):
        family.choose(m, [("tensorflow", "==2.9.1")], ">=3.10", False, "setup.py: python_requires")


def test_init_cli_without_env_says_why(tmp_path):
    (tmp_path / "requirements.txt").write_text("tensorflow-gpu==2.4.1\npandas\n", encoding="utf-8")
    result = tfenv("init", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == ("tf24 (ubuntu18.04, Python 3.8): tensorflow-gpu==2.4.1 is the TF 2.4 "
                                             "line, tf24 has TF 2.4.4")
    assert "environment: tf24\n" in (tmp_path / "tfenv.yaml").read_text(encoding="utf-8")
    (tmp_path / "requirements.txt").write_text("tensorflow==1.15.5\n", encoding="utf-8")
    refused = tfenv("init", "--force", cwd=tmp_path)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "`tfenv init tf22` to try it" in refused.stderr


# --- the policy ------------------------------------------------------------------------------------------


def make_plan(tmp_path, m, text, env="tf29", os_name="debian11", files=None):
    s = read(tmp_path, "requirements.txt", text, files)
    target = m.target(env, os_name)
    return plan.make(s, m, target, env_pins(target, False), m.projects, tmp_path)


def test_tf_of_the_line_is_provided_with_one_note(tmp_path, m):
    p = make_plan(tmp_path, m, "tensorflow-gpu==2.9.1\ntensorboard==2.9.0\nkeras==2.9.0\npandas\n")
    assert p.lines == ["pandas"] and not p.problems
    assert p.notes == ["tensorflow-gpu==2.9.1: tf29 provides 2.9.3, the same line with its GPU build",
                       "tensorboard==2.9.0: tf29 provides tensorboard 2.9.1 with TF 2.9.3 (its TensorFlow's own)"]


def test_tensorboard_of_the_tf_line_is_the_environments(tmp_path, m):
    p = make_plan(tmp_path, m, "tensorflow==2.4.1\ntensorboard==2.4.1\n", env="tf24", os_name="ubuntu20.04")
    assert not p.problems and p.provided["tensorboard"] == "2.8.0"  # TF 2.4 allows tensorboard~=2.4: tf24 has 2.8
    assert p.notes[-1] == "tensorboard==2.4.1: tf24 provides tensorboard 2.8.0 with TF 2.4.4 (its TensorFlow's own)"


def test_another_tf_line_is_refused_naming_the_environment(tmp_path, m):
    p = make_plan(tmp_path, m, "tensorflow-gpu==2.2.0\nkeras==2.3.1\n")
    assert p.problems == [
        "tensorflow-gpu==2.2.0 (requirements.txt:1): tf29 has TF 2.9.3; the TF 2.2 line is tf22 "
        "(`tfenv init tf22 --force`)",
        "keras==2.3.1 (requirements.txt:2): tf29 provides keras 2.9.0 with TF 2.9.3; keras 2.9.0 fits"]


def test_backports_windows_only_markers_and_conda_freeze_files(tmp_path, m):
    p = make_plan(tmp_path, m, "dataclasses==0.8\npywin32==228\nwmi ; sys_platform == 'win32'\n"
                               "certifi @ file:///C:/ci/certifi_1600/work\n")
    assert p.lines == ["certifi"] and not p.problems
    assert p.notes[0] == "dataclasses==0.8: not installed: Python 3.9's standard library has it (since 3.7)"
    assert p.notes[1] == "pywin32==228: not installed: it is for Windows only"
    assert p.notes[2].startswith("certifi @ file:///C:/ci/certifi_1600/work (requirements.txt:4): a file on the "
                                 "machine the list was made on; taken as certifi")


def test_dash_e_dot_stands_for_the_projects_own_requirements_other_paths_are_refused(tmp_path, m):
    p = make_plan(tmp_path, m, "-e .\n./vendor/lib\n",
                  files={"setup.py": "setup(install_requires=['tensorflow==2.9.1', 'absl-py'])\n", "vendor/lib/x": ""})
    assert p.lines == ["absl-py"]
    assert p.notes[0].startswith("-e . (requirements.txt:1): the project itself is not installed")
    assert p.problems == ["./vendor/lib (requirements.txt:2): a local folder or file is not copied into the image: "
                          "publish it as a package, or install it at run time from /workspace"]


def test_exact_pins_are_exempt_from_the_horizon(tmp_path, m):
    p = make_plan(tmp_path, m, "flask==1.1.2\npandas>=1.3\nscipy==1.9.*\n")
    assert p.exact == {"flask"} and p.lines == ["flask==1.1.2", "pandas>=1.3", "scipy==1.9.*"]


def test_an_exact_pin_is_loosened_to_its_minor_then_major_line_then_any():
    from builder.project.solve import relaxed

    steps = [relaxed("opencv-python==4.1.1.26", level) for level in range(4)]
    assert steps == ["opencv-python==4.1.*", "opencv-python==4.*", "opencv-python", None]
    assert relaxed("apache-beam[gcp]==2.20.0; python_version > '3'", 2) == 'apache-beam[gcp]; python_version > "3"'
    assert [relaxed("numpy>=2", level) for level in range(2)] == ["numpy", None]


def test_uvs_explanations_become_the_why_of_each_conflict():
    from builder.project.solve import _why

    real = ("error: No solution found when resolving dependencies cause: Because opencv-python==4.12.0.88 depends "
            "on numpy>=2,<2.3.0 and numpy<2, we can conclude that opencv-python==4.12.0.88 cannot be used.")
    assert _why(real, "opencv-python") == ("opencv-python 4.12.0.88 needs numpy>=2,<2.3.0, the environment keeps "
                                           "numpy<2")
    tf = ("cause: Because tensorflow==2.9.3 depends on numpy>=1.20 and you require tensorflow==2.9.3, we can "
          "conclude that you require numpy>=1.20.")
    assert _why(tf, "numpy") == "tensorflow 2.9.3 needs numpy>=1.20"
    wheels = ("cause: Because opencv-python==4.1.1.26 has no wheels with a matching Python ABI tag (e.g., `cp38`) "
              "and you require opencv-python==4.1.1.26, we can conclude that your requirements are unsatisfiable.")
    assert _why(wheels, "opencv-python") == ("opencv-python==4.1.1.26 has no wheels with a matching Python ABI tag "
                                             "(e.g., `cp38`)")


def test_requires_python_upper_bounds_are_read_from_the_locked_files_metadata(tmp_path):
    """PEP 658 metadata served on 127.0.0.1: a file that excludes the image's Python is named; others pass."""
    import functools
    import http.server
    import threading

    from builder.project import metadata

    (tmp_path / "dataclasses-0.8-py3-none-any.whl.metadata").write_text(
        "Metadata-Version: 2.1\nName: dataclasses\nVersion: 0.8\nRequires-Python: >=3.6, <3.7\n\nbody\n")
    (tmp_path / "six-1.16.0-py2.py3-none-any.whl.metadata").write_text(
        "Metadata-Version: 2.1\nName: six\nVersion: 1.16.0\nRequires-Python: >=2.7, !=3.0.*\n")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pylock = {"packages": [
        {"name": "dataclasses", "version": "0.8", "wheels": [{"url": f"{base}/dataclasses-0.8-py3-none-any.whl"}]},
        {"name": "six", "version": "1.16.0", "wheels": [{"url": f"{base}/six-1.16.0-py2.py3-none-any.whl"}]},
        {"name": "gone", "version": "1", "wheels": [{"url": f"{base}/gone-1-py3-none-any.whl"}]},  # 404: not judged
        {"name": "termcolor", "version": "1.1.0", "sdist": {"url": f"{base}/termcolor-1.1.0.tar.gz"}},
    ]}
    try:
        assert metadata.python_misfits(pylock, "3.9.2") == [("dataclasses", "0.8", ">=3.6, <3.7")]
        assert metadata.python_misfits(pylock, "3.6.9") == []
    finally:
        server.shutdown()


def test_blame_names_the_users_requirement_and_the_line_lists_every_conflict(tmp_path, m):
    """uv 0.13's real explanations (captured against locks/tf29-py3.9.txt as the preferences)."""
    from builder.project.solve import blame, conflict_line

    p = make_plan(tmp_path, m, "tensorflow-gpu==2.2.0\nwerkzeug==0.16.0\nflask==1.1.2\n"
                               "apache-beam[gcp]==2.20.0\n")
    werkzeug = ("error: No solution found when resolving dependencies\n  cause: Because tensorboard==2.9.1 depends on "
                "werkzeug>=1.0.1 and tensorflow==2.9.3 depends on tensorboard==2.9.1, we can conclude that "
                "tensorflow==2.9.3 depends on werkzeug>=1.0.1.\n         And because you require tensorflow==2.9.3 "
                "and werkzeug==0.16.0, we can conclude that your requirements are unsatisfiable.\n")
    assert blame(werkzeug, p, set()) == ("werkzeug", "tensorboard 2.9.1 needs werkzeug>=1.0.1")
    line = conflict_line(p, [("werkzeug", "tensorboard 2.9.1 needs werkzeug>=1.0.1"),
                             ("apache-beam", "apache-beam 2.20.0 needs numpy<1.19")],
                         {"werkzeug": "2.2.2", "apache-beam": "2.43.0"}, "tf29")
    assert line == (
        "3 requirements cannot be met on tf29 (nothing was built): tensorflow-gpu==2.2.0 (requirements.txt:1): tf29 "
        "has TF 2.9.3; the TF 2.2 line is tf22 (`tfenv init tf22 --force`); werkzeug==0.16.0 (requirements.txt:2): "
        "tensorboard 2.9.1 needs werkzeug>=1.0.1; werkzeug 2.2.2 fits; apache-beam[gcp]==2.20.0 "
        "(requirements.txt:4): apache-beam 2.20.0 needs numpy<1.19; apache-beam[gcp] 2.43.0 fits")
