"""`tfenv render --check`: passes on the committed renders, fails after a one-value matrix edit."""

from __future__ import annotations

import shutil

from tests.helpers import ROOT, invoke, matrix


def _check(checkout, matrix_file=None):
    return invoke("render", "--check", "--out", str(checkout), matrix_file=matrix_file or checkout / "matrix.yaml")


def test_committed_renders_match_the_matrix(checkout_copy):
    result = _check(checkout_copy)
    assert result.exception is None, result.output
    assert "rendered files match matrix.yaml" in result.output


def test_one_value_edit_is_drift(checkout_copy):
    path = checkout_copy / "matrix.yaml"
    path.write_text(path.read_text().replace('libcudart11.0: "11.2.152~11.2.2-3+deb11u3"',
                                             'libcudart11.0: "11.2.152~11.2.2-3+deb11u4"'))
    result = _check(checkout_copy)
    assert result.exception is not None
    assert "rendered file(s) differ from matrix.yaml" in str(result.exception)
    assert "dockerfiles/tf29/debian11/Dockerfile: differs from matrix.yaml" in result.output


def test_stale_render_is_drift(checkout_copy):
    stale = checkout_copy / "dockerfiles" / "tf21" / "debian11"
    stale.mkdir(parents=True)
    shutil.copy(checkout_copy / "dockerfiles" / "tf29" / "debian11" / "Dockerfile", stale / "Dockerfile")
    result = _check(checkout_copy)
    assert "dockerfiles/tf21/debian11/Dockerfile: stale" in result.output
    assert result.exception is not None


def test_readme_matrix_table_is_the_generated_one():
    """The README's table is derived from matrix.yaml too: regenerate it with `tfenv matrix --markdown`."""

    from builder.render import describe

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n", readme.index("<!-- matrix table:")) + 1
    assert readme[start:readme.index("<!-- end of matrix table -->")] == describe.markdown_table(matrix())
