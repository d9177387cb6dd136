"""One test per defect of issue 13 that needs no Docker daemon (tests/docker and tests/slow have the rest)."""

from __future__ import annotations

import functools
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from builder import cli
from builder.core import config, exitcodes, files, paths, references
from builder.core.errors import TfenvError
from builder.matrix import model, validate
from builder.render import lock
from tests import helpers
from tests.helpers import ROOT, matrix

tfenv = functools.partial(helpers.tfenv, clean_env=True)  # no TFENV_* settings of the caller's



def one_error_line(result, code=2):
    lines = result.stderr.strip().splitlines()
    assert result.returncode == code, result.stderr
    assert len(lines) == 1 and lines[0].startswith("tfenv: error: "), result.stderr
    return lines[0]


@pytest.fixture
def quiet_env(tmp_path, monkeypatch):
    """No TFENV_* settings and no user config file: what each test sets is all there is."""
    for name in list(os.environ):
        if name.startswith("TFENV_") or name == "PIP_INDEX_URL":
            monkeypatch.delenv(name)
    monkeypatch.setenv("TFENV_CONFIG", str(tmp_path / "none.toml"))


# --- exit codes and internal errors -----------------------------------------------------------------


def test_internal_error_is_one_line_and_exit_70(monkeypatch, capsys):
    from builder.render import describe

    def boom(*a, **kw):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(describe, "matrix_dict", boom)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["matrix", "--json"])
    err = capsys.readouterr().err
    assert exit_.value.code == exitcodes.INTERNAL
    assert err.strip().splitlines() == [
        "tfenv: internal error: ZeroDivisionError: a bug (run with --debug for the traceback)"]
    with pytest.raises(SystemExit):
        cli.main(["--debug", "matrix", "--json"])
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_readme_has_the_exit_status_table():
    assert exitcodes.markdown_table() in (ROOT / "README.md").read_text(encoding="utf-8")
    assert {0, 1, 2, 70, 129, 130, 143} == exitcodes.DOCUMENTED


def test_ascii_terminal_gets_replacement_characters_not_unicode_errors(monkeypatch):
    import io

    raw = io.BytesIO()
    strict = io.TextIOWrapper(raw, encoding="ascii", errors="strict")  # an ASCII-only or cp437 console
    monkeypatch.setattr(sys, "stdout", strict)
    cli._tolerant_output()
    print("tf\u00b29 \u2013 \u2713")  # what print() and rich write (click.echo has its own fallback)
    strict.flush()
    assert raw.getvalue() == b"tf?9 ? ?\n"
    result = tfenv("show", "tf\u00b29", env={"PYTHONIOENCODING": "cp437:strict"}, encoding="cp437")
    assert "UnicodeEncodeError" not in result.stderr and result.returncode == 2


def test_main_restores_signal_handlers():
    import signal

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit):
        cli.main(["show", "nope"])
    assert signal.getsignal(signal.SIGTERM) is before


def test_interrupted_codes():
    import signal

    exitcodes._received.clear()
    assert exitcodes.interrupted_code() == 130
    for signum, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        with pytest.raises(KeyboardInterrupt):
            exitcodes.raise_interrupted(signum)
        assert exitcodes.interrupted_code() == code
    exitcodes._received.clear()


# --- image references ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", ["tfenv/tensorflow:tf29-debian11", "ubuntu", "localhost:5000/a/b:c",
                                 "registry.example.org:5000/team/tf:2.9.3-gpu", "a__b/c-d.e",
                                 "x@sha256:" + "a" * 64, "x:1@sha256:" + "b" * 64, "[::1]:5000/x"])
def test_valid_references(ref):
    assert references.check_reference(ref) == ref


@pytest.mark.parametrize(("ref", "says"), [
    ("Bad Ref!!", "cannot contain spaces"), ("", "cannot be empty"), ("UP/x", "path component 'UP'"),
    ("a___b", "path component 'a___b'"), ("x:.t", "tag '.t'"), ("x@sha256:12", "digest"),
    ("a//b", "empty path component"), ("bad_host:5000/x", "registry host 'bad_host:5000'")])
def test_invalid_references_name_the_bad_part(ref, says):
    with pytest.raises(references.BadReference, match="^--image ") as err:
        references.check_reference(ref)
    assert says in str(err.value)


@pytest.mark.parametrize("argv", [["run", "tf29", "--repo", "Bad Repo", "--", "true"],
                                  ["test", "--image", "Bad Ref!!"], ["test", "--image", ""],
                                  ["build", "tf29", "--base-image", "Bad Ref!!"],
                                  ["build", "tf29", "--repo", "Bad Repo", "--no-pull"]])
def test_issue_references_fail_before_docker(argv, tmp_path):
    # A Docker host nowhere: the reference error must come first.
    line = one_error_line(tfenv(*argv, env={"DOCKER_HOST": f"unix://{tmp_path}/none.sock"}))
    assert "Docker" not in line and ("Bad R" in line or "''" in line)


def test_matrix_image_references_are_checked(matrix_data, write_matrix):
    matrix_data["image"]["repo"] = "Tfenv/TF"
    with pytest.raises(model.MatrixError, match=r"image.repo: image 'Tfenv/TF': path component 'Tfenv'"):
        validate.load(write_matrix(matrix_data))


# --- strict matrix loading ----------------------------------------------------------------------------


def test_duplicate_keys_name_both_lines(tmp_path):
    text = (ROOT / "matrix.yaml").read_text(encoding="utf-8")
    path = tmp_path / "m.yaml"
    path.write_text(text.replace("\nimage:\n", "\nimage:\n  user: root\nimage:\n", 1), encoding="utf-8")
    first = text[: text.index("\nimage:\n")].count("\n") + 2
    with pytest.raises(model.MatrixError) as err:
        validate.load(path)
    assert str(err.value) == (f"m.yaml:{first + 2}: duplicate key 'image' (first at line {first}): the last one "
                              "would silently win; keep one")


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_bom_and_utf16_files_read_the_same(tmp_path, encoding):
    text = (ROOT / "matrix.yaml").read_text(encoding="utf-8")
    data = text.encode(encoding)
    if encoding in ("utf-16-le", "utf-16-be"):  # what PowerShell 5.1 writes: with a BOM
        data = ("\ufeff" + text).encode(encoding)
    (tmp_path / "m.yaml").write_bytes(data)
    assert validate.load(tmp_path / "m.yaml").envs == validate.load(ROOT / "matrix.yaml").envs


def test_utf16_without_bom_is_refused_in_one_line(tmp_path):
    (tmp_path / "m.yaml").write_bytes((ROOT / "matrix.yaml").read_text(encoding="utf-8").encode("utf-16-le"))
    with pytest.raises(model.MatrixError, match="NUL bytes .* save it as UTF-8"):
        validate.load(tmp_path / "m.yaml")


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom"])
def test_special_matrix_files_are_refused_without_reading(path):
    with pytest.raises(model.MatrixError, match="not a regular file"):
        validate.load(path)


def test_large_matrix_is_refused_before_reading_it_all(tmp_path):
    big = tmp_path / "m.yaml"
    with open(big, "wb") as f:
        f.truncate(64 << 20)  # sparse: 64 MiB that costs nothing on disk
    with pytest.raises(model.MatrixError, match="larger than 1024 KiB"):
        validate.load(big)


@pytest.mark.parametrize(("old", "new", "says"), [
    ('lock_date: "2021-06-30"', "lock_date: 2022-13-45", "envs.tf22.lock_date: expected a date like '2022-12-31', "
                                                         "got '2022-13-45'"),
    ('lock_date: "2021-06-30"', "lock_date: 2021-06-30 10:00:00", "envs.tf22.lock_date: expected a date"),
    ('tensorflow: "2.2.3"', "tensorflow: '3.\u00b2'", "envs.tf22.tensorflow: expected a version like '1.2.3'"),
    ("\n  tf22:\n", "\n  22:\n", "envs.22: expected a name, got a int (quote it: '22')"),
    ("schema: 1", "schema: true", "schema: expected 1, got True"),
])
def test_bad_values_name_the_key_path(tmp_path, old, new, says):
    text = (ROOT / "matrix.yaml").read_text(encoding="utf-8")
    assert old in text
    (tmp_path / "m.yaml").write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(model.MatrixError) as err:
        validate.load(tmp_path / "m.yaml")
    assert says in str(err.value)


def test_deep_nesting_is_one_line(tmp_path):
    (tmp_path / "m.yaml").write_text("a: " + "[" * 100000 + "]" * 100000)
    with pytest.raises(model.MatrixError, match="nested more than 32 levels"):
        validate.load(tmp_path / "m.yaml")


def test_lock_dates_stay_dates_for_lock():
    assert all(len(e.lock_date) == 10 for e in matrix().envs.values())


# --- bounded Docker waits (a daemon that never answers: tests/unit/docker/test_daemon.py) ----------


def test_docker_timeout_setting_is_checked(tmp_path):
    line = one_error_line(tfenv("ps", env={"TFENV_DOCKER_TIMEOUT": "soon"}))
    assert "TFENV_DOCKER_TIMEOUT='soon'" in line


# --- output files -----------------------------------------------------------------------------------


def test_write_is_atomic_and_leaves_nothing_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    target.write_text("old")

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", fail)
    with pytest.raises(files.FileError, match="out.txt: cannot write the output: No space left on device"):
        files.write_text(target, "new")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_write_all_is_all_or_nothing(tmp_path):
    with pytest.raises(files.FileError, match="does not exist"):
        files.write_all([(tmp_path / "a.py", "a", None), (tmp_path / "missing" / "b.json", "b", None)])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("special", ["/dev/null", "/dev/zero"])
def test_special_files_are_never_written_or_chmodded(special):
    before = os.stat(special)
    result = tfenv("wsl", "tf29", "-o", special)
    assert "not a regular file" in one_error_line(result)
    after = os.stat(special)
    assert stat.S_IMODE(after.st_mode) == stat.S_IMODE(before.st_mode)


def test_doctor_pair_is_both_or_nothing(tmp_path):
    result = tfenv("doctor", "--write-standalone", "a.py", "--write-facts", "/no/such/tfenv-dir/x.json", cwd=tmp_path)
    assert "does not exist" in one_error_line(result)
    assert list(tmp_path.iterdir()) == []
    same = tfenv("doctor", "--write-standalone", "d.py", "--write-facts", "./d.py", cwd=tmp_path)
    assert "--write-standalone and --write-facts name the same file" in one_error_line(same)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out", ["/sys/tfenv-x", "x" * 300])
def test_render_into_unwritable_places_is_one_line(tmp_path, out):
    result = tfenv("render", "tf29", "--out", out, cwd=tmp_path)
    assert "cannot create the output folder" in one_error_line(result)
    assert list(tmp_path.iterdir()) == []


def test_junit_xml_is_checked_before_anything_runs(tmp_path):
    # Missing folders are made (as pytest does), but not under one that cannot take them (/proc, even for root).
    result = tfenv("test", "tf29", "--junit-xml", "/proc/tfenv-missing/r.xml",
                   env={"DOCKER_HOST": f"unix://{tmp_path}/none.sock"})
    assert "JUnit XML report: folder" in one_error_line(result)


def test_ca_cert_is_a_small_regular_pem_file(tmp_path):
    for path, says in (("/dev/zero", "not a regular file"), (str(tmp_path), "it is a folder"),
                       (str(tmp_path / "nope.pem"), "No such file")):
        with pytest.raises(TfenvError, match=f"^--ca-cert {path}: cannot read: .*{says}"):
            files.read_ca_cert(path)


# --- checkouts and installed packages ---------------------------------------------------------------


@pytest.fixture
def installed_elsewhere(monkeypatch):
    """As a non-editable install: the package is not inside a checkout."""
    monkeypatch.setattr(paths, "_package_checkout", lambda: None)


def test_render_check_finds_the_checkout_from_the_current_folder(checkout_copy, installed_elsewhere, monkeypatch,
                                                                  capsys):
    import shutil

    monkeypatch.setattr(paths, "_checkout_data", None)  # restored after the test, whatever main() set
    (checkout_copy / "pyproject.toml").write_text('[project]\nname = "tfenv"\n')
    shutil.copytree(ROOT / "locks", checkout_copy / "locks")
    shutil.copytree(ROOT / "builder" / "templates", checkout_copy / "builder" / "templates")
    (checkout_copy / "docker-bake.json").write_text((ROOT / "docker-bake.json").read_text())
    monkeypatch.chdir(checkout_copy / "dockerfiles")
    cli.main(["render", "--check"])
    cli.main(["bake", "--check"])
    # The checkout's templates are what its files come from, not the installed package's.
    template = checkout_copy / "builder" / "templates" / "docker" / "Dockerfile.j2"
    template.write_text(template.read_text() + "# a new line in the checkout's template\n")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["render", "--check"])
    assert exit_.value.code == exitcodes.CHECKS_FAILED  # drift is a failed check, not bad input
    assert "differ from matrix.yaml" in capsys.readouterr().err


def test_bake_drift_exits_1(tmp_path, capsys):
    (tmp_path / "bake.json").write_text("{}\n")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["bake", "--check", "-o", str(tmp_path / "bake.json")])
    assert exit_.value.code == exitcodes.CHECKS_FAILED


def test_lock_refuses_outside_a_checkout(tmp_path, installed_elsewhere, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["lock", "tf29"])
    assert exit_.value.code == 2 and "run it inside a tfenv checkout" in capsys.readouterr().err


def test_lock_refuses_site_packages(tmp_path):
    m = matrix()
    root = tmp_path / "lib" / "python3.11" / "site-packages" / "builder" / "_data" / "locks"
    with pytest.raises(lock.LockError, match="inside an installed package"):
        lock.resolve(m.target("tf29", "debian11"), m, False, root)
    assert not root.exists()


# --- small lies -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "says"), [
    (["render", "tf29", "--os", "", "--out", "o"], "--os '': give a value"),
    (["wsl", "tf29", "--distro", ""], "--distro '': give a value"),
    (["doctor", "--env", ""], "--env '': give a value"),
    (["render", "tf29", "--all", "--out", "o"], "--all renders every environment"),
    (["matrix", "--json", "--yaml", "--markdown"], "--json and --yaml and --markdown are exclusive"),
    (["run", "tf29", "--ca-cert", "x.pem", "--", "true"], "--ca-cert only applies with --jupyter --build"),
])
def test_small_lies_are_errors(argv, says, tmp_path):
    assert says in one_error_line(tfenv(*argv, cwd=tmp_path))
    assert list(tmp_path.iterdir()) == []


def test_standalone_doctor_with_a_facts_file_missing_keys(tmp_path):
    from builder.doctor.facts import check_facts
    from builder.doctor.host import DoctorError
    from builder.matrix.facts import facts_from_matrix

    facts = tmp_path / "facts.json"
    facts.write_text(json.dumps({"schema": 1, "envs": {"tf29": {"tensorflow": "2.9.3"}}, "cuda": {}}))
    result = subprocess.run([sys.executable, "-m", "builder.doctor", "--facts", str(facts)], capture_output=True,
                            text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"doctor: error: {facts}: cuda: missing, or not a non-empty object (write it again with "
        "`tfenv doctor --write-facts`)"]
    good = json.loads(json.dumps(facts_from_matrix(matrix())))
    del good["envs"]["tf29"]["sonames"]
    with pytest.raises(DoctorError, match=r"envs.tf29.sonames: missing"):
        check_facts(good, "f.json")


# --- build settings set once ----------------------------------------------------------------------


def test_config_path_per_platform():
    env = {"HOME": "/home/u", "APPDATA": r"C:\Users\u\AppData\Roaming", "XDG_CONFIG_HOME": "/xdg"}
    assert config.config_path(env, "win32") == Path(r"C:\Users\u\AppData\Roaming") / "tfenv" / "config.toml"
    assert config.config_path(env, "darwin") == Path("/home/u/Library/Application Support/tfenv/config.toml")
    assert config.config_path(env, "linux") == Path("/xdg/tfenv/config.toml")
    assert config.config_path({"HOME": "/home/u"}, "linux") == Path("/home/u/.config/tfenv/config.toml")
    assert config.config_path({"TFENV_CONFIG": "/etc/t.toml"}, "linux") == Path("/etc/t.toml")


def test_precedence_option_env_file_default(tmp_path, quiet_env, monkeypatch):
    cfg = tmp_path / "config.toml"
    cfg.write_text('repo = "file.example.org/t"\nca_cert = "certs/proxy.pem"\n'
                   'pip_index_url = "https://file.example.org/simple"\n')
    monkeypatch.setenv("TFENV_CONFIG", str(cfg))
    got = config.effective()
    assert got["repo"] == config.Setting("file.example.org/t", f"config file {cfg}")
    assert got["ca_cert"].value == str(tmp_path / "certs" / "proxy.pem")  # relative to the file
    assert got["apt_mirror"].value is None
    monkeypatch.setenv("PIP_INDEX_URL", "https://pip.example.org/simple")
    assert config.effective()["pip_index_url"] == config.Setting("https://pip.example.org/simple", "PIP_INDEX_URL")
    monkeypatch.setenv("TFENV_PIP_INDEX_URL", "https://tfenv.example.org/simple")
    monkeypatch.setenv("TFENV_REPO", "env.example.org/t")
    got = config.effective()
    assert got["pip_index_url"].source == "TFENV_PIP_INDEX_URL" and got["repo"].value == "env.example.org/t"
    assert config.effective({"repo": "opt/t"})["repo"] == config.Setting("opt/t", "--repo")


@pytest.mark.parametrize(("text", "says"), [
    ('rep = "x"', "unknown setting 'rep' (did you mean 'repo'?)"), ("repo = 1", "repo: expected a string"),
    ("repo = ", "invalid TOML"), ('repo = "Bad Repo"', "cannot contain spaces"),
    ('pip_index_url = "pypi.example.org"', "expected a URL")])
def test_bad_config_file_is_one_line(tmp_path, quiet_env, monkeypatch, text, says):
    cfg = tmp_path / "config.toml"
    cfg.write_text(text)
    monkeypatch.setenv("TFENV_CONFIG", str(cfg))
    with pytest.raises(TfenvError) as err:
        config.effective()
    assert says in str(err.value)


def test_tfenv_config_shows_value_and_source(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('apt_mirror = "http://mirror.example.org/debian"\n')
    result = tfenv("config", "--json", env={"TFENV_CONFIG": str(cfg), "TFENV_REPO": "registry.example.org/t"})
    data = json.loads(result.stdout)["settings"]
    assert data["apt_mirror"] == {"value": "http://mirror.example.org/debian", "source": f"config file {cfg}"}
    assert data["repo"] == {"value": "registry.example.org/t", "source": "TFENV_REPO"}
    assert data["ca_cert"]["value"] is None


def test_run_build_takes_builds_options_and_defaults(quiet_env, monkeypatch):
    from builder.commands import common, environment

    build_opts = {p.name for p in environment.run_command.params} & set(common.BUILD_OPTION_NAMES)
    assert build_opts == set(common.BUILD_OPTION_NAMES)
    monkeypatch.setenv("TFENV_CA_CERT", "/etc/ssl/certs/ca-certificates.crt")
    monkeypatch.setenv("PIP_INDEX_URL", "https://pypi.example.org/simple")
    kwargs = {"base_image": None, "pip_index_url": None, "apt_mirror": None, "ca_cert": None, "no_cache": False,
              "pull": None}
    got = common.make_build_options(kwargs, repo=None, jupyter=True)
    assert got.ca_cert == "/etc/ssl/certs/ca-certificates.crt" and got.pip_index_url == "https://pypi.example.org/simple"
    assert got.jupyter and got.repo is None


# --- one owner for temporary folders ------------------------------------------------------------------


def test_temp_dir_is_removed_however_the_block_ends(tmp_path):
    import signal

    from builder.core import files

    seen = []
    with pytest.raises(KeyboardInterrupt), files.temp_dir("t", parent=str(tmp_path),
                                                               before_remove=seen.append) as path:
        (path / "f").write_text("x")
        exitcodes.raise_interrupted(signal.SIGTERM)  # what the SIGTERM handler does
    exitcodes._received.clear()
    assert seen == [path] and not path.exists() and list(tmp_path.iterdir()) == []


def test_signals_as_interrupt_covers_sigterm_and_sighup_and_restores():
    import signal

    from builder.docker import containers

    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    with containers.signals_as_interrupt():
        assert signal.getsignal(signal.SIGTERM) is exitcodes.raise_interrupted
        assert signal.getsignal(signal.SIGHUP) in (exitcodes.raise_interrupted, signal.SIG_IGN)
    assert {s: signal.getsignal(s) for s in before} == before


@pytest.mark.parametrize("path", ["/proc/tfenv-x", "/sys/tfenv-x"])
def test_unwritable_system_folders_are_found_before_any_work(path):
    # os.access() says yes to root here; a probe file says no.
    with pytest.raises(files.FileError, match="is not writable"):
        files.check_writable(path, "JUnit XML report")


def test_a_bad_ca_cert_setting_names_where_it_was_set(tmp_path):
    line = one_error_line(tfenv("build", "tf29", env={"TFENV_CA_CERT": "/dev/zero"}))
    assert line.startswith("tfenv: error: TFENV_CA_CERT /dev/zero: cannot read: not a regular file")
    cfg = tmp_path / "config.toml"
    cfg.write_text('ca_cert = "proxy.pem"\n')
    line = one_error_line(tfenv("build", "tf29", env={"TFENV_CONFIG": str(cfg)}))
    assert line.startswith(f"tfenv: error: config file {cfg}: ca_cert {tmp_path / 'proxy.pem'}: cannot read")


def test_junit_xml_in_missing_folders_is_accepted_and_nothing_is_made_before_the_report(tmp_path):
    from builder.core import files

    target = tmp_path / "new" / "dir" / "j.xml"
    assert files.check_writable(target, "JUnit XML report", make_parents=True) == target
    assert not (tmp_path / "new").exists()  # made only when the report is written
    with pytest.raises(files.FileError, match="does not exist"):
        files.check_writable(target, "JUnit XML report")
    (tmp_path / "file").write_text("x")
    with pytest.raises(files.FileError, match="cannot write"):
        files.check_writable(tmp_path / "file" / "dir" / "j.xml", "JUnit XML report", make_parents=True)
