"""Property-based tests (hypothesis): whatever the input, the matrix loader and the option parsers either
accept it or raise their one-line TfenvError; never another exception, never a multi-line message."""

from __future__ import annotations

import copy
import os
import string
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from builder import cli
from builder.core import config, references, yamlfile
from builder.core.errors import TfenvError
from builder.docker import run
from builder.matrix import model, validate
from tests.helpers import ROOT

REAL = yaml.safe_load((ROOT / "matrix.yaml").read_text(encoding="utf-8"))
# TFENV_FUZZ_EXAMPLES=5000 for a longer hunt outside CI.
FAST = settings(max_examples=int(os.environ.get("TFENV_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=20),
                    st.dates().map(str), st.sampled_from(["3.\u00b2", "2022-13-45", "11.2", "", " ", "tf29"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


def one_line(exc: Exception) -> None:
    """What `tfenv` prints for the error is one line (cli.error_text escapes what the user typed)."""
    text = cli.error_text(exc)
    assert text and "\n" not in text and "\r" not in text, text


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


PATHS = [p for p in _paths(REAL) if p]


@FAST
@given(st.sampled_from(PATHS), values)
def test_matrix_with_any_value_anywhere(path, value):
    data = copy.deepcopy(REAL)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    try:
        validate.parse(data, Path("m.yaml"))
    except model.MatrixError as exc:
        one_line(exc)


@FAST
@given(values)
def test_matrix_of_any_shape(data):
    try:
        validate.parse(data, Path("m.yaml"))
    except model.MatrixError as exc:
        one_line(exc)


yaml_chars = st.sampled_from(list(":-[]{}?&*!|>'\"%@`#,\n\t ") + list("abc019") + ["\u00b2", "\x07", "\ufeff"])


@FAST
@given(st.text(yaml_chars, max_size=200))
def test_yaml_text_of_any_shape(text):
    try:
        yamlfile.loads(text, "m.yaml")
    except yamlfile.YamlFileError as exc:
        one_line(exc)


@FAST
@given(st.binary(max_size=300))
def test_matrix_bytes_of_any_kind(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("m") / "m.yaml"
    path.write_bytes(data)
    try:
        validate.load(path)
    except model.MatrixError as exc:
        one_line(exc)


# --- references ---------------------------------------------------------------------------------------

ref_chars = st.sampled_from(list(string.ascii_letters + string.digits + "._-/:@ ") + ["\u00e9", "!"])
alnum = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=5)
component = st.builds(lambda words, seps: "".join(w + s for w, s in zip(words, seps)) + words[-1],
                      st.lists(alnum, min_size=1, max_size=3), st.lists(st.sampled_from([".", "_", "__", "-", "--"]),
                                                                      min_size=2, max_size=2))
valid_refs = st.builds(
    lambda host, parts, tag: (f"{host}/" if host else "") + "/".join(parts) + (f":{tag}" if tag else ""),
    st.one_of(st.none(), st.sampled_from(["localhost", "registry.example.org", "registry.example.org:5000"])),
    st.lists(component, min_size=1, max_size=3),
    st.one_of(st.none(), st.builds(lambda a, b: a + b, st.sampled_from(list(string.ascii_letters + "_0")),
                                   st.text(string.ascii_letters + string.digits + "_.-", max_size=20))))


@FAST
@given(st.text(ref_chars, max_size=60))
def test_any_reference_is_accepted_or_one_line(text):
    try:
        assert references.check_reference(text) == text
    except references.BadReference as exc:
        one_line(exc)


@FAST
@given(valid_refs)
def test_references_docker_accepts_are_accepted(ref):
    first = ref.split("/")[0]
    # Docker reads a first component with '.' or ':' as a registry host; such a path is not a valid one.
    assume(not ("/" in ref and ("." in first or ":" in first) and not first.startswith(("localhost", "registry"))))
    assert references.check_reference(ref) == ref


@FAST
@given(st.text(max_size=120))
def test_any_project_folder_name_gives_an_image_reference_docker_accepts(folder):
    from builder.matrix import tags

    target = validate.load().target("tf29")
    ref = tags.project_ref(folder, target, False, "0123abcd")
    assert references.check_reference(ref) == ref


# --- run's -v and -e ----------------------------------------------------------------------------------

volumes = st.lists(st.sampled_from(list("/:.~ abcC\\") + ["ro", "rw", "tmp", "/tmp"]), max_size=12).map("".join)


@FAST
@given(volumes)
def test_any_volume_is_parsed_or_one_line(value):
    try:
        host, container, mode = run.split_volume(value)
        assert container.startswith("/") and mode in ("ro", "rw")
        run.parse_volume(value)
    except TfenvError as exc:
        one_line(exc)


@FAST
@given(st.text(max_size=30))
def test_any_env_is_parsed_or_one_line(value):
    try:
        key, val = run.parse_env(value)
        assert f"{key}={val}" == value
    except TfenvError as exc:
        one_line(exc)


# --- the user config file -----------------------------------------------------------------------------


@FAST
@given(st.text(max_size=120))
def test_any_config_file_is_read_or_one_line(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("cfg") / "config.toml"
    path.write_text(text, encoding="utf-8")
    try:
        settings_ = config.read_file(path)
        assert set(settings_) <= set(config.KEYS)
    except TfenvError as exc:
        one_line(exc)


@FAST
@given(st.sampled_from(config.KEYS), st.text(max_size=40))
def test_any_setting_value_is_checked_or_one_line(key, value):
    try:
        config.check(key, value, f"TFENV_{key.upper()}")
    except TfenvError as exc:
        one_line(exc)


@pytest.mark.parametrize("key", config.KEYS)
def test_every_setting_has_an_environment_variable_and_help(key):
    assert config.ENV_VARS[key] == f"TFENV_{key.upper()}" and config.HELP[key]


# --- the whole command line -----------------------------------------------------------------------------

WORDS = ["run", "ps", "stop", "build", "test", "base", "config", "doctor", "explain", "wsl", "matrix", "show",
         "render", "lock", "bake", "ci", "tf29", "tf22", "tf-29", "debian11", "ubuntu20.04", "--os", "--repo",
         "--image", "--base-image", "--tag", "--json", "--yaml", "--markdown", "--all", "--check", "--out", "-o",
         "--env", "--distro", "--windows", "--jupyter", "--build", "--port", "--bind", "-v", "-e", "--name",
         "--ca-cert", "--pip-index-url", "--apt-mirror", "--gpus", "--junit-xml", "--write-facts", "--", "-",
         "", " ", "Bad Ref!!", "x" * 300, "/dev/zero", "/dev/null", ".", "0", "-1", "70000", "all", "none",
         "a:b", "/tmp:/x:ro", "K=V", "\u00e9", "\n", "--matrix", "--debug", "--help", "matrix", "out"]


@settings(max_examples=int(os.environ.get("TFENV_FUZZ_EXAMPLES", "200")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
@example(["--matrix", "run", "base"])  # a missing argument's message once read the unreadable matrix: a traceback
def test_any_command_line_ends_with_a_documented_status(tmp_path_factory, monkeypatch, capsys, argv):
    from builder.core import exitcodes, paths

    work = tmp_path_factory.mktemp("argv")
    monkeypatch.chdir(work)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{work}/no-docker.sock")
    monkeypatch.setenv("TFENV_CONFIG", str(work / "none.toml"))
    monkeypatch.setattr(paths, "_package_checkout", lambda: None)  # nothing writes into this checkout
    if argv[:1] == ["doctor"] or "doctor" in argv[:2]:
        argv = ["--help"]  # doctor probes this machine for seconds: the sweep covers its options
    try:
        cli.main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "internal error" not in err, (argv, err)
    assert code in exitcodes.DOCUMENTED - {exitcodes.INTERNAL}, (argv, code, err)
    assert os.listdir(work) == [] or code == 0 or argv[:1] in (["render"], ["bake"], ["wsl"]), (argv, os.listdir(work))
