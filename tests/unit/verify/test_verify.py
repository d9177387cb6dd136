"""tfenv test without a container: what the suites expect, how results are collected, CLI errors."""

from __future__ import annotations

import json
import textwrap
import uuid

import pytest

from builder.matrix import tags
from builder.verify import runner
from tests.helpers import tfenv


def test_expectations_tf29_debian11(m):
    target = m.target("tf29", "debian11")
    e = runner.expectations(m, target, "img", {"io.tfenv.env": "tf29"}, (False, "no GPU"), "tfenv build tf29")
    assert (e["os_family"], e["os_version"], e["python"], e["tensorflow"]) == ("debian", "11", "3.9", "2.9.3")
    assert (e["cuda"], e["cuda_built"], e["cudnn_built"], e["cudnn_installed"]) == ("11.2", "11.2", "8.1", "8.6.0")
    assert e["sonames"][0] == e["cudart_soname"] == "libcudart.so.11.0"
    assert e["cudnn_soname"] == "libcudnn.so.8"
    assert e["shims"] == [] and e["optional_sonames"] == ["libnvinfer.so.7", "libnvinfer_plugin.so.7"]
    assert e["labels_expected"] == tags.labels(target)
    assert e["gpu"]["use"] is False and e["gpu"]["reason"] == "no GPU"
    assert e["wsl_lib"] == m.wsl.lib_dir  # the driver hint names WSL's folder from the matrix
    json.dumps(e)  # the suites read it as JSON


def test_expectations_tf22_shim_and_built_cuda(m):
    e = runner.expectations(m, m.target("tf22", "ubuntu20.04"), "img", {}, (True, "ok"), "hint")
    # TF 2.2 was built against 10.1; the image runs 10.2 through the libcudart.so.10.1 link.
    assert (e["cuda"], e["cuda_built"]) == ("10.2", "10.1")
    assert e["shims"] == [{"link": "libcudart.so.10.1", "to": "libcudart.so.10.2"}]
    assert (e["os_family"], e["os_version"]) == ("ubuntu", "20.04")
    assert m.target("tf23", "ubuntu20.04").env.built_cuda == "10.1"
    assert m.target("tf24", "ubuntu18.04").env.built_cuda == "11.0"


def test_build_hint_names_repo_only_when_not_default(m):
    target = m.target("tf29", "debian11")
    hint = tags.build_hint(target, repo="tfenv/tensorflow", default_repo="tfenv/tensorflow")
    assert hint == "tfenv build tf29 --os debian11"
    assert tags.build_hint(target, repo="ghcr.io/a/tf", default_repo="tfenv/tensorflow").endswith("--repo ghcr.io/a/tf")


FAKE_SUITE = {
    "pytest.ini": "[pytest]\n",
    "__init__.py": "",
    "conftest.py": """
        def pytest_addoption(parser):
            parser.addoption("--tfenv-expect")
    """,
    "test_fake.py": """
        import pytest
        from builder.verify.suites._support import check

        def test_pass():
            '''a check that passes'''

        def test_checkfailed():
            '''a check that fails with evidence'''
            check(False, "found 1.0, want 2.0", "rebuild it")

        def test_plain_assert():
            '''a plain assert'''
            assert 1 == 2

        def test_skip():
            '''a skipped check'''
            pytest.skip("no GPU here")

        @pytest.fixture
        def broken():
            raise RuntimeError("setup broke")

        def test_setup_error(broken):
            '''a check whose fixture breaks'''

        @pytest.mark.parametrize("lib", ["libx.so.1"])
        def test_param(lib):
            '''{lib} loads'''
    """,
}


def _fake_suite(tmp_path, files):
    # A package with a unique name: in-process pytest runs share sys.modules, so names must not repeat.
    suite = tmp_path / f"tfenv_fake_suite_{uuid.uuid4().hex[:8]}"
    suite.mkdir()
    for name, text in files.items():
        (suite / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return suite


def test_collector_reports_one_result_per_check(tmp_path):
    suite = _fake_suite(tmp_path, FAKE_SUITE)
    junit = tmp_path / "junit.xml"
    results = runner.run_suites("no-container", tmp_path / "expect.json", str(junit), suite_dir=suite)
    by_title = {r.title: r for r in results}
    assert [r.title for r in results][:2] == ["a check that passes", "a check that fails with evidence"]
    assert by_title["a check that passes"].outcome == "passed"
    failed = by_title["a check that fails with evidence"]
    assert (failed.outcome, failed.evidence, failed.fix) == ("failed", "found 1.0, want 2.0", "rebuild it")
    plain = by_title["a plain assert"]
    assert plain.outcome == "failed" and "AssertionError" in plain.evidence and plain.fix is None
    assert (by_title["a skipped check"].outcome, by_title["a skipped check"].evidence) == ("skipped", "no GPU here")
    setup = by_title["a check whose fixture breaks"]
    assert setup.outcome == "failed" and "setup broke" in setup.evidence
    assert by_title["libx.so.1 loads"].outcome == "passed"
    assert len(results) == 6
    assert 'failures="2"' in junit.read_text() or 'failures="3"' in junit.read_text()


def test_broken_suite_is_could_not_run(tmp_path):
    suite = _fake_suite(tmp_path, {**FAKE_SUITE, "test_fake.py": "import nonexistent_module_xyz\n"})
    with pytest.raises(runner.CannotRun, match="could not be collected"):
        runner.run_suites("no-container", tmp_path / "expect.json", suite_dir=suite)


def test_interrupt_inside_the_suite_propagates(tmp_path):
    suite = _fake_suite(tmp_path, {**FAKE_SUITE, "test_fake.py": "def test_ctrl_c():\n    raise KeyboardInterrupt\n"})
    with pytest.raises(KeyboardInterrupt):
        runner.run_suites("no-container", tmp_path / "expect.json", suite_dir=suite)


def test_help_documents_exit_codes_and_gpu_command():
    result = tfenv("test", "--help")
    assert result.returncode == 0
    for text in ("Exit status:", "1  checks ran and at least one failed", "2  could not run",
                 "tfenv test tf29 --gpus all", "--junit-xml", "--image REF"):
        assert text in result.stdout


def test_no_env_and_no_image_is_a_usage_error():
    result = tfenv("test")
    assert result.returncode == 2 and "name an environment" in result.stderr


def test_bad_gpus_value_is_a_usage_error():
    result = tfenv("test", "tf29", "--gpus", "some")
    assert result.returncode == 2 and "'some' is not one of 'auto', 'all', 'none'" in result.stderr


def test_missing_docker_cli_is_could_not_run():
    # PATH without a docker binary; the interpreter is called by its full path.
    result = tfenv("test", "tf29", "--os", "debian11", exact_env={"PATH": "/nonexistent"})
    assert result.returncode == 2
    assert result.stderr.startswith("tfenv: error: tfenv test runs its checks with `docker exec`")
    assert "Traceback" not in result.stderr


def test_the_import_probe_takes_a_distributions_own_module_and_path_style_top_levels(tmp_path):
    """black's blackd needs its [d] extra; sentencepiece's top_level.txt lists paths (seen in a tf210 project)."""
    import json
    import subprocess
    import sys

    from tests.helpers import ROOT

    site = tmp_path / "site"
    dists = (("black", "22.12.0", "black\nblackd\n", {"black": "", "blackd": "import aiohttp"}),
             ("sentencepiece", "0.1.97", "sentencepiece/__init__\nsentencepiece/_version\n", {"sentencepiece": ""}))
    for name, version, top, modules in dists:
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        (info / "top_level.txt").write_text(top)
        for module, body in modules.items():
            (site / module).mkdir()
            (site / module / "__init__.py").write_text(body)
    probe = ROOT / "builder" / "verify" / "suites" / "probes" / "imports.py"
    result = subprocess.run([sys.executable, str(probe), json.dumps(["black", "sentencepiece"])], capture_output=True,
                            text=True, env={"PYTHONPATH": str(site)})
    report = json.loads(result.stdout.split("TFENV_PROBE ", 1)[1])
    assert report == {"black": {"modules": ["black"], "errors": {}},
                      "sentencepiece": {"modules": ["sentencepiece"], "errors": {}}}
