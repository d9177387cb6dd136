"""Choosing the language (--lang, else the locale, else Windows' UI language) and showing it: the wrapping of
Chinese text, doctor's report on fake hosts, `tfenv doctor --lang`, and the standalone doctor under Python 3.6."""

from __future__ import annotations

import re
import subprocess
import textwrap
import zipfile

import pytest
import yaml

from builder import diagnose, doctor
from builder.diagnose import i18n
from builder.matrix.facts import facts_from_matrix
from tests.fakes import hosts
from tests.fakes.windows_ui import no_ui_language, ui_language
from tests.helpers import ROOT, UNIT, matrix, tfenv
from tests.unit.doctor.test_doctor_cli import _python, standalone  # noqa: F401  (the fixture)

CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")  # CJK characters and full-width punctuation
NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": ""}


@pytest.mark.parametrize("environ, expected", [
    ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
    ({"LANG": "zh_CN"}, "zh-CN"),
    ({"LANG": "zh_CN.GB18030"}, "zh-CN"),
    ({"LC_MESSAGES": "zh-Hans"}, "zh-CN"),
    ({"LC_ALL": "zh_Hans_CN.UTF-8"}, "zh-CN"),
    ({"LANG": "zh_SG.UTF-8"}, "zh-CN"),
    ({"LANG": "zh"}, "zh-CN"),
    ({"LANG": "zh_TW.UTF-8"}, "en"),  # Traditional Chinese: no catalogue, English
    ({"LANG": "zh-Hant"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL decides when set
    ({"LC_ALL": "", "LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh-CN"),  # empty counts as unset
    ({}, "en"),
])
def test_locale_chooses_the_language(environ, expected):
    assert i18n.choose_language(None, environ, windows_ui=ui_language(0x0409)) == expected


def test_lang_option_wins_and_windows_ui_language_comes_last():
    assert i18n.choose_language("en", {"LANG": "zh_CN.UTF-8"}) == "en"
    assert i18n.choose_language("zh-CN", {"LANG": "en_US.UTF-8"}) == "zh-CN"
    assert i18n.choose_language(None, {}, windows_ui=ui_language(0x0804)) == "zh-CN"  # Chinese (PRC)
    assert i18n.choose_language(None, {}, windows_ui=ui_language(0x1004)) == "zh-CN"  # Chinese (Singapore)
    assert i18n.choose_language(None, {}, windows_ui=ui_language(0x0404)) == "en"  # Chinese (Taiwan)
    assert i18n.choose_language(None, {}, windows_ui=no_ui_language()) == "en"
    assert i18n.choose_language(None, {"LANG": "en_GB.UTF-8"}, windows_ui=ui_language(0x0804)) == "en"


def test_using_sets_the_language_for_a_command_and_restores_it():
    assert i18n.language() == "en"
    with pytest.raises(SystemExit), i18n.using("zh-CN"):
        assert i18n.t("no check failed") == "所有检查均通过"
        raise SystemExit(1)
    assert i18n.language() == "en" and i18n.t("no check failed") == "no check failed"


def test_english_wrapping_is_textwraps():
    text = "install the CUDA 11.2 toolkit and add its bin folder to PATH, then open a new terminal " * 3
    assert i18n.wrap(text, 40, "   fix: ", " " * 8) == textwrap.wrap(text, 40, initial_indent="   fix: ",
                                                                      subsequent_indent=" " * 8)


def test_chinese_lines_fit_the_columns_and_never_split_a_command():
    text = ("安装 CUDA 11.2 工具包并把它的 bin 文件夹加入 PATH（C:\\Program Files\\NVIDIA GPU Computing Toolkit"
            "\\CUDA\\v11.2\\bin），然后打开新的终端，用 `where cudart64_110.dll` 检查；`tfenv doctor --env tf29` "
            "随后检查这台机器。" * 2)
    with i18n.using("zh-CN"):
        lines = i18n.wrap(text, 60, "   解决: ", " " * 9)
    assert len(lines) > 3
    assert all(i18n.columns(line) <= 60 for line in lines), [i18n.columns(line) for line in lines]
    assert not any(line.strip()[0] in "，。；：）" for line in lines)
    for word in set(re.findall(r"[\x21-\x7e]+", text)):  # commands, paths, file names: each on one line
        assert any(word in line for line in lines), word
    assert "".join(lines).replace(" ", "") == ("解决:" + text).replace(" ", "")  # nothing lost or added


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


@pytest.mark.parametrize("make_host", [hosts.old_driver_host, hosts.cuda102_host, hosts.windows_cudart102_host,
                                       lambda root: hosts.wsl_host(root, linux_driver=True),
                                       lambda root: hosts.wsl_host(root, dxg=False), hosts.linux_host])
def test_doctor_speaks_chinese_in_every_check(tmp_path, facts, make_host):
    host = make_host(tmp_path)
    with i18n.using("zh-CN"):
        report = doctor.diagnose(facts, host, "tf22" if make_host is hosts.cuda102_host else "tf29")
        text = doctor.format_text(report, facts)
    english = [(c.id, c.message, c.fix) for c in report.checks
               if not CJK.search(c.message) or (c.fix and c.fix[0].isalpha() and not CJK.search(c.fix))]
    assert not english, english
    assert text.startswith("tfenv doctor：") and CJK.search(text.splitlines()[-1])


def test_tfenv_doctor_and_explain_take_lang_and_the_locale():
    zh = tfenv("doctor", "--env", "tf29", "--lang", "zh-CN")
    assert zh.returncode in (0, 1), zh.stderr
    assert zh.stdout.startswith("tfenv doctor：tf29（TensorFlow 2.9.3") and "检查" in zh.stdout.splitlines()[-1]
    by_locale = tfenv("doctor", "--env", "tf29", env={**NO_LOCALE, "LANG": "zh_CN.UTF-8"})
    assert by_locale.stdout.splitlines()[0] == zh.stdout.splitlines()[0]
    english = tfenv("doctor", "--env", "tf29", env={**NO_LOCALE, "LANG": "zh_CN.UTF-8", "LC_ALL": "C.UTF-8"})
    assert english.stdout.startswith("tfenv doctor: tf29 (TensorFlow 2.9.3")
    bad = tfenv("explain", "--lang", "fr", "-", input="x\n")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "'fr' is not one of" in bad.stderr


def test_standalone_carries_the_catalogue_and_speaks_chinese_on_python36(standalone, tmp_path):  # noqa: F811
    with zipfile.ZipFile(standalone) as z:
        assert "builder/diagnose/locale/zh-CN.json" in z.namelist()
    python = _python("3.6")
    env = {"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"}  # 3.6 writes UTF-8 only under a UTF-8 locale
    result = subprocess.run([python, "-S", "-I", str(standalone), "--env", "tf22", "--lang", "zh-CN"],
                            capture_output=True, cwd=tmp_path, env=env)
    out = result.stdout.decode("utf-8")
    assert result.returncode in (0, 1), result.stderr
    assert out.startswith("tfenv doctor：tf22（TensorFlow 2.2.3") and CJK.search(out.splitlines()[-1])
    bad = subprocess.run([python, "-S", "-I", str(standalone), "--lang", "fr"], capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice: 'fr'" in bad.stderr


README_ZH = ROOT / "README.zh-CN.md"


def _blocks(text, kind=None):
    """The fenced code blocks of a Markdown text ((language, body) pairs), of one language when given."""
    found = re.findall(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S)
    return [(lang, body) for lang, body in found if kind is None or lang == kind]


def test_readme_zh_cn_is_linked_and_keeps_the_commands():
    readme, zh = (ROOT / "README.md").read_text(encoding="utf-8"), README_ZH.read_text(encoding="utf-8")
    assert "(README.zh-CN.md)" in "\n".join(readme.splitlines()[:5])
    commands = [line for lang, body in _blocks(zh) if lang != "text" for line in body.splitlines()]
    assert len(commands) > 10
    assert [c for c in commands if c not in readme] == []  # the same commands, comments and all
    for heading in ("## 快速开始", "## Windows 不用 Docker：WSL2", "## 原生 Windows", "## 解释错误日志：tfenv explain"):
        assert heading in zh


@pytest.mark.parametrize("kind", ["windows", "wsl"])
def test_readme_zh_cn_exit_codes_are_the_scripts(kind):
    from builder.render import dockerfiles

    zh = README_ZH.read_text(encoding="utf-8")
    table = zh.split(f"<!-- exit codes of {kind}/ENV/setup.ps1 -->", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| (\d+) \| (.+) \|$", table, re.M)
    assert [code for code, _ in rows] == [str(r["code"]) for r in dockerfiles.exit_codes(kind)]
    assert all(CJK.search(meaning) for _, meaning in rows)


def test_readme_zh_cn_example_is_what_explain_prints(facts):
    """The example answer in README.zh-CN.md is today's output for that log (tensorflow/tensorflow#42354)."""
    case = yaml.safe_load((UNIT / "explain_corpus" / "035-win-tf23-cudart64-101-1050ti.yaml").read_text("utf-8"))
    with i18n.using("zh-CN"):
        printed = diagnose.format_text(diagnose.explain(case["log"], facts))
    [(_, example)] = _blocks(README_ZH.read_text(encoding="utf-8"), "text")
    assert example == printed


def test_chinese_findings_join_their_sentences_with_chinese_punctuation():
    joined = "没有用（见上文）; cuDNN 7.6 也要配套安装。 CUDA 11.2 已装; `python -c \"import a; print(a)\"`; 之后 a; b"
    with i18n.using("zh-CN"):
        assert i18n.punctuate(joined) == ("没有用（见上文）；cuDNN 7.6 也要配套安装。CUDA 11.2 已装；"
                                          "`python -c \"import a; print(a)\"`；之后 a; b")
    assert i18n.punctuate(joined) == joined  # English (and any other language): as the rules wrote it


def test_unreadable_input_is_one_chinese_line(tmp_path):
    binary = tmp_path / "bin.log"
    binary.write_bytes(b"\x00\x01\x02\x03" * 64)
    for path, words in ((binary, "二进制"), (tmp_path, "文件夹"), (tmp_path / "gone.log", "不存在")):
        result = tfenv("explain", "--lang", "zh-CN", str(path))
        assert result.returncode == 2 and result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
