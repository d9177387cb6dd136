"""`tfenv windows`: the matrix's Windows data, each rendered setup.ps1 against the matrix and the Windows
lock, the .pth hook and the embedded Python run for real (by this machine's Python), and the command.

Nothing here runs PowerShell or Windows: the parse and 5.1-pitfall checks of every committed .ps1 are in
test_powershell.py; the real wheels are checked by tests/slow/test_windows_wheels.py.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from builder.matrix import model, validate
from builder.render import generated, windows
from tests.helpers import FAKES, ROOT
from tests.unit.powershell_lint import functions


def _invoke(*args):
    return CliRunner().invoke(cli, list(args), standalone_mode=False, catch_exceptions=True)


def _render(m, name: str) -> str:
    """The rendered script with LF line ends (committed .ps1 files are CRLF; the tests read lines)."""
    return windows.render(m, m.env(name)).text.replace("\r\n", "\n")


def _here_string(text: str, variable: str) -> str:
    """The body of `$variable = @' ... '@` in a rendered script."""
    found = re.search(rf"^\${variable} = @'\r?\n(.*?)\r?\n'@$", text, re.S | re.M)
    assert found, f"no here-string ${variable}"
    return found.group(1)


def _ps_array(text: str, variable: str) -> list[str]:
    """The quoted items of `$variable = @( ... )` in a rendered script."""
    found = re.search(rf"^\${variable} = @\((.*?)\)$", text, re.S | re.M)
    assert found, f"no array ${variable}"
    return re.findall(r"'([^']*)'", found.group(1))


# --- the matrix's Windows data -----------------------------------------------------------------


def test_windows_dll_names_per_tf_line(m):
    assert m.env("tf29").windows_dlls == (
        "cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cufft64_10.dll", "curand64_10.dll",
        "cusolver64_11.dll", "cusparse64_11.dll", "cudnn64_8.dll")
    assert m.env("tf29").windows_optional_dlls == ("cupti64_112.dll",)
    assert "cusolver64_10.dll" in m.env("tf24").windows_dlls  # CUDA 11.0 only
    assert m.env("tf22").windows_dlls[0] == "cudart64_101.dll"


def test_each_environment_takes_the_newest_windows_python_it_supports(m):
    got = {name: windows.python_for(m, env) for name, env in m.envs.items()}
    assert got["tf22"] == got["tf24"] == "3.8"
    assert got["tf25"] == got["tf27"] == "3.9"
    assert got["tf28"] == got["tf29"] == "3.10"


def test_cuda_11_2_is_pip_only_and_older_stacks_are_guided(m):
    assert m.cuda["11.2"].windows.source == "pip"
    assert m.cuda["11.2"].windows.installer is None
    for version in ("10.1", "10.2", "11.0"):
        stack = m.cuda[version].windows
        assert stack.source == "installer" and not stack.pip and stack.cudnn_zip.endswith(".zip")
        assert all(c.endswith("_" + version) for c in stack.installer.components)


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["sonames"]["tf2.5"].__setitem__("windows", ["cudart64_110"]),
     "matrix.yaml: sonames.tf2.5.windows[0]: expected a bare DLL name like 'cudart64_110.dll', got 'cudart64_110'"),
    (lambda d: d["cuda"]["11.2"]["windows"].pop("pip"),
     "matrix.yaml: cuda.11.2.windows.pip: missing required key (source 'pip' needs pip and cudnn)"),
    (lambda d: d["cuda"]["11.2"]["windows"]["copies"][0].__setitem__("to", "cupti64_999.dll"),
     "matrix.yaml: cuda.11.2.windows.copies: cupti64_999.dll is not a DLL TF 2.5.3 loads (sonames.tf2.5.windows)"),
    (lambda d: d["sonames"]["tf2.5"].pop("windows"),
     "matrix.yaml: envs.tf25.sonames: CUDA 11.2 has a Windows route, so soname set 'tf2.5' needs 'windows'"),
    (lambda d: d["windows"]["python"].__setitem__("3.9", "3.10.1"),
     "matrix.yaml: windows.python.3.9: expected a 3.9.N release, got '3.10.1'"),
    (lambda d: d["cuda"]["11.2"]["windows"].__setitem__("cudnn_zip", "x.zip"),
     "matrix.yaml: cuda.11.2.windows.cudnn_zip: belongs to source installer, not 'pip'"),
    (lambda d: d["cuda"]["10.2"]["windows"]["installer"].__setitem__("url", "http://example.org/x.exe"),
     "matrix.yaml: cuda.10.2.windows.installer.url: expected an https:// URL"),
])
def test_bad_windows_data_is_one_line(matrix_data, write_matrix, edit, message):
    edit(matrix_data)
    with pytest.raises(model.MatrixError) as err:
        validate.load(write_matrix(matrix_data))
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


# --- the rendered scripts against the matrix -----------------------------------------------------


def test_every_windows_environment_is_committed(m):
    committed = {p.parent.name for p in (ROOT / "windows").glob("*/setup.ps1")}
    assert committed == {name for name, env in m.envs.items() if windows.supported(env)}
    assert generated.check(windows.render_all(m), ROOT, ("windows/*/*",)) == []


@pytest.mark.parametrize("name", [n for n in validate.load(ROOT / "matrix.yaml").envs])
def test_rendered_pins_paths_and_names_match_the_matrix(m, name):
    env = m.env(name)
    text = _render(m, name)
    stack = env.cuda.windows
    # exactly the Windows lock, then the NVIDIA wheels at the matrix's pins
    lock_pins = windows.read_lock(m, env).requirements()
    requirements = _ps_array(text, "Requirements")
    assert [r.split()[0] for r in requirements] == lock_pins + [f"{n}=={v}" for n, v in stack.pip.items()]
    assert all(re.fullmatch(r"\S+==\S+( --hash=sha256:[0-9a-f]{64})+", r) for r in requirements)  # --require-hashes
    assert windows.lock_path(m, env).name == f"{name}-win-py{windows.python_for(m, env)}.txt"
    assert f"$PythonLine = '{windows.python_for(m, env)}'" in text
    assert f"$MinimumDriver = [version]'{env.cuda.driver_min['windows']}'" in text
    # the hook puts exactly the DLL folders on PATH: the wheels' bin folders, or the guided folder
    if stack.source == "pip":
        expected = [f"Lib\\site-packages\\nvidia\\{re.sub(r'^nvidia-|-cu11$', '', p).replace('-', '_')}\\bin"
                    for p in stack.pip]
    else:
        expected = ["tfenv\\cuda\\bin"]
    assert _ps_array(text, "HookDirs") == expected
    # the checks load exactly the DLLs the matrix says TF loads on Windows, with the VC++ runtime
    program = _here_string(text, "CheckProgram")
    assert f"WANT = {list(env.windows_dlls)!r}" in program
    assert f"OPTIONAL = {list(env.windows_optional_dlls)!r}" in program
    assert f"VC_RUNTIME = {list(m.windows.vc_runtime)!r}" in program
    assert f"tf.__version__ == '{env.tensorflow}'" in program
    for copy in stack.copies:
        assert f"Source = '{copy.source}'; To = '{copy.to}'" in text
    if stack.installer:
        assert f"$InstallerUrl = '{stack.installer.url}'" in text
        assert _ps_array(text, "InstallerComponents") == list(stack.installer.components)
        assert stack.cudnn_zip in text and "[string]$CudnnZip = ''" in text
    else:
        assert "CudaInstaller" not in text and "nvidia-cudnn-cu11==8.9.4.25" in text
    assert text.isascii() and not text.startswith("\ufeff")


def test_tf22_copies_cudart_from_cuda_10_2_and_the_check_wants_10_1(m):
    text = _render(m, "tf22")
    assert "Source = 'cudart64_102.dll'; To = 'cudart64_101.dll'; Dir = 'tfenv\\cuda\\bin'; Optional = $false" in text
    assert "'bin\\cudart64_102.dll'" in text  # what NVIDIA's 10.2 installer leaves in the toolkit
    assert "cuda == '101'" in _here_string(text, "CheckProgram")  # TF 2.2 was built against 10.1


def test_cupti_copy_goes_beside_the_wheel_dll(m):
    text = _render(m, "tf29")
    assert ("Source = 'cupti64_2022.3.0.dll'; To = 'cupti64_112.dll'; "
            "Dir = 'Lib\\site-packages\\nvidia\\cuda_cupti\\bin'; Optional = $true") in text


def test_script_surface(m):
    """Parameters, -NoProfile in the examples and safe defaults of the pip and the guided script (the exit
    codes against their table: test_powershell.py)."""
    for name in ("tf29", "tf24"):
        text = _render(m, name)
        for parameter in ("[string]$Venv = ''", "[string]$Python = ''", "[switch]$CheckOnly", "[switch]$DryRun"):
            assert parameter in text
        assert "\"tfenv\\$EnvName\"" in text and "$env:LOCALAPPDATA" in text
        examples = re.findall(r"^    (powershell .*)$", text, re.M)
        assert examples and all(e.startswith("powershell -NoProfile -ExecutionPolicy Bypass -File ") for e in examples)
        assert "'--no-deps', '--require-hashes'" in text and "PIP_INDEX_URL" in text
        calls = re.findall(r"^ +Invoke-WebRequest .*", text, re.M)
        assert all("-UseBasicParsing" in c for c in calls) and bool(calls) == (name == "tf24")
        assert ("'--continue-at', '-'" in text) == (name == "tf24")  # curl.exe resumes the 2.5 GB installer


def _calls(funcs: dict, body: str) -> list[tuple[int, str]]:
    """(offset in body, name) of each call of one of the script's own functions."""
    return [(mt.start(), mt.group(1)) for mt in re.finditer(r"(?<![\w$-])([A-Z][a-z]+-[\w]+)\b", body)
            if mt.group(1) in funcs]


def _reachable(funcs: dict, roots) -> set[str]:
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [callee for _, callee in _calls(funcs, funcs[name][1])]
    return seen


# What changes the disk: file cmdlets, the script's own writers, a download.
_WRITES = re.compile(r"(?i)(?<![\w-])(New-Item|Copy-Item|Move-Item|Remove-Item|Expand-Archive|Set-Content|"
                     r"Out-File|Write-Utf8File|Save-Download|Invoke-WebRequest)\b")


@pytest.mark.parametrize("name", ["tf29", "tf24"])
def test_check_only_reaches_no_write(m, name):
    """-CheckOnly runs what Invoke-Setup calls outside Install-All: none of it writes (the checks run inline
    with -B), and the one remover on its path only removes a venv that New-Venv created in this run."""
    funcs = functions(_render(m, name))
    roots = {callee for _, callee in _calls(funcs, funcs["Invoke-Setup"][1])} - {"Install-All"}
    assert {"Assert-Installed", "Invoke-Checks"} <= roots
    reached = _reachable(funcs, roots)
    assert "New-Venv" not in reached and "Install-Packages" not in reached
    for function in reached - {"Remove-CreatedVenv"}:
        assert not _WRITES.search(funcs[function][1]), f"{function} writes"
    setters = {n for n, (_, body) in funcs.items() if re.search(r"\$script:VenvCreated = -not", body)}
    assert setters == {"New-Venv"}
    assert "'-B', '-c', $CheckProgram" in _render(m, name)


def _dry_run_guard(body: str) -> int:
    """Where the function's `if ($DryRun) { ... return/continue }` ends, or -1."""
    found = re.search(r"if \(\$DryRun\) \{", body)
    if not found:
        return -1
    depth = 0
    for i in range(found.end() - 1, len(body)):
        depth += {"{": 1, "}": -1}.get(body[i], 0)
        if depth == 0:
            return i if re.search(r"\b(return|continue)\b", body[found.end():i]) else -1
    return -1


@pytest.mark.parametrize("name", ["tf29", "tf24"])
def test_dry_run_stops_before_every_write(m, name):
    """On the install path, each write is behind an `if ($DryRun) { ... return }` of its own function or of
    every function that calls it."""
    funcs = functions(_render(m, name))
    callers = {}
    for caller, (_, body) in funcs.items():
        for pos, callee in _calls(funcs, body):
            callers.setdefault(callee, []).append((caller, pos))

    def guarded(function: str, pos: int, depth: int = 0) -> bool:
        if 0 <= _dry_run_guard(funcs[function][1]) < pos:
            return True
        sites = callers.get(function, [])
        return depth < 6 and bool(sites) and all(guarded(c, p, depth + 1) for c, p in sites)

    install = _reachable(funcs, ["Install-All"]) - {"Stop-Setup", "Remove-CreatedVenv"}
    writers = [f for f in install if _WRITES.search(funcs[f][1])]
    assert {"Install-Packages", "Install-Hook", "Copy-Dlls"} <= set(writers)
    for function in writers:
        first = _WRITES.search(funcs[function][1]).start()
        assert guarded(function, first), f"{function} writes before any -DryRun guard"
    venv_body = funcs["New-Venv"][1]  # `python -m venv` is a program, not a cmdlet: its own guard
    assert 0 <= _dry_run_guard(venv_body) < venv_body.index("Invoke-Native")
    assert "if ($existed -and -not $DryRun) {" in _render(m, name)


def test_python_runs_only_through_the_utf8_wrappers(m):
    """Every program (python.exe above all) runs inside Invoke-Utf8: captured by Invoke-Native, or on the
    console by Invoke-Console; nothing else invokes a program or sets the console's encoding."""
    for name in ("tf29", "tf24"):
        funcs = functions(_render(m, name))
        invokers = {n for n, (_, body) in funcs.items() if re.search(r"&\s*\$|Start-Process", body)}
        assert invokers == {"Invoke-Utf8", "Invoke-Native", "Invoke-Console"}
        assert all("Invoke-Utf8 -Action" in funcs[f][1] for f in ("Invoke-Native", "Invoke-Console"))
        text = _render(m, name)
        assert "$env:PYTHONIOENCODING = 'utf-8'" in text and "$env:PYTHONUTF8 = '1'" in text


# --- what runs inside Python, run here by this machine's Python ------------------------------------


# User folders as on real machines: ASCII, C:\\Users\\Jos\u00e9 (Latin-1), C:\\Users\\<Chinese name> (outside cp1252).
HOMES = ["user", "Jos\u00e9", "\u5f20\u4e09"]
# (what Python writes with, what PowerShell reads with): a Western and a Chinese Windows's ANSI/OEM pairs.
CODE_PAGES = [("utf-8", "utf-8"), ("cp1252", "cp850"), ("cp936", "cp437")]
FAKE_LOADER = FAKES / "windows_loader.py"


@pytest.fixture(scope="module")
def venvs(tmp_path_factory):
    """A real venv (without pip: seconds) under .../C/Users/<name>/AppData/Local/tfenv/tf29 per user name."""
    root = tmp_path_factory.mktemp("homes")
    out = {}
    for home in HOMES:
        venv = root / "C" / "Users" / home / "AppData" / "Local" / "tfenv" / "tf29"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        out[home] = venv
    return out


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _site(venv: Path) -> Path:
    return venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def _run_as_windows(args, written: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """A child Python whose stdio encoding is a Windows code page (PowerShell's pipe without the fix)."""
    return subprocess.run([str(a) for a in args], capture_output=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": written, **(env or {})})


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")  # the committed .ps1 is CRLF, and so is every here-string it passes


@pytest.mark.parametrize("home", HOMES)
@pytest.mark.parametrize("written, read", CODE_PAGES)
def test_probe_reads_the_same_under_windows_code_pages(m, venvs, home, written, read):
    """The probe prints JSON with ASCII escapes: whatever code pages write and read it, the path is intact."""
    probe = _here_string(_render(m, "tf29"), "PythonProbe")
    assert '"' not in probe  # Windows PowerShell 5.1 drops unescaped double quotes in native arguments
    python = _venv_python(venvs[home])
    result = _run_as_windows([python, "-c", _crlf(probe)], written)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    info = json.loads(result.stdout.decode(read))
    assert info == {"version": f"{sys.version_info[0]}.{sys.version_info[1]}", "bits": 64,
                    "executable": str(python), "prefix": str(venvs[home]), "conda": []}


def test_a_plain_print_of_the_path_is_what_broke(venvs):
    """The control: printing the path as the old probe did dies or garbles under the same code pages."""
    python = _venv_python(venvs["\u5f20\u4e09"])
    result = _run_as_windows([python, "-c", "import sys; print(sys.executable)"], "cp1252")
    assert result.returncode != 0 and b"UnicodeEncodeError" in result.stderr
    python = _venv_python(venvs["Jos\u00e9"])
    out = _run_as_windows([python, "-c", "import sys; print(sys.executable)"], "cp1252").stdout.decode("cp850")
    assert "Jos\u00e9" not in out and "Jos\u00da" in out  # the JosΘ-style garbling the issue reports


def test_probe_names_conda(m, venvs, tmp_path):
    """A prefix with conda-meta (Anaconda, Miniconda, conda-forge) or the active CONDA_PREFIX is reported."""
    probe = _here_string(_render(m, "tf29"), "PythonProbe")
    venv = tmp_path / "Miniconda3"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (venv / "conda-meta").mkdir()
    result = _run_as_windows([_venv_python(venv), "-c", _crlf(probe)], "cp936", {"CONDA_PREFIX": str(venv)})
    conda = json.loads(result.stdout.decode("cp437"))["conda"]
    assert conda == [f"conda-meta in {venv}", "CONDA_PREFIX is its prefix"]
    text = _render(m, "tf29")
    assert "conda's Python ($($conda -join '; ')), refused" in text
    assert "if ($conda.Count -gt 0)" in functions(text)["Get-PythonRefusal"][1]


def _dll_map(m, env_name: str, venv: Path) -> dict:
    """Where a correct install's DLLs are: the VC++ runtime in System32, TF's and cuDNN's in the hook folders."""
    env = m.env(env_name)
    system32 = "/C/Windows/System32"
    found = {name: f"{system32}/{name}" for name in m.windows.vc_runtime}
    folder = venv / windows.hook_dirs(env)[-1]
    for name in env.windows_dlls + env.cuda.windows.cudnn_dlls + env.windows_optional_dlls:
        found[name] = str(folder / name)
    return found


def _run_checks(m, venv: Path, found: dict, written: str, tmp_path: Path) -> tuple[int, list[str], str]:
    program = tmp_path / "check.py"
    program.write_text(_crlf(_here_string(_render(m, "tf29"), "CheckProgram")), encoding="utf-8", newline="")
    dlls = tmp_path / "dlls.json"
    dlls.write_text(json.dumps(found), encoding="utf-8")
    result = _run_as_windows([_venv_python(venv), FAKE_LOADER, dlls, program], written)
    stdout = result.stdout.decode(written)
    # Each verdict without its path, which differs between the user folders.
    verdicts = [re.sub(r" loads from .*", " loads", line) for line in stdout.splitlines()]
    return result.returncode, verdicts, result.stderr.decode(written, "replace")


@pytest.mark.parametrize("written, read", CODE_PAGES[1:])
def test_checks_report_the_same_for_every_user_folder(m, venvs, tmp_path, written, read):
    """The final checks run to their verdicts with C:\\Users\\<any name> under Windows code pages (a path the
    code page cannot spell is escaped, not a crash), and reach the same verdicts as for an ASCII folder."""
    outcomes = {}
    for home in HOMES:
        code, verdicts, stderr = _run_checks(m, venvs[home], _dll_map(m, "tf29", venvs[home]), written, tmp_path)
        assert "Traceback" not in stderr, stderr
        outcomes[home] = (code, verdicts)
    assert len(set(map(repr, outcomes.values()))) == 1, outcomes
    code, verdicts = outcomes["user"]
    env = m.env("tf29")
    for name in env.windows_dlls + env.cuda.windows.cudnn_dlls:
        assert f"ok: {name} loads" in verdicts
    assert verdicts[-1].startswith("FAIL: import tensorflow: ") and code == 1  # no TF in this venv: the finding


def test_checks_fail_a_dll_from_system32_or_missing(m, venvs, tmp_path):
    """A stray cuDNN part in System32 (as some guides say to copy) is a FAIL with its path; a missing DLL too."""
    venv = venvs["\u5f20\u4e09"]
    found = _dll_map(m, "tf29", venv)
    found["cudnn_cnn_infer64_8.dll"] = "/C/Windows/System32/cudnn_cnn_infer64_8.dll"
    found["cublasLt64_11.dll"] = None
    program = tmp_path / "check.py"
    program.write_text(_here_string(_render(m, "tf29"), "CheckProgram"), encoding="utf-8")
    dlls = tmp_path / "dlls.json"
    dlls.write_text(json.dumps(found), encoding="utf-8")
    out = _run_as_windows([_venv_python(venv), FAKE_LOADER, dlls, program], "cp936").stdout.decode("cp936")
    assert ("FAIL: cudnn_cnn_infer64_8.dll loads from /C/Windows/System32/cudnn_cnn_infer64_8.dll -> not the venv "
            "copy: remove or rename /C/Windows/System32/cudnn_cnn_infer64_8.dll") in out
    assert "FAIL: cublasLt64_11.dll does not load: [WinError 126]" in out
    assert "ok: cudnn_ops_infer64_8.dll loads from " + str(venv) in out


def test_cudnn_parts_come_from_the_matrix(m):
    program = _here_string(_render(m, "tf24"), "CheckProgram")
    parts = list(m.cuda["11.0"].windows.cudnn_dlls)
    assert f"CUDNN_PARTS = {parts!r}" in program and len(parts) == 6
    assert "CUDNN_PARTS = []" in _here_string(_render(m, "tf22"), "CheckProgram")  # cuDNN 7: one DLL
    assert all(p in _render(m, "tf24") for p in parts)  # the guided route counts them as installed DLLs


@pytest.mark.parametrize("home", HOMES)
def test_pth_hook_prepends_the_folders_once_at_startup(m, venvs, home):
    """site.py runs the .pth line inside a function at every start: run it the way site does, twice, in a venv
    under each user folder, its PATH printed with ASCII escapes under a Windows code page."""
    env = m.env("tf29")
    hook_line = windows.hook_line(env)
    assert hook_line.isascii()  # site.py reads a .pth in the locale's encoding
    venv = venvs[home]
    (_site(venv) / windows.HOOK_NAME).write_text(hook_line + "\n", encoding="utf-8")
    code = "import os, site, sys; site.addsitedir(sys.argv[1]); print(ascii(os.environ['PATH']))"
    result = _run_as_windows([_venv_python(venv), "-c", code, _site(venv)], "cp1252")
    (_site(venv) / windows.HOOK_NAME).unlink()
    assert result.returncode == 0, result.stderr
    path = ast.literal_eval(result.stdout.decode("cp850").strip()).split(os.pathsep)
    wanted = [os.path.join(str(venv), *d.split("/")) for d in windows.hook_dirs(env)]
    assert path == wanted + ["/usr/bin", "/bin"]
    assert any(p.endswith(os.path.join("nvidia", "cudnn", "bin")) for p in path)


def test_check_program_is_valid_python_36(m):
    for name in ("tf22", "tf29"):
        program = _here_string(_render(m, name), "CheckProgram")
        ast.parse(program, feature_version=(3, 6))
        assert '"' not in program  # passed inline (-c): 5.1 drops unescaped double quotes


def _split_like_msvcrt(line: str) -> list[str]:
    """How the Microsoft C runtime (python.exe's, curl.exe's) splits a command line into argv."""
    args, current, i, quoted, started = [], "", 0, False, False
    while i < len(line):
        c = line[i]
        if c == "\\":
            n = len(line[i:]) - len(line[i:].lstrip("\\"))
            if line[i + n:i + n + 1] == '"':
                current += "\\" * (n // 2) + ('"' if n % 2 else "")
                i += n + (1 if n % 2 else 0)
            else:
                current, i = current + "\\" * n, i + n
            started = True
            continue
        if c == '"':
            quoted, started, i = not quoted, True, i + 1
            continue
        if c in " \t" and not quoted:
            if started:
                args.append(current)
            current, started, i = "", False, i + 1
            continue
        current, started, i = current + c, True, i + 1
    if started:
        args.append(current)
    return args


def test_start_process_arguments_survive_the_c_runtime(m):
    """ConvertTo-CommandLine's two replacements (the script's own regexes, run here) give back every argument."""
    text = _render(m, "tf29")
    start = text.index("function ConvertTo-CommandLine")
    function = text[start:text.index("\n}\n", start)]
    (p1, r1), (p2, r2) = re.findall(r"-replace '([^']+)', '([^']+)'", function)
    assert "$argument -notmatch '[\\s\"]'" in function and "-join ' '" in function

    def quote(arg: str) -> str:
        if arg and not re.search(r'[\s"]', arg):
            return arg
        return '"' + re.sub(p2, r2.replace("$1", r"\1"), re.sub(p1, r1.replace("$1", r"\1"), arg)) + '"'

    args = ["-m", "pip", "install", "-r",
            "C:\\Users\\Jos\u00e9 Garc\u00eda\\AppData\\Local\\tfenv\\tf29\\tfenv\\requirements.txt",
            "C:\\Users\\\u5f20\u4e09\\", "", 'say "hi"', "a\\\\\"b", "--output", "x.part", "tab\there",
            "import sys\r\nprint(sys.prefix)\r\n"]
    assert _split_like_msvcrt(" ".join(quote(a) for a in args)) == args


# --- the command ----------------------------------------------------------------------------------


def test_command_writes_the_committed_script(tmp_path):
    out = tmp_path / "setup.ps1"
    result = _invoke("windows", "tf29", "-o", str(out))
    assert result.exception is None, result.output
    data = out.read_bytes()
    assert data == (ROOT / "windows" / "tf29" / "setup.ps1").read_bytes()  # byte for byte, CRLF as checked out
    assert data.count(b"\n") == data.count(b"\r\n") and data.isascii() and not data.startswith(b"\xef\xbb\xbf")


def test_command_to_stdout_and_bad_names():
    result = _invoke("windows", "tf29")
    assert result.exception is None and "TensorFlow 2.9.3" in result.output
    result = _invoke("windows", "tf299")
    assert isinstance(result.exception, model.UnknownEnvError) and "did you mean 'tf29'" in str(result.exception)


def test_a_stack_without_a_windows_route_says_so(matrix_data, write_matrix):
    del matrix_data["cuda"]["10.2"]["windows"]
    m = validate.load(write_matrix(matrix_data))
    with pytest.raises(windows.WindowsScriptError, match="CUDA 10.2 has no 'windows' section"):
        windows.render(m, m.env("tf22"), locks_root=ROOT / "locks")
    assert "windows/tf22/setup.ps1" not in {g.relpath for g in windows.render_all(m)}


def test_show_names_the_windows_route():
    import json

    result = _invoke("show", "tf29", "--json")
    assert result.exception is None, result.output
    win = json.loads(result.output)["windows"]
    assert win["route"] == "pip" and win["python"] == "3.10" and win["script"] == "windows/tf29/setup.ps1"
    assert win["path_dirs"][0] == "Lib/site-packages/nvidia/cuda_runtime/bin"
    assert json.loads(_invoke("show", "tf24", "--json").output)["windows"]["route"].startswith("guided")


def test_render_check_finds_windows_drift_and_stale_scripts(checkout_copy):
    path = checkout_copy / "matrix.yaml"
    text = path.read_text(encoding="utf-8")
    driver = 'windows: "461.33"'  # CUDA 11.2's Windows driver minimum (a wheel pin would need a new lock)
    assert text.count(driver) == 1
    path.write_text(text.replace(driver, 'windows: "461.40"'), encoding="utf-8")
    (checkout_copy / "windows" / "tf21").mkdir()
    (checkout_copy / "windows" / "tf21" / "setup.ps1").write_text("stale\n", encoding="utf-8")
    problems = generated.check(windows.render_all(validate.load(path)), checkout_copy, ("windows/*/*",))
    assert "windows/tf29/setup.ps1: differs from matrix.yaml" in problems
    assert "windows/tf21/setup.ps1: stale (no matrix entry renders it)" in problems
    assert not any(p.startswith("windows/tf24/") for p in problems)  # CUDA 11.0 takes no wheels


def test_a_quote_in_a_rendered_value_is_refused(matrix_data, write_matrix):
    matrix_data["cuda"]["10.2"]["windows"]["installer"]["components"].append("cudart_10.2' ; evil")
    m = validate.load(write_matrix(matrix_data))
    with pytest.raises(windows.WindowsScriptError, match="installer_components value .* has a quote"):
        windows.render(m, m.env("tf22"), locks_root=ROOT / "locks")
