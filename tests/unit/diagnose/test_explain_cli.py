"""`tfenv explain` from the command line: files, stdin, --json, overrides, exit codes, and input that is no
log at all (empty, binary, huge, not UTF-8, UTF-16 with a BOM, a directory, a missing file): one line and
exit 2 or a report, never a traceback."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from tests.helpers import UNIT, tfenv

CORPUS = UNIT / "explain_corpus"
WIN_LOG = (
    "2020-07-30 16:17:56.453813: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
    "dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\r\n"
)
LINUX_LOG = (
    "2022-06-09 15:50:37.711160: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
    "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such "
    "file or directory\n"
)


def explain(*args, stdin=None):
    result = tfenv("explain", *args, input=stdin, text=False)
    result.out = result.stdout.decode("utf-8")
    result.err = result.stderr.decode("utf-8")
    assert "Traceback" not in result.err, result.err
    return result


def test_file_text_report_quotes_evidence_with_line_numbers(tmp_path):
    log = tmp_path / "log.txt"
    log.write_text("noise\n" + WIN_LOG, encoding="utf-8")
    result = explain(str(log))
    assert result.returncode == 0, result.err
    assert "[missing-cuda-runtime]" in result.out
    assert "line 2: " in result.out and "cudart64_101.dll" in result.out
    assert "v10.1\\bin" in result.out and "LD_LIBRARY_PATH" not in result.out
    assert "tfenv windows" in result.out


def test_stdin_dash_and_piped_without_argument():
    for args in (["-"], []):
        result = explain(*args, stdin=LINUX_LOG.encode())
        assert result.returncode == 0, result.err
        assert "[missing-cuda-runtime]" in result.out and "LD_LIBRARY_PATH" in result.out
        assert ".dll" not in result.out


def test_json_schema():
    result = explain("--json", "-", stdin=LINUX_LOG.encode())
    assert result.returncode == 0
    data = json.loads(result.out)
    assert data["schema"] == 1 and data["explained"] is True and data["lines"] == 1 and data["next"] is None
    # a Linux library name alone: Linux or WSL (both load libcudart.so.11.0), not "Linux"
    assert data["context"]["platform"] is None and data["context"]["posix"]["value"] is True
    # the newest line that loads these names, and its environment
    assert data["context"]["tf"] is None and data["context"]["tf_candidates"][0] == "2.10"
    assert data["context"]["envs"][0] == "tf210"
    top = data["findings"][0]
    assert set(top) == {"id", "title", "harmless", "evidence", "cause", "fix", "tfenv"}
    assert top["id"] == "missing-cuda-runtime" and top["harmless"] is False
    assert top["evidence"] == [{"line": 1, "text": LINUX_LOG.strip()}]
    assert "tfenv run tf210" in top["tfenv"]


def test_overrides_change_the_advice():
    line = "Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file\n"
    data = json.loads(explain("--json", "--tf", "2.4.1", "-", stdin=line.encode()).out)
    assert data["context"]["tf"]["value"] == "2.4" and data["context"]["envs"] == ["tf24"]
    assert "cuDNN 8.0" in data["findings"][0]["title"]
    wsl = json.loads(explain("--json", "--platform", "wsl2", "-", stdin=line.encode()).out)
    assert "tfenv wsl" in wsl["findings"][0]["tfenv"]


def test_nothing_recognised_exits_1_and_names_the_deciding_facts():
    result = explain("-", stdin=b"Epoch 1/10\n  32/60000 [..............................] - ETA: 5:12 - loss: 2.3\n")
    assert result.returncode == 1
    assert "nvidia-smi" in result.out and "tfenv doctor --json" in result.out
    data = json.loads(explain("--json", "-", stdin=b"hello\n").out)
    assert data["explained"] is False and data["findings"] == [] and "nvidia-smi" in data["next"]


def test_utf16_with_bom_as_powershell_writes_it(tmp_path):
    log = tmp_path / "ps51.txt"
    log.write_bytes(codecs.BOM_UTF16_LE + WIN_LOG.encode("utf-16-le"))
    result = explain(str(log))
    assert result.returncode == 0 and "[missing-cuda-runtime]" in result.out


def test_non_utf8_and_typographic_quotes(tmp_path):
    log = tmp_path / "cp1252.txt"
    log.write_bytes("Could not load dynamic library \u2018libcusolver.so.10\u2019; caf\xe9\n".encode("cp1252",
                                                                                                  "replace"))
    result = explain(str(log))
    assert result.returncode in (0, 1)
    log.write_bytes("\u201cCould not load dynamic library \u2018libcusolver.so.10\u2019;\n".encode())
    assert "[tf24-cusolver]" in explain(str(log)).out


@pytest.mark.parametrize("content,why", [
    (bytes(range(256)) * 64, "looks binary"),
    (b"\x7fELF\x02\x01\x01" + b"\x00" * 4000, "looks binary"),
])
def test_binary_input_is_one_line_exit_2(tmp_path, content, why):
    path = tmp_path / "blob"
    path.write_bytes(content)
    result = explain(str(path))
    assert result.returncode == 2 and why in result.err and len(result.err.strip().splitlines()) == 1


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_endless_device_stops_at_the_first_block():
    result = explain("/dev/zero")
    assert result.returncode == 2 and "looks binary" in result.err


def test_empty_directory_and_missing_file(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert explain(str(empty)).returncode == 1
    for path, why in ((tmp_path, "is a directory"), (tmp_path / "nope.txt", "no such file")):
        result = explain(str(path))
        assert result.returncode == 2 and why in result.err and result.out == ""


def test_100_mb_log(tmp_path):
    path = tmp_path / "big.log"
    block = ("I tensorflow/core/common_runtime/gpu/gpu_device.cc:1510] Created device with 3000 MB memory\n" * 1000)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(1100):  # about 100 MB
            f.write(block)
        f.write(LINUX_LOG)
        f.write("x" * 5_000_000 + "\n")  # one absurdly long line
    result = explain("--json", str(path))
    assert result.returncode == 0, result.err
    assert json.loads(result.out)["findings"][0]["id"] == "missing-cuda-runtime"


def test_every_corpus_file_runs_through_the_cli():
    result = explain("--json", str(CORPUS / "022-wsl1-directml-kernel-microsoft-libcuda.yaml"))
    assert json.loads(result.out)["findings"][0]["id"] == "wsl1"
