"""The Windows PowerShell 5.1 pitfall linter (tests/unit/powershell_lint.py): each rule catches its bad snippet
and passes the 5.1-safe way of writing the same thing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import UNIT
from tests.unit.powershell_lint import lint, mask

STOP = "$ErrorActionPreference = 'Stop'\n"

BAD = [
    ("ps7-syntax", "$x = $a ?? 'default'\n"),
    ("ps7-syntax", "$a ??= 1\n"),
    ("ps7-syntax", "$n = $item?.Name\n"),
    ("ps7-syntax", "$n = ${list}?[0]\n"),
    ("ps7-syntax", "$v = $ok ? 'yes' : 'no'\n"),
    ("ps7-syntax", "git fetch && git status\n"),
    ("ps7-syntax", "Test-Thing || exit 1\n"),
    ("ps7-syntax", "1..4 | ForEach-Object -Parallel { $_ }\n"),
    ("ps7-syntax", "function Get-X {\n    process { 1 }\n    clean { 2 }\n}\n"),
    ("psscriptroot-in-param", "[CmdletBinding()]\nparam([string]$Path = (Join-Path $PSScriptRoot 'a.sh'))\n"),
    ("psscriptroot-in-param", "param(\n    [string]$Here = \"$PSScriptRoot\\x\"\n)\n"),
    ("native-stderr-under-stop", STOP + "$out = & $exe --version 2>&1\n"),
    ("native-stderr-under-stop", STOP + "function Get-V {\n    & $exe --version 2>$null\n}\n"),
    ("native-stderr-under-stop", "function Get-V {\n    & $exe --version *>&1\n}\n" + STOP + "Get-V\n"),
    ("system32", "$smi = Join-Path $env:SystemRoot 'System32\\nvidia-smi.exe'\n"),
    ("system32", "& wsl.exe --list\n"),
    ("system32", "$v = & 'nvidia-smi.exe' -L\n"),
    ("system32", "wsl --shutdown\n"),
    ("write-without-encoding", "$text | Out-File -FilePath $p\n"),
    ("write-without-encoding", "Set-Content -Path $p -Value $v\n"),
    ("write-without-encoding", "Add-Content -Path $p `\n    -Value $v\n"),
    ("write-without-encoding", "$text > $p\n"),
    ("write-without-encoding", "'line' >> log.txt\n"),
    ("non-ascii", "# C:\\Users\\Jos\u00e9\n"),
    ("non-ascii", "Write-Output 'done \u2013 ok'\n"),
    ("web-request", "Invoke-WebRequest -Uri $u -OutFile $f\n"),
    ("web-request", "iwr $u -OutFile $f\n"),
    ("no-profile", "<#\n.EXAMPLE\n    powershell -ExecutionPolicy Bypass -File .\\setup.ps1\n#>\n"),
    ("no-profile", "# run: pwsh -File setup.ps1 -CheckOnly\n"),
    ("exit-code-1", "if (-not $ok) { exit 1 }\n"),
    ("exit-code-1", "Stop-Setup -Code 1 -Message 'the checks failed'\n"),
    ("program-files-32bit", "$smi = Join-Path -Path $env:ProgramFiles -ChildPath 'NVIDIA Corporation\\NVSMI'\n"),
    ("tls12", "Invoke-WebRequest -UseBasicParsing -Uri $u -OutFile $f\n"),
    ("tls12", "(New-Object -TypeName Net.WebClient).DownloadFile($u, $f)\n"),
    ("console-encoding-restore", "function Get-Out {\n    [Console]::OutputEncoding = $utf8\n    & $exe\n}\n"),
    ("native-progress-pipe", "function Install-It {\n    & $python -m pip install -r $file | Out-Host\n}\n"),
    ("start-process-quoting", "Start-Process -FilePath $exe -ArgumentList @('-r', $file) -Wait\n"),
]

GOOD = [
    "if ($null -eq $a) { $x = 'default' } else { $x = $a }\n",
    "$n = if ($item) { $item.Name } else { $null }\n",
    "$found = @($items | ? { $_.Name -eq 'x' })\n",
    "$m = 'a ?? b && c || d ? e : f'  # ?? && || in a string or comment\n",
    "$r = [regex]::Match($t, '^\\d+\\.\\d+')\n",
    "[CmdletBinding()]\nparam([string]$Path = '')\nif (-not $Path) { $Path = Join-Path $PSScriptRoot 'a.sh' }\n",
    STOP + "function Invoke-Native {\n    $ErrorActionPreference = 'Continue'\n    $o = & $exe 2>&1\n}\n",
    "$out = & $exe --version 2>&1\n",  # no 'Stop' in the script
    "$dir = if ([Environment]::Is64BitOperatingSystem -and -not [Environment]::Is64BitProcess) "
    "{ 'Sysnative' } else { 'System32' }\n",
    "& $wslExe @arguments\n",
    "$text | Out-File -FilePath $p -Encoding ascii\n",
    "Set-Content -Path $p -Value $v -Encoding UTF8\n",
    "Set-Content @parameters\n",
    "$null = & $exe > $null\n",
    "if ($a -gt 1) { 'x' }\n",
    "[Net.ServicePointManager]::SecurityProtocol = 'Tls12'\nInvoke-WebRequest -Uri $u -OutFile $f -UseBasicParsing\n",
    "$h = @'\n$a ?? b && c\n'@\n",
    "<# a ?? b\n   && System32 #>\n$x = 1\n",
    "<#\n.EXAMPLE\n    powershell -NoProfile -ExecutionPolicy Bypass -File .\\setup.ps1\n#>\n",
    "exit 0\n",
    "Stop-Setup -Code $Exit.ChecksFailed -Message 'the checks failed'\nexit 12\n",
    "$pf = if ($env:ProgramW6432) { $env:ProgramW6432 } else { $env:ProgramFiles }\n",
    "function Get-Pf {\n    if ($env:ProgramW6432) {\n        return $env:ProgramW6432\n    }\n"
    "    return $env:ProgramFiles\n}\n",
    "[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor "
    "[Net.SecurityProtocolType]::Tls12\nInvoke-WebRequest -UseBasicParsing -Uri $u -OutFile $f\n",
    "function Get-Out {\n    $saved = [Console]::OutputEncoding\n    try {\n        [Console]::OutputEncoding = $utf8\n"
    "        & $exe\n    } finally {\n        [Console]::OutputEncoding = $saved\n    }\n}\n",
    "$p = Start-Process -FilePath $exe -ArgumentList (ConvertTo-CommandLine -Arguments @('-r', $file)) "
    "-NoNewWindow -Wait -PassThru\n",
    "Start-Process -FilePath 'notepad.exe' -ArgumentList 'a.txt'\n",
    "Get-ChildItem | Out-Host\n",
]


@pytest.mark.parametrize("rule, snippet", BAD, ids=[f"{r}-{i}" for i, (r, _) in enumerate(BAD)])
def test_rule_catches_its_bad_snippet(rule, snippet):
    assert rule in {f.rule for f in lint(snippet)}, lint(snippet)


@pytest.mark.parametrize("snippet", GOOD)
def test_safe_spelling_passes(snippet):
    assert lint(snippet) == []


def test_finding_names_the_line():
    (finding,) = lint("$a = 1\n\n$b = $c ?? 2\n")
    assert (finding.rule, finding.line) == ("ps7-syntax", 3)


def test_mask_keeps_length_and_lines():
    text = "$a = 'x # y' # comment\n<# block\n#>\n$b = \"q`\"r\"\n"
    masked = mask(text)
    assert len(masked) == len(text) and masked.count("\n") == text.count("\n")
    assert "comment" not in masked and "block" not in masked and "x # y" not in masked
    assert "x # y" in mask(text, strings=False) and "comment" not in mask(text, strings=False)


def test_command_line_reports_and_exits_1(tmp_path):
    bad = tmp_path / "bad.ps1"
    bad.write_text("$x = $a ?? 1\n", encoding="utf-8")
    good = tmp_path / "good.ps1"
    good.write_text("$x = 1\n", encoding="utf-8")
    script = UNIT / "powershell_lint.py"
    result = subprocess.run([sys.executable, str(script), str(good), str(bad)], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stdout.startswith(f"{bad}:1: ps7-syntax: ")
    result = subprocess.run([sys.executable, str(script), str(good)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout == ""


def test_new_rules_find_what_the_scripts_before_issue_20_did():
    """The rules added for issue 20 catch the pitfalls the scripts had: a snippet from each old script."""
    old_native = ("<#\n.EXAMPLE\n    powershell -ExecutionPolicy Bypass -File .\\setup.ps1\n#>\n"
                  "function Invoke-Live {\n    & $FilePath @Arguments | Out-Host\n}\n"
                  "$smi = Join-Path -Path $env:ProgramFiles -ChildPath 'NVIDIA Corporation\\NVSMI\\nvidia-smi.exe'\n"
                  "Invoke-WebRequest -UseBasicParsing -Uri $InstallerUrl -OutFile $partial\n"
                  "Stop-Setup -Code 1 -Message 'the checks failed'\n")
    assert {f.rule for f in lint(old_native)} == {"no-profile", "native-progress-pipe", "program-files-32bit",
                                                  "tls12", "exit-code-1"}
