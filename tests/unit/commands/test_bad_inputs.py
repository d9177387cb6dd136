"""A sweep of several hundred bad inputs through `builder.cli.main`, in-process.

Each case must end with a documented exit status (never 70, the internal-error one), no traceback, an
error on the last line of stderr, and nothing left behind in the working folder. Docker is pointed at a
socket where nothing listens, so a case that gets as far as Docker fails in one line and starts nothing.
"""

from __future__ import annotations

import copy
import os
import tempfile
from pathlib import Path

import pytest
import yaml

from builder import cli
from builder.core import exitcodes, paths
from tests.helpers import ROOT

MATRIX = yaml.safe_load((ROOT / "matrix.yaml").read_text(encoding="utf-8"))
LONG = "x" * 300
WRONG = [None, 0, -1, 1.5, True, [], {}, "", "3.²", "2022-13-45", "Bad Ref!!", LONG, [1, [2]], {"a": {"b": 1}}]


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """An empty working folder, no user config, no TFENV_* settings, Docker at a dead socket."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for name in list(os.environ):
        if name.startswith("TFENV_") or name in ("PIP_INDEX_URL", "DOCKER_HOST", "DOCKER_TLS_VERIFY"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TFENV_CONFIG", str(tmp_path / "no-config.toml"))
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    # As a non-editable install: no checkout unless the current folder is in one (render, lock write there).
    monkeypatch.setattr(paths, "_package_checkout", lambda: None)
    monkeypatch.setattr(paths, "_checkout_data", None)
    # Temporary folders go where the test can count them.
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return work


def invoke(argv, capsys) -> tuple[int, str, str]:
    try:
        cli.main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def assert_handled(code: int, out: str, err: str, allow_ok: bool = False) -> None:
    allowed = {exitcodes.CHECKS_FAILED, exitcodes.BAD_INPUT} | ({exitcodes.OK} if allow_ok else set())
    assert "Traceback" not in out + err, err
    assert "internal error" not in err, err
    assert code in allowed, (code, err)
    if code:
        last = err.strip().splitlines()[-1] if err.strip() else ""
        assert last.startswith(("tfenv: error:", "Error:")), err


def snapshot(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


# --- bad matrix files ------------------------------------------------------------------------------


def _set(data: dict, path: tuple, value):
    node = data
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value


_DELETE = object()


def _matrix_mutations():
    env = next(iter(MATRIX["envs"]))
    os_name = next(iter(MATRIX["os"]))
    cuda = next(iter(MATRIX["cuda"]))
    paths = [(k,) for k in MATRIX]
    paths += [("envs", env, k) for k in MATRIX["envs"][env]]
    paths += [("os", os_name, k) for k in MATRIX["os"][os_name]]
    paths += [("cuda", cuda, k) for k in MATRIX["cuda"][cuda]]
    paths += [("image", k) for k in MATRIX["image"]]
    paths += [("wsl", k) for k in MATRIX.get("wsl", {})]
    for path in paths:
        for value in [_DELETE, None, 7, "", "3.²", [], {"x": 1}]:
            shown = "deleted" if value is _DELETE else repr(value)
            yield pytest.param(path, value, id=f"{'.'.join(map(str, path))}={shown}"[:80])


@pytest.mark.parametrize(("path", "value"), list(_matrix_mutations()))
def test_matrix_mutation(path, value, sandbox, capsys):
    data = copy.deepcopy(MATRIX)
    _set(data, path, value)
    matrix = sandbox / "m.yaml"
    matrix.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    for command in (["matrix", "--json"], ["show", next(iter(MATRIX["envs"]))]):
        assert_handled(*invoke(["--matrix", str(matrix), *command], capsys), allow_ok=True)


_REAL = (ROOT / "matrix.yaml").read_text(encoding="utf-8")


def _raw(text: str, encoding: str = "utf-8") -> bytes:
    return text.encode(encoding)


def _sub(old: str, new: str) -> bytes:
    """The shipped matrix with its first `old` replaced (which must be there, or the case tests nothing)."""
    assert old in _REAL, old
    return _REAL.replace(old, new, 1).encode("utf-8")
RAW_MATRICES = {
    "empty": b"",
    "null": b"null\n",
    "a list": b"- 1\n- 2\n",
    "a scalar": b"42\n",
    "document separator only": b"---\n",
    "two documents": b"schema: 1\n---\nschema: 2\n",
    "binary": bytes(range(256)),
    "nul bytes": b"schema: 1\x00\n",
    "latin-1": "schema: 1\nimage: caf\xe9\n".encode("latin-1"),
    "utf-16 without bom": _REAL.encode("utf-16-le"),
    "utf-16 bom, broken": b"\xff\xfe" + b"\x00\xd8",  # a lone surrogate
    "utf-32 bom, broken": b"\xff\xfe\x00\x00" + b"\xff\xff\xff\xff",
    "deep lists": b"a: " + b"[" * 5000 + b"]" * 5000,
    "deep maps": b"a: " + b"{b: " * 3000 + b"1" + b"}" * 3000,
    "deep block": "".join(f"{'  ' * i}k{i}:\n" for i in range(200)).encode(),
    "duplicate top key": _raw(_REAL + "\nschema: 1\n"),
    "duplicate env": _sub("\n  tf22:\n", "\n  tf22-cuda101:\n    tensorflow: 2.2.3\n  tf22:\n"),
    "duplicate in flow": b"{a: 1, a: 2}\n",
    "list as key": b"? [1, 2]\n: 3\n",
    "map as key": b"? {a: 1}\n: 3\n",
    "python tag": b"!!python/object/apply:os.system ['true']\n",
    "bad timestamp tag": b"a: !!timestamp 2022-13-45\n",
    "bad int tag": b"a: !!int abc\n",
    "bad float tag": b"a: !!float abc\n",
    "bad binary tag": b"a: !!binary '%%%'\n",
    "unknown tag": b"a: !nope 1\n",
    "merge of scalar": b"a: &x 1\nb:\n  <<: *x\n",
    "undefined alias": b"a: *nope\n",
    "tabs": b"a:\n\tb: 1\n",
    "unclosed quote": b"a: 'abc\n",
    "unclosed flow": b"a: [1, 2\n",
    "lone colon": b":\n",
    "control char": b"a: \x07\n",
    "alias bomb": b"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                  b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
    "over the size limit": b"# " + b"x" * (1 << 20) + b"\n",
    "lock_date invalid": _sub('lock_date: "2021-06-30"', "lock_date: 2022-13-45"),
    "lock_date invalid, quoted": _sub('lock_date: "2021-06-30"', 'lock_date: "2022-02-30"'),
    "lock_date timestamp": _sub('lock_date: "2021-06-30"', "lock_date: 2021-06-30 10:00:00"),
    "lock_date compact": _sub('lock_date: "2021-06-30"', "lock_date: '20210630'"),
    "lock_date integer": _sub('lock_date: "2021-06-30"', "lock_date: 20210630"),
    "integer env name": _sub("\n  tf22:\n", "\n  22:\n"),
    "superscript version": _sub('tensorflow: "2.2.3"', "tensorflow: '3.²'"),
    "arabic-indic version": _sub('tensorflow: "2.2.3"', "tensorflow: '\u0662.\u0662'"),
    "float version": _sub('tensorflow: "2.2.3"', "tensorflow: 2.2"),
    "schema true": _sub("schema: 1", "schema: true"),
    "duplicate image block": _sub("\nimage:\n", "\nimage:\n  user: root\nimage:\n"),
}


@pytest.mark.parametrize("name", list(RAW_MATRICES))
def test_raw_matrix_file(name, sandbox, capsys):
    matrix = sandbox / "m.yaml"
    matrix.write_bytes(RAW_MATRICES[name])
    code, out, err = invoke(["--matrix", str(matrix), "matrix", "--json"], capsys)
    assert_handled(code, out, err)
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null", "/dev/urandom", "/proc/self/mem", "/etc/shadow-nope",
                                  "/", ".", "..", "x" * 300, "a/" * 2000 + "m.yaml", "\u00e9t\u00e9.yaml",
                                  "/root/../../nope.yaml"])
def test_matrix_path(path, sandbox, capsys):
    assert_handled(*invoke(["--matrix", path, "matrix"], capsys))


def test_matrix_fifo_does_not_block(sandbox, capsys):
    fifo = sandbox / "m.fifo"
    os.mkfifo(fifo)
    assert_handled(*invoke(["--matrix", str(fifo), "matrix"], capsys))


# --- bad options, command by command ------------------------------------------------------------------

BAD_REFS = ["", " ", "Bad Repo", "Bad Ref!!", "UPPER/case", "a//b", "/lead", "trail/", "a:b:c", "x:", "x@sha256:12",
            "-dash", "a___b", "é/x", "x" * 300, "host:port:/x", "a b:c", "ok:" + "t" * 200, "@sha256:" + "a" * 64,
            "x@", "tfenv/tensorflow:.tag", "tfenv/tensorflow:-tag"]
EMPTYISH = ["", " ", "\t"]
BAD_VOLUMES = ["", ":", "::", "/tmp", "rel:/x", "/tmp:rel", "/tmp:/x:rw:extra", "/tmp:/x:nope", "/no/such/tfenv:/x",
               "/tmp::/x", ":/x", "/tmp:", "C:", "/tmp:/x:ro:ro"]
BAD_ENVS = ["", "=", "=x", "NOPE", "1X=2", "A B=1", "é=1"]
UNKNOWN_NAMES = ["tf-29", "TF29", "tf2.9", "", " ", "tf29 ", "é", "x" * 300, "../tf29", "-", "tf29\n"]
RO = [] if os.geteuid() == 0 else ["ro/x", "ro/sub/x"]  # root writes into read-only folders


def _cases():
    cases = []
    # image references, before any Docker call
    for ref in BAD_REFS:
        cases += [["run", "tf29", "--repo", ref, "--", "true"], ["test", "--image", ref],
                  ["test", "tf29", "--repo", ref], ["build", "tf29", "--base-image", ref],
                  ["build", "tf29", "--repo", ref, "--no-pull"], ["base", "debian11", "--tag", ref],
                  ["show", "tf29", "--repo", ref], ["ci", "matrix", "--repo", ref], ["bake", "--repo", ref]]
    # empty values are not "unset"
    for value in EMPTYISH:
        cases += [["run", "tf29", "--os", value, "--", "true"], ["render", "--os", value, "--out", "out"],
                  ["wsl", "tf29", "--distro", value], ["doctor", "--env", value], ["build", "tf29", "--os", value],
                  ["test", "tf29", "--os", value], ["show", "tf29", "--os", value], ["ci", "matrix", "--os", value],
                  ["bake", "--os", value], ["run", "tf29", "--name", value, "--", "true"]]
    for volume in BAD_VOLUMES:
        cases.append(["run", "tf29", "-v", volume, "--", "true"])
    for env in BAD_ENVS:
        cases.append(["run", "tf29", "-e", env, "--", "true"])
    for name in UNKNOWN_NAMES:
        cases += [["show", name], ["run", name, "--", "true"], ["build", name], ["test", name], ["wsl", name],
                  ["windows", name],
                  ["doctor", "--env", name], ["render", name, "--out", "out"], ["lock", name], ["ci", "matrix", name],
                  ["bake", name]]
    # options that only apply with others, or exclude each other
    cases += [["run", "tf29", "--port", "9000", "--", "true"], ["run", "tf29", "--detach", "--", "true"],
              ["run", "tf29", "--build", "--", "true"], ["run", "tf29", "--bind", "0.0.0.0", "--", "true"],
              ["run", "tf29", "--ca-cert", "x.pem", "--", "true"], ["run", "tf29", "--jupyter", "--", "python"],
              ["run", "tf29", "--jupyter", "--bind", "everywhere"], ["run", "tf29", "--jupyter", "--bind", ""],
              ["run", "tf29", "--jupyter", "--port", "0"], ["run", "tf29", "--jupyter", "--port", "70000"],
              ["run", "tf29", "--jupyter", "--port", "-1"], ["run", "tf29", "--jupyter", "--port", "x"],
              ["run", "tf29", "--gpus", "some", "--", "true"], ["run", "tf29", "--pip-index-url", "x", "--", "true"],
              ["matrix", "--json", "--yaml"], ["matrix", "--json", "--yaml", "--markdown"],
              ["matrix", "--yaml", "--markdown"], ["render", "tf29", "--all", "--out", "out"], ["stop"],
              ["stop", "x", "--all"], ["test"], ["test", "tf29", "--gpus", "maybe"], ["base", "debian12"],
              ["base", "debian11", "--mirror", "not a url"], ["base", "debian11", "--mirror", ""],
              ["nope"], ["--matrix"], ["run"], ["run", "tf29", "--os", "debian12", "--", "true"],
              ["render", "--os", "debian12", "--out", "out"], ["show", "tf29", "--os", "nope"],
              ["ci", "matrix", "--os", "nope"], ["ci", "nope"], ["wsl", "tf29", "--distro", "Nope-1.0"],
              ["build", "tf29", "--pip-index-url", "ftp://x"], ["build", "tf29", "--apt-mirror", ""],
              ["build", "tf29", "--pip-index-url", "https://pypi.example.org/ simple"], ["config", "--yaml"]]
    # files: special, missing, unwritable, too long, the same path twice
    for target in ["/dev/null", "/dev/zero", "/dev/full", "/sys/x", "/proc/x", "/no/such/tfenv-dir/x", "x" * 300,
                   ".", "/", "", "ro", "a/" * 2000 + "x", "not-pem.txt/x"] + RO:
        cases += [["wsl", "tf29", "-o", target], ["windows", "tf29", "-o", target], ["bake", "-o", target],
                  ["doctor", "--write-standalone", target],
                  ["doctor", "--write-facts", target], ["test", "tf29", "--junit-xml", target]]
    for folder in ["/dev/null", "/dev/zero", "/sys/x", "/proc/x", "x" * 300, "", "not-pem.txt", "a/" * 2000 + "x"] + RO:
        cases += [["render", "--out", folder], ["render", "tf29", "--out", folder]]
    cases += [["doctor", "--write-standalone", "same.py", "--write-facts", "same.py"],
              ["doctor", "--write-standalone", "a.py", "--write-facts", "/no/such/tfenv-dir/x.json"],
              ["doctor", "--write-standalone", "/no/such/tfenv-dir/a.py", "--write-facts", "f.json"],
              ["doctor", "--write-standalone", "a.py", "--write-facts", "./a.py"]]
    for cert in ["/dev/zero", "/dev/null", "/no/such.pem", ".", "ro", "not-pem.txt", "x" * 300]:
        cases.append(["build", "tf29", "--ca-cert", cert, "--no-pull"])
    # logs to explain that are not logs
    for log in ["/dev/zero", "/no/such.log", ".", "ro", "x" * 300, "not-pem.txt/x"]:
        cases.append(["explain", log])
    cases += [["explain", "not-pem.txt", "--platform", "mac"], ["explain", "not-pem.txt", "--platform", ""]]
    # projects: init and devcontainer
    cases += [["init", "tf-29"], ["init", "tf29", "--os", ""], ["init", "tf29", "--os", "debian12"],
              ["devcontainer"], ["devcontainer", "--repo", "Bad Repo"], ["build"], ["test"], ["shell", "nope"]]
    # checks that need a checkout, outside one
    cases += [["render", "--check"], ["bake", "--check"], ["lock", "tf29"], ["render"]]
    return cases


CASES = _cases()


@pytest.fixture
def junk(sandbox):
    """Inputs some cases name: a read-only folder, a file that is not PEM."""
    ro = sandbox / "ro"
    ro.mkdir()
    (sandbox / "not-pem.txt").write_text("hello\n")
    ro.chmod(0o555)
    yield sandbox
    ro.chmod(0o755)


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(c)[:70] for c in CASES])
def test_bad_option(argv, junk, capsys):
    before = snapshot(junk)
    code, out, err = invoke(argv, capsys)
    assert_handled(code, out, err)
    assert snapshot(junk) == before, "left something behind"
    assert os.listdir(tempfile.gettempdir()) == [], "left a temporary folder behind"


def test_sweep_is_several_hundred():
    assert len(CASES) + len(RAW_MATRICES) + len(list(_matrix_mutations())) >= 300
