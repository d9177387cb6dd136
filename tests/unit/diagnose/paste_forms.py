"""How real pastes change a log on its way to `tfenv explain`: each transformation does what a named tool does.

Used by test_paste_forms.py (every scored corpus log must keep its verdict under each) and usable by hand:
`python -m tests.unit.diagnose.paste_forms` prints the logs that change verdict under each form."""

from __future__ import annotations

import codecs
import json
import re

from builder.diagnose.textio import decode


def _lines(text):
    return text.rstrip("\n").split("\n")


def _each(prefix):
    return lambda text: "\n".join(prefix + line for line in _lines(text)) + "\n"


def github_quote(text):
    """GitHub's "Quote reply" and e-mail clients: `> ` before every line."""
    return _each("> ")(text)


def nested_quote(text):
    """A reply to a reply (GitHub, mailing lists, Discourse): `>> ` and `> > `."""
    return "\n".join((">> " if i % 2 else "> > ") + line for i, line in enumerate(_lines(text))) + "\n"


def markdown_fence(text):
    """Markdown code fences as GitHub's issue template writes them, with a sentence before and after."""
    return "Here is the log:\n\n```shell\n" + text.rstrip("\n") + "\n```\n\nAny idea?\n"


def list_bullets(text):
    """A forum post that lists the lines as Markdown bullets (`- ` and `* `, with inline code backticks)."""
    return "\n".join(("- `" + line + "`") if i % 2 else ("* " + line) for i, line in enumerate(_lines(text))) + "\n"


def hard_wrap(width, mark=""):
    """A terminal's (xterm, GNOME Terminal, tmux copy-mode) hard wrap: a line longer than `width` is cut at the
    column, mid-word; `mark` is the trailing `\\` some copy tools (Emacs, less -S) leave at the cut."""
    cut = width - len(mark)

    def wrap(text):
        out = []
        for line in _lines(text):
            while len(line) > width:
                out.append(line[:cut] + mark)
                line = line[cut:]
            out.append(line)
        return "\n".join(out) + "\n"

    wrap.__name__ = f"wrap_{width}{'_backslash' if mark else ''}"
    wrap.__doc__ = hard_wrap.__doc__
    return wrap


def windows_console(text):
    """The legacy Windows console (conhost, 80 columns): a selection copied with the mouse is cut at the buffer's
    width mid-word and every row is padded with spaces to that width; line ends are CRLF."""
    rows = []
    for line in _lines(text):
        while len(line) > 80:
            rows.append(line[:80])
            line = line[80:]
        rows.append(line.ljust(80))
    return "\r\n".join(rows) + "\r\n"


def powershell_out_file(text):
    """Windows PowerShell 5.1's `python x.py 2>&1 | Out-File -Width 80 log.txt`: UTF-16 LE with a BOM, CRLF, lines
    cut at 80 columns; the first stderr line comes as a NativeCommandError record (read back through textio)."""
    lines = _lines(text)
    head = ["python.exe : " + lines[0], "At line:1 char:1", "+ python train.py 2>&1 | Out-File -Width 80 log.txt",
            "+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            "    + CategoryInfo          : NotSpecified: (:String) [], RemoteException",
            "    + FullyQualifiedErrorId : NativeCommandError", " "]
    rows = []
    for line in head + lines[1:]:
        while len(line) > 80:
            rows.append(line[:80])
            line = line[80:]
        rows.append(line)
    return decode(codecs.BOM_UTF16_LE + ("\r\n".join(rows) + "\r\n").encode("utf-16-le"))


def crlf(text):
    """A file written on Windows (Notepad, `>` in cmd.exe): CRLF line ends."""
    return text.replace("\n", "\r\n")


def cr_progress(text):
    """tqdm and Keras progress bars in a captured stream: `\\r` updates with no newline, the next message glued
    after the last update on the same line (every third message here; a message's indented continuation lines
    come in the same write, so nothing is glued before them)."""
    bar = "\r 10%|#         | 1/10 [00:01<00:09,  1.0it/s]\r 20%|##        | 2/10 [00:02<00:08,  1.0it/s]"
    keras = "\r 1/10 [==>...........................] - ETA: 5s - loss: 2.3026\r 2/10 [=====>...] - ETA: 4s"
    out = []
    for i, line in enumerate(_lines(text)):
        glue = "" if line[:1].isspace() else bar if i % 6 == 0 else keras if i % 3 == 0 else ""
        out.append(glue + line)
    return "\n".join(out) + "\n"


_ERROR_NAME = re.compile(r"^(\w*(?:Error|Exception|Warning))(: )")


def ansi_colours(text):
    """A terminal's colours kept in a capture (`script`, `docker logs` of a TTY, Python 3.13's coloured
    tracebacks): every line in red, an exception's name in bold magenta."""
    out = []
    for line in _lines(text):
        line = _ERROR_NAME.sub("\x1b[1;35m\\1\x1b[0m\\2\x1b[35m", line)
        out.append("\x1b[31m" + line + "\x1b[0m")
    return "\n".join(out) + "\n"


def utf8_bom(text):
    """Notepad's UTF-8 with a BOM, read as bytes by textio, and a second BOM where two files were concatenated."""
    lines = _lines(text)
    middle = len(lines) // 2
    body = "\n".join(lines[:middle] + ["\ufeff" + lines[middle]] + lines[middle + 1:]) + "\n"
    return decode(codecs.BOM_UTF8 + body.encode("utf-8"))


def web_spaces(text):
    """A copy from a rendered web page (Stack Overflow, CSDN, Zhihu): NBSP for spaces of indentation and after
    colons, zero-width spaces at line starts and after path separators (where the page allowed a break)."""
    out = []
    for line in _lines(text):
        indent = len(line) - len(line.lstrip(" "))
        line = "\u00a0" * indent + line[indent:]
        line = line.replace(": ", ":\u00a0").replace("/", "/\u200b")
        out.append("\u200b" + line)
    return "\n".join(out) + "\n"


def tab_indent(text):
    """A log indented with a tab (Markdown's indented code block, an e-mail client's quoting)."""
    return _each("\t")(text)


def jupyter_json(text):
    """A notebook's saved output pasted from the .ipynb file: each line a JSON string with `\\n`, escaped quotes
    and backslashes, ANSI colour codes written as `\\u001b` (IPython's rendered traceback)."""
    lines = _lines(text)
    head = ['   "outputs": [', "    {", '     "name": "stderr",', '     "output_type": "stream",', '     "text": [']
    body = ["      " + json.dumps("\x1b[0;31m" + line + "\x1b[0m\n") + "," for line in lines]
    return "\n".join(head + body + ["     ]", "    }"]) + "\n"


def jupyter_traceback(text):
    """IPython's rendered traceback in a notebook, copied as text: the header rule, the exception's name with
    `Traceback (most recent call last)`, the cell's frame with `---->`, ANSI kept (nbconvert --to markdown)."""
    head = ["\x1b[0;31m" + "-" * 75 + "\x1b[0m",
            "\x1b[0;31mImportError\x1b[0m                               Traceback (most recent call last)",
            "Cell \x1b[0;32mIn[3], line 1\x1b[0m", "\x1b[0;32m----> 1\x1b[0m \x1b[38;5;28;01mimport\x1b[39;00m "
            "\x1b[38;5;21;01mtensorflow\x1b[39;00m \x1b[38;5;28;01mas\x1b[39;00m \x1b[38;5;21;01mtf\x1b[39;00m", ""]
    return "\n".join(head) + "\n" + text


def colab_shell(text):
    """Colab's `!python train.py` cell: the command, then the program's output as the cell shows it."""
    return "!python train.py\n" + cr_progress(text)


def python_logging(text):
    """Python's logging.basicConfig(format='%(asctime)s - %(levelname)s - %(message)s') before every line."""
    return "\n".join(f"2021-03-01 10:00:{i % 60:02d},123 - WARNING - {line}"
                     for i, line in enumerate(_lines(text))) + "\n"


def compose_prefix(text):
    """`docker compose up` / `docker compose logs`: the service's name and a bar before every line."""
    return _each("trainer-1  | ")(text)


def docker_timestamps(text):
    """`docker logs -t`: an RFC 3339 timestamp with nanoseconds before every line."""
    return _each("2023-05-01T10:00:00.123456789Z ")(text)


def cri_log(text):
    """containerd / CRI-O log files (`kubectl logs` on a node's /var/log/pods): timestamp, stream and the F(ull)
    tag."""
    return _each("2023-05-01T10:00:00.123456789Z stderr F ")(text)


def journald(text):
    """`journalctl -u trainer`: syslog date, host, the unit's program and pid."""
    return _each("Dec 02 04:00:00 gpu-host python3[1234]: ")(text)


def logfmt_lines(text):
    """A Go program's logrus / dockerd logfmt: each line in `msg="..."` with its quotes and backslashes escaped."""
    return "\n".join(f'time="2023-05-01T10:00:00Z" level=error msg={json.dumps(line, ensure_ascii=False)}'
                     for line in _lines(text)) + "\n"


def logfmt_one_message(text):
    """dockerd / containerd logging a child's whole output as one logfmt message: `\\n` between the lines."""
    body = json.dumps(text.rstrip("\n"), ensure_ascii=False)
    return f'time="2023-05-01T10:00:00Z" level=error msg={body} container=3f4e\n'


def pasted_twice(text):
    """The same log pasted twice (a forum post that repeats it after an edit)."""
    return text.rstrip("\n") + "\n\n" + text


def training_noise(text):
    """2,000 lines of an unrelated training run (Keras epochs, tqdm, INFO lines) before the log."""
    noise = []
    for i in range(2000):
        if i % 3 == 0:
            noise.append(f"Epoch {i // 3 + 1}/2000")
        elif i % 3 == 1:
            noise.append(f"1875/1875 [==============================] - 3s 2ms/step - loss: 0.{i:04d} - "
                         f"accuracy: 0.9{i % 1000:03d}")
        else:
            noise.append(f"step {i}: lr=0.001 grad_norm=1.{i % 1000:03d}")
    return "\n".join(noise) + "\n" + text


def chinese_console(text):
    """A Chinese user's post: a Chinese sentence before, conda's Chinese progress lines, Chinese after; and the
    file saved by a Chinese Windows console (code page 936), read back through textio."""
    before = ["运行下面的代码时报错，求助：", "正在收集软件包元数据 (current_repodata.json): 完成",
              "正在解析环境: 完成", "下载并解压软件包: ...working... 完成", ""]
    after = ["", "请问这是什么原因？谢谢！"]
    return "\n".join(before) + "\n" + text.rstrip("\n") + "\n" + "\n".join(after) + "\n"


def chinese_gbk(text):
    """The same, written in GBK by a Chinese Windows console (code page 936) and read back through textio."""
    return decode(chinese_console(text).encode("gbk", "replace"))


ALL = ("linux", "windows", "container", "wsl2")
LINUX = ("linux", "container", "wsl2")
# Where a form comes from: a collector of container logs is no Windows console, PowerShell is no Linux shell.
WHERE = {"windows_console": ("windows", "wsl2"), "powershell_out_file": ("windows",), "journald": LINUX,
         "compose_prefix": ("container",), "docker_timestamps": ("container",), "cri_log": ("container",),
         "logfmt_lines": ("container",), "logfmt_one_message": ("container",)}

FORMS = [github_quote, nested_quote, markdown_fence, list_bullets, hard_wrap(80), hard_wrap(120),
         hard_wrap(80, "\\"), hard_wrap(120, "\\"), windows_console, powershell_out_file, crlf, cr_progress,
         ansi_colours, utf8_bom, web_spaces, tab_indent, jupyter_json, jupyter_traceback, colab_shell,
         python_logging, compose_prefix, docker_timestamps, cri_log, journald, logfmt_lines, logfmt_one_message,
         pasted_twice, training_noise, chinese_console, chinese_gbk]


def main():
    import sys

    import yaml

    from builder.matrix.facts import facts_from_matrix
    from tests.helpers import UNIT, matrix
    from tests.unit.diagnose.explain_scoring import judge

    facts = facts_from_matrix(matrix())
    cases = {p.stem: yaml.safe_load(p.read_text(encoding="utf-8"))
             for p in sorted((UNIT / "explain_corpus").glob("[0-9]*.yaml"))}
    wanted = set(sys.argv[1:])
    for form in FORMS:
        if wanted and form.__name__ not in wanted:
            continue
        bad = []
        for stem, case in cases.items():
            if judge(case, facts)[1] or case["platform"] not in WHERE.get(form.__name__, ALL):
                continue
            got, why = judge(dict(case, log=form(case["log"])), facts)
            if why:
                bad.append(f"{stem}: {got} {why[:100]}")
        print(f"{form.__name__:22} {len(bad):3d}")
        for line in bad[:8 if not wanted else 400]:
            print("    " + line)


if __name__ == "__main__":
    main()
