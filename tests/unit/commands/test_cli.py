"""The CLI surface: matrix, show, render, and one-line errors with non-zero exits."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from tests.helpers import tfenv


def test_matrix_json_lists_every_environment_and_variant():
    result = tfenv("matrix", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    names = [e["name"] for e in data["envs"]]
    assert names[:2] == ["tf22", "tf22-cuda101"] and "tf29" in names
    tf29 = next(e for e in data["envs"] if e["name"] == "tf29")
    assert [v["os"] for v in tf29["variants"]] == ["ubuntu20.04", "ubuntu18.04", "debian11"]


def test_matrix_yaml_and_table():
    assert yaml.safe_load(tfenv("matrix", "--yaml").stdout)["repo"] == "tfenv/tensorflow"
    table = tfenv("matrix", exact_env={"COLUMNS": "200", "PATH": ""})
    assert table.returncode == 0 and "tf22-cuda101" in table.stdout and "11.2.2" in table.stdout


def test_show_prints_tags_of_every_variant():
    result = tfenv("show", "tf29")
    assert result.returncode == 0
    assert "tfenv/tensorflow:2.9.3-gpu-cuda11.2-cudnn8.1-py3.8-ubuntu20.04" in result.stdout
    assert "tfenv/tensorflow:tf29-debian11" in result.stdout
    assert "tfenv/tensorflow:2.9.3-gpu-cuda11.2-cudnn8.6-py3.9-debian11-jupyter" in result.stdout


def test_show_json_with_repo():
    data = json.loads(tfenv("show", "tf22", "--json", "--repo", "ghcr.io/acme/tensorflow").stdout)
    assert data["shims"] == [{"link": "libcudart.so.10.1", "to": "libcudart.so.10.2"}]
    assert data["variants"][0]["tags"] == [
        "ghcr.io/acme/tensorflow:2.2.3-gpu-cuda10.2-cudnn7.6-py3.8-ubuntu18.04",
        "ghcr.io/acme/tensorflow:tf22",
    ]


def test_unknown_environment_is_one_line_with_suggestion():
    result = tfenv("show", "tf-29")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "tfenv: error: unknown environment 'tf-29'; did you mean 'tf29'? "
        "(known: tf22, tf22-cuda101, tf23, tf24, tf25, tf26, tf27, tf28, tf29, tf210)"
    ]
    assert "Traceback" not in result.stderr


def test_invalid_matrix_file_is_one_line(tmp_path):
    bad = tmp_path / "matrix.yaml"
    bad.write_text("schema: 1\nimage: [\n")
    result = tfenv("--matrix", str(bad), "matrix")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "invalid YAML" in result.stderr


def test_unknown_command_suggests():
    result = tfenv("shwo")
    assert result.returncode == 2 and "Did you mean 'show'?" in result.stderr


def test_render_all_to_a_folder(tmp_path):
    result = tfenv("render", "--all", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    rendered = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("Dockerfile"))
    assert "dockerfiles/tf29/debian11/Dockerfile" in rendered and len(rendered) == 25  # every env x OS variant


def test_render_unknown_os_variant():
    result = tfenv("render", "tf29", "--os", "debian12", "--out", "/tmp/unused")
    assert result.returncode == 2 and "unknown OS variant 'debian12'" in result.stderr


def test_help_imports_no_heavy_module():
    """`tfenv --help` must start fast: docker, rich, jinja2 and yaml load only when a command needs them."""
    code = (
        "import sys; from builder.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('docker', 'rich', 'jinja2', 'yaml') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_no_docker_daemon_is_one_line_saying_how_to_start_one(tmp_path):
    nowhere = f"unix://{tmp_path}/docker.sock"
    result = tfenv("run", "tf29", "--os", "debian11", "--", "true", env={"DOCKER_HOST": nowhere})
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"tfenv: error: cannot reach the Docker daemon (nothing listens at {nowhere}): start it with "
        "`sudo systemctl start docker` (or `sudo dockerd &`), or set DOCKER_HOST"
    ]
