"""Projects (tfenv.yaml) without Docker or network: loading, init, the lock file, conflict lines, names,
the rendered Dockerfile (hadolint), the devcontainer (against the vendored Dev Container schema)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from builder.matrix import tags
from builder.project import config, devcontainer, image, resolve
from builder.render import lock as env_lock
from tests.helpers import ROOT, tfenv

SCHEMA = ROOT / "tests" / "unit" / "schemas" / "devcontainers" / "devContainer.base.schema.json"

# Docker's reference grammar (distribution/reference, reference.go): path components and tag.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
REFERENCE = re.compile(rf"^{_COMPONENT}(?:/{_COMPONENT})*:[\w][\w.-]{{0,127}}$")



def write(folder: Path, text: str) -> Path:
    path = folder / "tfenv.yaml"
    path.write_text(text, encoding="utf-8")
    return path


# --- tfenv.yaml -----------------------------------------------------------------------------------


def test_load_reads_every_field(tmp_path, m):
    path = write(tmp_path, "environment: tf29\nos: debian11\nrequirements: requirements.txt\n"
                           "apt: [graphviz, libgl1=1.3.2-1]\njupyter: true\n")
    p = config.load(path, m)
    assert (p.environment, p.os, p.requirements, p.apt, p.jupyter) == (
        "tf29", "debian11", "requirements.txt", ("graphviz", "libgl1=1.3.2-1"), True)
    assert p.target(m).key == "tf29/debian11"


def test_load_defaults_os_to_the_environments_first_and_jupyter_off(tmp_path, m):
    p = config.load(write(tmp_path, "environment: tf29\n"), m)
    assert (p.os, p.jupyter, p.requirements, p.apt) == ("ubuntu20.04", False, None, ())


@pytest.mark.parametrize("text, says", [
    ("environment: tf30\n", "tfenv.yaml: environment: unknown environment 'tf30'; did you mean 'tf23'?"),
    ("environment: tf29\nos: debian12\n", "tfenv.yaml: os: tf29 has no OS variant 'debian12'; did you mean "
                                          "'debian11'? (it has: ubuntu20.04, ubuntu18.04, debian11)"),
    ("enviroment: tf29\n", "tfenv.yaml: unknown key 'enviroment'; did you mean 'environment'?"),
    ("os: debian11\n", "tfenv.yaml: environment: missing"),
    ("environment: tf29\njupyter: yes please\n", "tfenv.yaml: jupyter: expected true or false, got a string"),
    ("environment: tf29\napt: graphviz\n", "tfenv.yaml: apt: expected a list of package names, got a string"),
    ("environment: tf29\napt: ['rm -rf /']\n", "tfenv.yaml: apt: 'rm -rf /' is not a package name"),
    ("environment: tf29\nrequirements: ../secrets.txt\n", "tfenv.yaml: requirements: '../secrets.txt' must be a "
                                                         "path inside the project folder"),
    ("environment: [tf29\n", "tfenv.yaml: line 2:"),
    ("- tf29\n", "tfenv.yaml: expected a mapping with the keys environment, os, requirements, apt, jupyter"),
    ("environment: 29\n", "tfenv.yaml: environment: expected a non-empty string, got a number"),
])
def test_bad_tfenv_yaml_is_one_line_naming_file_and_key(tmp_path, m, text, says):
    with pytest.raises(config.ProjectError) as err:
        config.load(write(tmp_path, text), m)
    message = str(err.value)
    assert message.startswith(says) and "\n" not in message


def test_init_writes_a_commented_file_that_loads(tmp_path, m):
    (tmp_path / "requirements.txt").write_text("pandas\n", encoding="utf-8")
    path, why = config.write_init(m, "tf29", "debian11", True, tmp_path)
    assert why is None  # named, not chosen
    text = path.read_text(encoding="utf-8")
    assert "\nrequirements: requirements.txt\n" in text and "\njupyter: true\n" in text and text.startswith("#")
    assert config.load(path, m).requirements == "requirements.txt"


def test_init_without_requirements_leaves_the_key_commented(tmp_path, m):
    path, _ = config.write_init(m, "tf29", None, False, tmp_path)
    p = config.load(path, m)
    assert (p.requirements, p.os, p.jupyter) == (None, "ubuntu20.04", False)
    assert "# requirements: requirements.txt" in path.read_text(encoding="utf-8")


def test_init_cli_refuses_to_overwrite_without_force(tmp_path):
    first = tfenv("init", "tf29", "--os", "debian11", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (tmp_path / "tfenv.yaml").write_text("environment: tf28\n", encoding="utf-8")
    again = tfenv("init", "tf29", cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.strip().endswith("tfenv.yaml exists: edit it, or pass --force to replace it")
    assert (tmp_path / "tfenv.yaml").read_text(encoding="utf-8") == "environment: tf28\n"
    forced = tfenv("init", "tf29", "--force", cwd=tmp_path)
    assert forced.returncode == 0 and "environment: tf29" in (tmp_path / "tfenv.yaml").read_text(encoding="utf-8")


def test_init_cli_unknown_environment_names_the_nearest(tmp_path):
    result = tfenv("init", "tf92", cwd=tmp_path)
    assert result.returncode == 2 and "unknown environment 'tf92'; did you mean 'tf29'?" in result.stderr
    assert not (tmp_path / "tfenv.yaml").exists()


def test_project_commands_outside_a_project_say_what_to_do(tmp_path):
    result = tfenv("devcontainer", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == f"tfenv: error: no tfenv.yaml in {tmp_path}: create one with `tfenv init`"
    run = tfenv("run", "--", "python", "-V", cwd=tmp_path)
    assert run.returncode == 2 and "or run in a folder with tfenv.yaml" in run.stderr


# --- tfenv.lock -----------------------------------------------------------------------------------


def hashed(*pairs):
    """Pins as tfenv.lock holds them: each with a sha256 (a placeholder digest; these tests build nothing)."""
    return [env_lock.Pin(n, v, (f"{i:064x}",)) for i, (n, v) in enumerate(pairs)]


def project(tmp_path, m, reqs="pandas==2.0.3\n", jupyter=True, apt="[]"):
    (tmp_path / "requirements.txt").write_text(reqs, encoding="utf-8")
    return config.load(write(tmp_path, f"environment: tf29\nos: debian11\nrequirements: requirements.txt\n"
                                       f"apt: {apt}\njupyter: {str(jupyter).lower()}\n"), m)


def test_lock_round_trip_and_staleness(tmp_path, m):
    p = project(tmp_path, m)
    target = p.target(m)
    inputs = resolve.inputs_digest(p, target, m)
    p.lock_path.write_text(resolve.lock_text(p, target, inputs, hashed(("pandas", "2.0.3"), ("pytz", "2024.1")),
                                             ["tensorflow-gpu==2.9.1: tf29 provides 2.9.3"]), encoding="utf-8")
    lock = resolve.current_lock(p, target, m)
    assert lock.requirements() == ["pandas==2.0.3", "pytz==2024.1"] and lock.inputs == inputs
    assert lock.notes == ("tensorflow-gpu==2.9.1: tf29 provides 2.9.3",)
    (tmp_path / "requirements.txt").write_text("pandas==2.0.3\nmatplotlib\n", encoding="utf-8")
    assert resolve.current_lock(p, target, m) is None  # requirements changed: resolve again
    other = project(tmp_path, m, reqs="pandas==2.0.3\n", jupyter=False)
    assert resolve.inputs_digest(other, target, m) != inputs  # the Jupyter lock is a constraint only with jupyter


def test_an_edited_include_makes_the_lock_stale(tmp_path, m):
    p = project(tmp_path, m, reqs="-r base.txt\npandas==2.0.3\n")
    (tmp_path / "base.txt").write_text("-c pins.txt\nscipy\n", encoding="utf-8")
    (tmp_path / "pins.txt").write_text("scipy==1.9.3\n", encoding="utf-8")
    target = p.target(m)
    before = resolve.inputs_digest(p, target, m)
    (tmp_path / "pins.txt").write_text("scipy==1.10.0\n", encoding="utf-8")
    assert resolve.inputs_digest(p, target, m) != before
    p2 = config.load(write(tmp_path, "environment: tf29\nos: debian11\nrequirements: requirements.txt\n"
                                     "jupyter: true\nresolve_as_of: 2023-06-30\n"), m)
    assert p2.resolve_as_of == "2023-06-30" and resolve.inputs_digest(p2, target, m) != resolve.inputs_digest(
        p, target, m)


def test_a_git_pin_reads_back_only_with_a_full_commit(tmp_path, m):
    p = project(tmp_path, m)
    commit = "0123456789abcdef0123456789abcdef01234567"
    p.lock_path.write_text(f"# inputs: x\nmylib @ git+https://git.example.org/o/mylib@{commit}\n", encoding="utf-8")
    assert resolve.read_lock(p.lock_path).requirements() == [f"mylib @ git+https://git.example.org/o/mylib@{commit}"]
    p.lock_path.write_text("# inputs: x\nmylib @ git+https://git.example.org/o/mylib@main\n", encoding="utf-8")
    with pytest.raises(resolve.ResolveFailed, match="expected 'name==version --hash"):
        resolve.read_lock(p.lock_path)


def test_lock_digest_follows_content_and_apt(tmp_path, m):
    p = project(tmp_path, m)
    target = p.target(m)
    a = resolve.lock_text(p, target, "x", hashed(("pandas", "2.0.3")))
    with_apt = project(tmp_path, m, apt="[graphviz]")
    b = resolve.lock_text(with_apt, target, "x", hashed(("pandas", "2.0.3")))
    assert "# apt: graphviz" in b and a != b


@pytest.mark.parametrize("line", ["pandas>=2", "pandas==2.0; curl x | sh", "pandas== ", "a b==1"])
def test_a_broken_lock_line_is_one_line(tmp_path, m, line):
    p = project(tmp_path, m)
    p.lock_path.write_text(f"# inputs: x\n{line}\n", encoding="utf-8")
    broken = r"^tfenv.lock(:2: expected 'name==version|: .* is no 'name==version')"
    with pytest.raises(resolve.ResolveFailed, match=broken):
        resolve.read_lock(p.lock_path)


def test_a_lock_without_hashes_is_refused_with_what_to_do(tmp_path, m):
    p = project(tmp_path, m)
    p.lock_path.write_text("# inputs: x\npandas==2.0.3\n", encoding="utf-8")
    with pytest.raises(resolve.ResolveFailed, match=r"pandas==2.0.3 has no --hash .*run `tfenv lock`"):
        resolve.read_lock(p.lock_path)
    assert resolve.current_lock(p, p.target(m), m) is None  # so a build resolves it again, with hashes


# --- names, Dockerfile, devcontainer ------------------------------------------------------------------


@pytest.mark.parametrize("folder, name", [
    ("My Project", "my-project"), ("ML__exp.2024", "ml-exp-2024"), ("--x--", "x"), ("日本", "project"),
    ("a" * 300, "a" * 100),
])
def test_project_names_follow_dockers_reference_grammar(m, folder, name):
    assert tags.project_name(folder) == name
    ref = tags.project_ref(folder, m.target("tf29", "debian11"), True, "0123456789ab")
    assert REFERENCE.match(ref), ref
    assert ref.endswith(":tf29-debian11-jupyter-0123456789ab")


def described(tmp_path, m, pins=(("pandas", "2.0.3"),), apt="[]"):
    p = project(tmp_path, m, apt=apt)
    target = p.target(m)
    p.lock_path.write_text(resolve.lock_text(p, target, resolve.inputs_digest(p, target, m), hashed(*pins)),
                           encoding="utf-8")
    return p, image.describe(p, m, resolve.read_lock(p.lock_path))


def test_project_image_is_from_the_environments_jupyter_stage_and_labelled(tmp_path, m):
    p, img = described(tmp_path, m)
    assert img.base_ref == "tfenv/tensorflow:tf29-debian11-jupyter"
    text = image.dockerfile(img, m)
    assert text.count("FROM ${TFENV_BASE}") == 2 and "ARG TFENV_BASE=tfenv/tensorflow:tf29-debian11-jupyter\n" in text
    # the install layers do not depend on the Dockerfile itself: only the certificate reaches them
    assert "FROM ${TFENV_BASE}\nUSER 0\nCOPY --from=ca /tmp/ca/ /tmp/tfenv-project/\n" in text
    assert f"      'pandas==2.0.3 --hash=sha256:{0:064x}' \\\n" in text
    install = "pip install --no-cache-dir --no-deps --require-hashes -r /tmp/tfenv-project/tfenv.lock"
    assert f"{install} \\\n && pip check" in text
    assert f'io.tfenv.project-lock="{img.lock.digest}"' in text and 'io.tfenv.project="' in text
    assert text.rstrip().endswith("WORKDIR /workspace\nUSER 1000")
    assert "apt-get" not in text


GIT_PIN = ("mylib", "@ git+https://git.example.org/o/mylib@0123456789abcdef0123456789abcdef01234567")


def test_a_git_requirement_is_installed_at_its_commit_with_git_from_apt(tmp_path, m):
    _, img = described(tmp_path, m, (("pandas", "2.0.3"), GIT_PIN))
    text = image.dockerfile(img, m)
    assert "      git \\\n" in text and f"      'mylib {GIT_PIN[1]}' \\\n" in text
    assert text.index("'mylib @ git+") < text.index("pandas==2.0.3")


def test_libraries_a_wheel_loads_but_does_not_ship_come_from_apt(tmp_path, m):
    _, img = described(tmp_path, m, (("opencv-python", "4.6.0.66"),), apt="[graphviz]")
    text = image.dockerfile(img, m)
    assert "      graphviz \\\n      libgl1 \\\n      libglib2.0-0 \\\n" in text
    assert "what tfenv.lock's packages need: libgl1, libglib2.0-0." in text


@pytest.mark.parametrize("pins, apt", [((("pandas", "2.0.3"),), "[graphviz=2.42.2-5]"), ((), "[]"),
                                       ((GIT_PIN,), "[]"), ((("opencv-python", "4.6.0.66"),), "[]")])
def test_rendered_project_dockerfile_passes_hadolint(tmp_path, m, pins, apt):
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        pytest.fail("hadolint is missing: pip install -e '.[dev]'")
    _, img = described(tmp_path, m, pins, apt)
    path = tmp_path / "Dockerfile"
    path.write_text(image.dockerfile(img, m), encoding="utf-8")
    result = subprocess.run([hadolint, "--config", str(ROOT / ".hadolint.yaml"), str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def schema_validator():
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft201909Validator(schema)


@pytest.mark.parametrize("gpus", [False, True])
def test_devcontainer_matches_the_dev_container_schema(tmp_path, m, schema_validator, gpus):
    p, img = described(tmp_path, m)
    written = devcontainer.write(p.root, img, m, gpus=gpus)
    assert [w.name for w in written] == ["devcontainer.json", "Dockerfile"]
    data = json.loads((tmp_path / ".devcontainer" / "devcontainer.json").read_text(encoding="utf-8"))
    errors = sorted(schema_validator.iter_errors(data), key=str)
    assert not errors, [e.message for e in errors]
    assert (data["remoteUser"], data["containerUser"], data["workspaceFolder"]) == ("tf", "tf", "/workspace")
    assert data["hostRequirements"] == {"gpu": "optional"} and data["forwardPorts"] == [8888]
    assert data["customizations"]["vscode"]["extensions"] == ["ms-python.python", "ms-toolsai.jupyter"]
    assert data.get("runArgs") == (["--gpus", "all"] if gpus else None)
    assert (tmp_path / ".devcontainer" / "Dockerfile").read_text(encoding="utf-8") == image.dockerfile(img, m)


def self_signed_ca(path: Path) -> bytes:
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=tfenv test proxy CA", "-keyout", str(path.with_suffix(".key")), "-out", str(path)],
                   check=True, capture_output=True)
    return path.read_bytes()


def test_devcontainer_carries_the_configured_ca_cert_into_its_folder(tmp_path, m):
    """Resolved as `tfenv build` resolves it (option over TFENV_CA_CERT over the config file), copied as the
    extra-ca.crt the project Dockerfile trusts while it builds; without one, a copy there is kept and named."""
    described(tmp_path, m)
    from_env, from_option = self_signed_ca(tmp_path / "env.pem"), self_signed_ca(tmp_path / "option.pem")
    env = {"TFENV_CONFIG": str(tmp_path / "none.toml"), "TFENV_CA_CERT": str(tmp_path / "env.pem")}
    copy = tmp_path / ".devcontainer" / "extra-ca.crt"
    result = tfenv("devcontainer", cwd=tmp_path, env=env, clean_env=True)
    assert result.returncode == 0, result.stderr
    assert copy.read_bytes() == from_env
    assert (f"wrote .devcontainer/extra-ca.crt (a copy of {tmp_path / 'env.pem'}, from TFENV_CA_CERT): its build "
            "trusts it, the image does not keep it") in result.stdout.splitlines()
    result = tfenv("devcontainer", "--ca-cert", str(tmp_path / "option.pem"), cwd=tmp_path, env=env, clean_env=True)
    assert result.returncode == 0 and copy.read_bytes() == from_option, result.stderr
    assert "from --ca-cert)" in result.stdout
    result = tfenv("devcontainer", cwd=tmp_path, env={"TFENV_CONFIG": env["TFENV_CONFIG"]}, clean_env=True)
    assert result.returncode == 0 and copy.read_bytes() == from_option, result.stderr
    assert result.stdout.splitlines()[-1].startswith("kept .devcontainer/extra-ca.crt (no --ca-cert given)")


def test_devcontainer_refuses_a_ca_cert_that_is_no_certificate_and_writes_nothing(tmp_path, m):
    described(tmp_path, m)
    (tmp_path / "key.txt").write_text("not a certificate\n", encoding="utf-8")
    result = tfenv("devcontainer", "--ca-cert", str(tmp_path / "key.txt"), cwd=tmp_path,
                   env={"TFENV_CONFIG": str(tmp_path / "none.toml")}, clean_env=True)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "not a PEM certificate" in result.stderr and not (tmp_path / ".devcontainer").exists()


def test_the_schema_check_can_fail(schema_validator):
    assert list(schema_validator.iter_errors({"image": "x", "hostRequirements": {"gpu": "sometimes"}}))
    assert list(schema_validator.iter_errors({"image": "x", "forwardPorts": "8888"}))
    assert list(schema_validator.iter_errors({"image": "x", "remoteUsr": "tf"}))  # unknown keys are refused


@pytest.mark.parametrize("args, says", [
    (["build", "--os", "ubuntu20.04"], "--os does not apply to a project's image"),
    (["build", "--jupyter"], "--jupyter does not apply to a project's image"),
    (["build", "--push"], "--push is for environment images"),
    (["run", "--os", "debian11", "--", "python"], "--os does not apply in a project folder"),
])
def test_options_a_project_decides_are_refused_in_one_line(tmp_path, args, says):
    write(tmp_path, "environment: tf29\nos: debian11\n")
    result = tfenv(*args, cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith(f"tfenv: error: {says}"), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
