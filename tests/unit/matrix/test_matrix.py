"""matrix.yaml loading and validation: every error is one line naming file, key path and expectation."""

from __future__ import annotations

import pytest

from builder.matrix import validate
from builder.matrix.model import MatrixError, UnknownEnvError


def test_shipped_matrix_loads_with_every_environment():
    m = validate.load()
    assert {"tf22", "tf22-cuda101", "tf23", "tf24", "tf25", "tf26", "tf27", "tf28", "tf29"} <= set(m.envs)
    tf29 = m.env("tf29")
    assert (tf29.tensorflow, tf29.cuda.version, tf29.cuda.full, tf29.cudnn) == ("2.9.3", "11.2", "11.2.2", "8.1")
    assert "libcudart.so.11.0" in tf29.sonames and "libcusolver.so.11" in tf29.sonames
    assert m.target("tf29", "debian11").python == "3.9"
    assert m.target("tf29", "debian11").cudnn_version == "8.6.0"


def test_tf22_carries_the_cudart_shim_and_cuda_10_2():
    tf22 = validate.load().env("tf22")
    assert tf22.cuda.version == "10.2"
    assert [(s.link, s.to) for s in tf22.shims] == [("libcudart.so.10.1", "libcudart.so.10.2")]
    assert validate.load().env("tf22-cuda101").cuda.version == "10.1"


def test_tf24_wants_the_cusolver_only_cuda_11_0_ships():
    tf24 = validate.load().env("tf24")
    assert tf24.cuda.version == "11.0" and "libcusolver.so.10" in tf24.sonames


def test_every_variant_python_is_inside_the_tf_range():
    m = validate.load()
    for target in m.targets():
        assert target.env.supports_python(target.python), target.key


def test_missing_key(matrix_data, write_matrix):
    del matrix_data["envs"]["tf29"]["cuda"]
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value) == "matrix.yaml: envs.tf29.cuda: missing required key"


def test_wrong_type(matrix_data, write_matrix):
    matrix_data["envs"]["tf29"]["os"] = "debian11"
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value) == "matrix.yaml: envs.tf29.os: expected a list, got a string"


def test_wrong_type_of_a_version(matrix_data, write_matrix):
    matrix_data["envs"]["tf29"]["tensorflow"] = 2.9
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value) == "matrix.yaml: envs.tf29.tensorflow: expected a non-empty string, got a float"


def test_unknown_cuda_version(matrix_data, write_matrix):
    matrix_data["envs"]["tf29"]["cuda"] = "11.3"
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value) == (
        "matrix.yaml: envs.tf29.cuda: unknown CUDA version '11.3'; did you mean '11.2'? "
        "(known: 10.1, 10.2, 11.0, 11.2)"
    )


def test_unknown_key_suggests_the_right_one(matrix_data, write_matrix):
    matrix_data["envs"]["tf29"]["cudnnn"] = "8.1"
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value) == "matrix.yaml: envs.tf29.cudnnn: unknown key (did you mean 'cudnn'?)"


def test_bad_yaml_names_line_and_column(write_matrix):
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix("schema: 1\nenvs:\n  tf29: [unclosed\n"))
    assert str(err.value).startswith("matrix.yaml:4:1: invalid YAML: ")


def test_variant_whose_python_tf_does_not_support(matrix_data, write_matrix):
    matrix_data["os"]["debian11"]["python"] = "3.11"
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value) == "matrix.yaml: envs.tf25.os[2]: debian11 has Python 3.11, outside TF 2.5.3's 3.7-3.9"


def test_debian_variant_needs_debian_cuda_packages(matrix_data, write_matrix):
    matrix_data["envs"]["tf24"]["os"].append("debian11")
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value) == (
        "matrix.yaml: envs.tf24.os[2]: CUDA 11.0 has no Debian packages (only CUDA 11.2 is in bullseye)"
    )


def test_cudnn_older_than_tf_was_built_with(matrix_data, write_matrix):
    matrix_data["envs"]["tf29"]["cudnn"] = "8.9"
    with pytest.raises(MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert "envs.tf29.cudnn: TF needs cuDNN 8.9.x" in str(err.value)


def test_unknown_environment_suggests_nearest():
    with pytest.raises(UnknownEnvError) as err:
        validate.load().env("tf-29")
    assert str(err.value).startswith("unknown environment 'tf-29'; did you mean 'tf29'? (known: tf22, ")


def test_unknown_os_variant_for_an_environment():
    with pytest.raises(UnknownEnvError) as err:
        validate.load().target("tf22", "debian11")
    assert str(err.value) == "tf22 has no OS variant 'debian11' (it has: ubuntu18.04, ubuntu20.04)"


def test_missing_file(tmp_path):
    with pytest.raises(MatrixError) as err:
        validate.load(tmp_path / "nope.yaml")
    assert str(err.value).endswith("nope.yaml: cannot read: No such file or directory")


@pytest.mark.parametrize("env, major_ok", [("tf210", lambda major: major >= 2), ("tf29", lambda major: major < 2)])
def test_flatbuffers_in_the_locks_follows_tensorflow(env, major_ok):
    """TF 2.10 requires flatbuffers>=2, TF 2.9 <2: every lock of each (Python 3.8 and 3.9) honours it."""
    from builder.render import lock

    m = validate.load()
    targets = [t for t in lock.lock_targets(m) if t.env.name == env]
    assert {t.python for t in targets} == {"3.8", "3.9"}
    for target in targets:
        for jupyter in (False, True):
            version = dict(lock.read(target, jupyter).pins)["flatbuffers"]
            assert major_ok(int(version.split(".")[0])), (target.key, jupyter, version)
