"""Windows PowerShell 5.1 pitfalls in the scripts tfenv generates, found without PowerShell (none runs here).

Every Windows 10 ships Windows PowerShell 5.1, and tfenv's scripts must run there as well as in
PowerShell 7. Each rule is a small function over the script's text, looked at through a mask: `code` has
comments and string contents blanked (same length, newlines kept), so syntax rules are not fooled by
prose; `nocomment` keeps strings, for rules about values (paths, preference names).

    python tests/unit/powershell_lint.py FILE...     # one line per finding; exit 1 when there is one

Known limits: it reads text, not an AST (tree-sitter's parse is a separate test); the error-preference rule
takes any assignment inside the enclosing braces before the redirect as local, which is right for the
function bodies these scripts use.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Finding:
    rule: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.line}: {self.rule}: {self.message}"


# --- masking ---------------------------------------------------------------------------------------


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def mask(text: str, strings: bool = True) -> str:
    """Comments blanked, and with strings=True the contents of every string literal too (quotes kept)."""
    out, i, n = [], 0, len(text)
    at_token_start = True
    while i < n:
        c = text[i]
        if text.startswith("<#", i):
            end = text.find("#>", i + 2)
            end = n if end < 0 else end + 2
            out.append(_blank(text[i:end]))
            i, at_token_start = end, True
            continue
        if c == "#" and at_token_start:
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(_blank(text[i:end]))
            i = end
            continue
        if text.startswith(("@'", '@"'), i) and text[i + 2:i + 3] in ("\n", "\r"):
            close = text.find("\n" + text[i + 1] + "@", i + 2)  # a here-string ends with '@ at a line start
            end = n if close < 0 else close + 1
            body = text[i + 2:end]
            out.append(text[i:i + 2] + (_blank(body) if strings else body) + text[end:end + 2])
            i, at_token_start = min(n, end + 2), False
            continue
        if c in ("'", '"'):
            j = i + 1
            while j < n:
                if c == '"' and text[j] == "`":
                    j += 2
                    continue
                if text[j] == c:
                    if text[j + 1:j + 2] == c:  # doubled quote: an escaped quote
                        j += 2
                        continue
                    break
                j += 1
            body = text[i + 1:j]
            out.append(c + (_blank(body) if strings else body) + (c if j < n else ""))
            i, at_token_start = j + 1, False
            continue
        if c == "`":  # escape outside strings (line continuation): keep both characters
            out.append(text[i:i + 2])
            i += 2
            continue
        out.append(c)
        at_token_start = c.isspace() or c in ";({[|,=&"
        i += 1
    return "".join(out)


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _statements(code: str):
    """(start offset, statement text) with backtick line continuations joined."""
    start = 0
    for m in re.finditer(r"(?<!`)\r?\n", code):
        yield start, code[start:m.start()]
        start = m.end()
    yield start, code[start:]


def _blocks(code: str) -> list[tuple[int, int]]:
    """(open, close) offsets of every brace pair in the masked code."""
    stack, pairs = [], []
    for i, c in enumerate(code):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            pairs.append((stack.pop(), i))
    return pairs


# --- rules -----------------------------------------------------------------------------------------


def rule_ps7_syntax(text: str, code: str, nocomment: str) -> list[Finding]:
    """Syntax that Windows PowerShell 5.1 cannot parse."""
    found = []
    checks = [
        (r"\?\?", "'??' (null-coalescing) is PowerShell 7 only: use if ($null -eq $x) { ... }"),
        (r"(?<=[\w})\]])\?[.\[]", "'?.' / '?[' (null-conditional) is PowerShell 7 only"),
        (r"&&|\|\|", "'&&' / '||' pipeline chains are PowerShell 7 only: check $LASTEXITCODE or $? instead"),
        (r"(?i)-Parallel\b", "ForEach-Object -Parallel is PowerShell 7 only"),
        (r"(?im)^\s*clean\s*\{", "a 'clean {}' block is PowerShell 7.3+ only"),
    ]
    for pattern, message in checks:
        for m in re.finditer(pattern, code):
            found.append(Finding("ps7-syntax", _line(code, m.start()), message))
    for m in re.finditer(r"(?<=\s)\?(?=\s)", code):  # a ternary: `cond ? a : b`, not `| ? { }`
        line_start = code.rfind("\n", 0, m.start()) + 1
        line_end = code.find("\n", m.end())
        before, after = code[line_start:m.start()].rstrip(), code[m.end():line_end if line_end >= 0 else None]
        if before and not before.endswith("|") and re.search(r"\s:\s", after):
            found.append(Finding("ps7-syntax", _line(code, m.start()),
                                 "'? :' (ternary) is PowerShell 7 only: use if/else"))
    return found


def rule_psscriptroot_in_param(text: str, code: str, nocomment: str) -> list[Finding]:
    """$PSScriptRoot is empty in parameter defaults on 5.1 (script with [CmdletBinding()] run with -File)."""
    found = []
    for m in re.finditer(r"(?i)\bparam\s*\(", code):
        depth, j = 0, m.end() - 1
        while j < len(code):
            depth += {"(": 1, ")": -1}.get(code[j], 0)
            if depth == 0:
                break
            j += 1
        for v in re.finditer(r"(?i)\$(PSScriptRoot|PSCommandPath)\b", nocomment[m.start():j]):
            found.append(Finding("psscriptroot-in-param", _line(code, m.start() + v.start()),
                                 f"${v.group(1)} in a parameter default is empty on Windows PowerShell 5.1: "
                                 "default to '' and resolve it in the script body"))
    return found


_EAP = re.compile(r"(?i)\$ErrorActionPreference\s*=\s*['\"](\w+)['\"]")
_RELAXED = {"continue", "silentlycontinue", "ignore"}


def rule_native_stderr_under_stop(text: str, code: str, nocomment: str) -> list[Finding]:
    """Under 'Stop', 5.1 turns a native program's first redirected stderr line into a terminating error."""
    assignments = [(m.start(), m.group(1).lower()) for m in _EAP.finditer(nocomment)]
    blocks = _blocks(code)
    top_stop = any(v == "stop" and not any(o < p < c for o, c in blocks) for p, v in assignments)
    found = []
    for m in re.finditer(r"(?<![\w-])(2|\*)>", code):
        p = m.start()
        enclosing = [(o, c) for o, c in blocks if o < p < c]
        if enclosing:
            outer = min(o for o, _ in enclosing)
            local = [v for a, v in assignments if outer < a < p]
            effective = local[-1] if local else ("stop" if top_stop else "continue")
        else:
            before = [v for a, v in assignments if a < p]
            effective = before[-1] if before else "continue"
        if effective not in _RELAXED:
            found.append(Finding("native-stderr-under-stop", _line(code, p),
                                 f"'{m.group(0)}' under $ErrorActionPreference = 'Stop': set a local "
                                 "$ErrorActionPreference = 'Continue' first and check $LASTEXITCODE"))
    return found


def rule_system32(text: str, code: str, nocomment: str) -> list[Finding]:
    """A 32-bit PowerShell on 64-bit Windows sees SysWOW64 as System32: wsl.exe and nvidia-smi are missing."""
    found = []
    handles = re.search(r"(?i)Sysnative", nocomment) and re.search(r"Is64BitProcess", nocomment)
    if not handles:
        for m in re.finditer(r"(?i)System32", nocomment):
            found.append(Finding("system32", _line(code, m.start()),
                                 "a System32 path without Sysnative handling: from 32-bit PowerShell use "
                                 "$env:windir\\Sysnative when [Environment]::Is64BitOperatingSystem -and -not "
                                 "[Environment]::Is64BitProcess"))
    tools = r"(wsl|wslconfig|nvidia-smi|bash)(\.exe)?"
    calls = [re.finditer(rf"(?im)(?:^|[;|{{(])\s*{tools}(?=\s|$)", code),
             re.finditer(rf"(?i)&\s*['\"]?{tools}['\"]?(?=[\s;)]|$)", nocomment)]
    for matches in calls:
        for m in matches:
            found.append(Finding("system32", _line(code, m.start()),
                                 f"'{m.group(0).strip()}' by bare name resolves through System32, which a "
                                 "32-bit PowerShell cannot see: call it by a path built with Sysnative handling"))
    return found


def rule_write_without_encoding(text: str, code: str, nocomment: str) -> list[Finding]:
    """5.1 writes UTF-16LE (Out-File, >) or the ANSI code page (Set-Content, Add-Content) unless told."""
    found = []
    for start, statement in _statements(code):
        for m in re.finditer(r"(?i)(?<![\w-])(Out-File|Set-Content|Add-Content)\b", statement):
            if not re.search(r"(?i)-Encoding\b", statement) and not re.search(r"@\w+", statement):
                found.append(Finding("write-without-encoding", _line(code, start + m.start()),
                                     f"{m.group(1)} without -Encoding writes UTF-16LE or ANSI on 5.1: "
                                     "add -Encoding (ASCII or UTF8)"))
        for m in re.finditer(r"(?<![\w>=-])(\d|\*)?>>?(&\d)?\s*(\S*)", statement):
            if m.group(2) or m.group(3).lower() == "$null":
                continue
            found.append(Finding("write-without-encoding", _line(code, start + m.start()),
                                 f"redirection '{m.group(0).strip()}' writes UTF-16LE on 5.1: "
                                 "pipe to Set-Content -Encoding or Out-File -Encoding"))
    return found


def rule_non_ascii(text: str, code: str, nocomment: str) -> list[Finding]:
    """5.1 reads a script without a BOM in the ANSI code page: anything beyond ASCII is garbled."""
    return [Finding("non-ascii", _line(text, i), f"non-ASCII character {c!r} (U+{ord(c):04X}): keep scripts ASCII")
            for i, c in enumerate(text) if ord(c) > 127]


def rule_web_request(text: str, code: str, nocomment: str) -> list[Finding]:
    """Without -UseBasicParsing, 5.1's Invoke-WebRequest needs Internet Explorer's engine (gone on new Windows)."""
    found = []
    for start, statement in _statements(code):
        for m in re.finditer(r"(?i)(?<![\w-])Invoke-WebRequest\b", statement):
            if not re.search(r"(?i)-UseBasicParsing\b", statement) and not re.search(r"@\w+", statement):
                found.append(Finding("web-request", _line(code, start + m.start()),
                                     "Invoke-WebRequest without -UseBasicParsing fails on 5.1 without IE's engine"))
        for m in re.finditer(r"(?im)(?:^|[;|{(])\s*(iwr|curl|wget)(?=\s|$)", statement):
            found.append(Finding("web-request", _line(code, start + m.start()),
                                 f"'{m.group(1)}' is an alias of Invoke-WebRequest on 5.1: spell it out, "
                                 "with -UseBasicParsing"))
    return found


def _outer_block(blocks: list[tuple[int, int]], pos: int) -> tuple[int, int] | None:
    """The outermost brace pair around pos (a function body, for these scripts), or None at top level."""
    enclosing = [(o, c) for o, c in blocks if o < pos < c]
    return min(enclosing) if enclosing else None


def rule_no_profile(text: str, code: str, nocomment: str) -> list[Finding]:
    """A documented `powershell -File` loads the user's profile, where `conda init` puts conda's Python first."""
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        for m in re.finditer(r"(?i)\b(powershell|pwsh)(\.exe)?\s+(-[^'\"\n]*?)?-(File|Command)\b", line):
            if not re.search(r"(?i)-NoProfile\b", m.group(0)):
                found.append(Finding("no-profile", number, f"'{m.group(0).strip()}' without -NoProfile runs the "
                                     "user's profile first (conda init puts conda's python.exe on PATH there)"))
    return found


def rule_exit_code_1(text: str, code: str, nocomment: str) -> list[Finding]:
    """`powershell -File` exits 1 when parameter binding fails: a script's own 1 would be mistaken for that."""
    return [Finding("exit-code-1", _line(code, m.start()), f"'{m.group(0)}': 1 is what powershell -File returns for "
                    "a mistyped or invalid parameter; give this outcome its own documented code")
            for m in re.finditer(r"(?i)(\bexit\s+1|-Code\s+1)(?![\d.])", code)]


def rule_program_files_32bit(text: str, code: str, nocomment: str) -> list[Finding]:
    """A 32-bit PowerShell's $env:ProgramFiles is 'Program Files (x86)': NVSMI and the CUDA toolkit are not there."""
    blocks, found = _blocks(code), []
    for m in re.finditer(r"(?i)\$env:ProgramFiles\b(?!\(x86\))", nocomment):
        block = _outer_block(blocks, m.start())
        line_start, line_end = nocomment.rfind("\n", 0, m.start()) + 1, nocomment.find("\n", m.start())
        scope = nocomment[line_start:line_end] + (nocomment[block[0]:block[1]] if block else "")
        if not re.search(r"(?i)\$env:ProgramW6432\b", scope):
            found.append(Finding("program-files-32bit", _line(code, m.start()),
                                 "$env:ProgramFiles is 'Program Files (x86)' in a 32-bit PowerShell: prefer "
                                 "$env:ProgramW6432 when it is set"))
    return found


def rule_tls12(text: str, code: str, nocomment: str) -> list[Finding]:
    """Windows PowerShell 5.1 on older Windows 10 offers only TLS 1.0/1.1, which download servers refuse."""
    blocks, found = _blocks(code), []
    for m in re.finditer(r"(?i)(?<![\w-])(Invoke-WebRequest|Invoke-RestMethod)\b|Net\.WebClient\b", code):
        block = _outer_block(blocks, m.start())
        scope = nocomment[:m.start()] + (nocomment[m.start():block[1]] if block else "")
        if not re.search(r"(?i)SecurityProtocol\s*=[^\n]*Tls12", scope):
            found.append(Finding("tls12", _line(code, m.start()), f"{m.group(0)} without TLS 1.2: set "
                                 "[Net.ServicePointManager]::SecurityProtocol with -bor "
                                 "[Net.SecurityProtocolType]::Tls12 first"))
    return found


def rule_console_encoding_restore(text: str, code: str, nocomment: str) -> list[Finding]:
    """[Console]::OutputEncoding set for a call must be put back (in a finally), or the user's console stays changed."""
    blocks, found = _blocks(code), []
    assignment = r"(?i)\[Console\]::OutputEncoding\s*=(?!=)"
    for m in re.finditer(assignment, nocomment):
        block = _outer_block(blocks, m.start())
        body = nocomment[block[0]:block[1]] if block else ""
        finally_ = re.search(r"(?i)\bfinally\s*\{", body)
        if not (finally_ and re.search(assignment, body[finally_.end():])):
            found.append(Finding("console-encoding-restore", _line(code, m.start()),
                                 "[Console]::OutputEncoding changed without a finally that restores it"))
    return found


def rule_native_progress_pipe(text: str, code: str, nocomment: str) -> list[Finding]:
    """A native program behind a pipe sees no console: pip and curl show no progress, a 2 GB download looks hung."""
    found = []
    for start, statement in _statements(code):
        if re.search(r"&\s*\S", statement) and re.search(r"(?i)\|\s*Out-(Host|Default)\b", statement):
            found.append(Finding("native-progress-pipe", _line(code, start + statement.find("|")),
                                 "a native program piped to Out-Host shows no progress bar: run it with "
                                 "Start-Process -NoNewWindow -Wait -PassThru"))
    return found


def rule_start_process_quoting(text: str, code: str, nocomment: str) -> list[Finding]:
    """Start-Process joins -ArgumentList with spaces and quotes nothing: a path with a space splits in two."""
    found = []
    for start, statement in _statements(nocomment):
        m = re.search(r"(?i)\bStart-Process\b.*?-ArgumentList\s+(.*)", statement)
        if m and "$" in m.group(1) and not re.search(r"(?i)ConvertTo-CommandLine", m.group(1)):
            found.append(Finding("start-process-quoting", _line(code, start + m.start()),
                                 "Start-Process -ArgumentList with variables: quote each argument "
                                 "(ConvertTo-CommandLine)"))
    return found


RULES = [rule_ps7_syntax, rule_psscriptroot_in_param, rule_native_stderr_under_stop, rule_system32,
         rule_write_without_encoding, rule_non_ascii, rule_web_request, rule_no_profile, rule_exit_code_1,
         rule_program_files_32bit, rule_tls12, rule_console_encoding_restore, rule_native_progress_pipe,
         rule_start_process_quoting]


def functions(text: str) -> dict[str, tuple[int, str]]:
    """Each top-level `function Name {` of a script: name -> (offset of its body, body with comments and strings
    blanked). For tests that follow a script's calls (which functions -CheckOnly can reach, say)."""
    text = text.replace("\r\n", "\n")
    code = mask(text)
    out = {}
    for m in re.finditer(r"(?m)^function ([\w-]+) \{", code):
        depth, i = 0, m.end() - 1
        for i in range(m.end() - 1, len(code)):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            if depth == 0:
                break
        out[m.group(1)] = (m.end(), code[m.end():i])
    return out


def lint(text: str) -> list[Finding]:
    text = text.replace("\r\n", "\n")
    code, nocomment = mask(text), mask(text, strings=False)
    return sorted((f for rule in RULES for f in rule(text, code, nocomment)), key=lambda f: (f.line, f.rule))


def main(argv: list[str]) -> int:
    status = 0
    for name in argv:
        for finding in lint(Path(name).read_text(encoding="utf-8", errors="replace")):
            print(f"{name}:{finding}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
