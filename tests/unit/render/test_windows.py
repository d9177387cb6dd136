"""`tfenv windows`: the matrix's Windows data, each rendered setup.ps1 against the matrix and the Windows
lock, the .pth hook and the embedded Python run for real (by this machine's Python), and the command.

Nothing here runs PowerShell or Windows: the parse and 5.1-pitfall checks of every committed .ps1 are in
test_powershell.py; the real wheels are checked by tests/slow/test_windows_wheels.py.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from builder.cli import cli
from builder.matrix import model, validate
from builder.render import generated, windows
from tests.helpers import ROOT


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
    assert _ps_array(text, "Requirements") == lock_pins + [f"{n}=={v}" for n, v in stack.pip.items()]
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
    """Parameters, documented exit codes and safe defaults of the pip and the guided script."""
    for name in ("tf29", "tf24"):
        text = _render(m, name)
        for parameter in ("[string]$Venv = ''", "[string]$Python = ''", "[switch]$CheckOnly", "[switch]$DryRun"):
            assert parameter in text
        assert "\"tfenv\\$EnvName\"" in text and "$env:LOCALAPPDATA" in text
        codes = {int(c) for c in re.findall(r"Stop-Setup -Code (\d+)", text)}
        doc = text.split("Exit codes:", 1)[1].split(".PARAMETER")[0]
        documented = {int(c) for c in re.findall(r"(\d+) [-a-zA-Z]", doc)}
        assert codes <= documented, codes - documented
        assert "'--no-deps', '-r'" in text and "PIP_INDEX_URL" in text
        calls = re.findall(r"Invoke-WebRequest .*", text)
        assert all("-UseBasicParsing" in c for c in calls) and bool(calls) == (name == "tf24")


# --- what runs inside Python, run here by this machine's Python ------------------------------------


def test_pth_hook_prepends_the_folders_once_at_startup(m, tmp_path):
    """site.py runs the .pth line inside a function: run it the same way (site.addsitedir), twice."""
    env = m.env("tf29")
    (tmp_path / windows.HOOK_NAME).write_text(windows.hook_line(env) + "\n", encoding="utf-8")
    code = ("import os, site, sys; site.addsitedir(sys.argv[1]); site.addsitedir(sys.argv[1]); "
            "print(sys.prefix); print(os.environ['PATH'])")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin"}, check=True).stdout.splitlines()
    prefix, path = out[0], out[1].split(os.pathsep)
    wanted = [os.path.join(prefix, *d.split("/")) for d in windows.hook_dirs(env)]
    assert path == wanted + ["/usr/bin", "/bin"]
    assert any(p.endswith(os.path.join("nvidia", "cudnn", "bin")) for p in path)


def test_python_probe_and_check_program_are_valid_python(m):
    text = _render(m, "tf29")
    probe = re.search(r"^\$PythonProbe = '(.*)'$", text, re.M).group(1)
    assert '"' not in probe  # Windows PowerShell 5.1 drops unescaped double quotes in native arguments
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    version, bits, executable, _ = out.strip().split("|")
    assert version == f"{sys.version_info[0]}.{sys.version_info[1]}" and bits == "64" and executable == sys.executable
    for name in ("tf22", "tf29"):
        program = _here_string(_render(m, name), "CheckProgram")
        ast.parse(program, feature_version=(3, 6))


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
    assert text.count('nvidia-cudnn-cu11: "8.9.4.25"') == 1
    path.write_text(text.replace('nvidia-cudnn-cu11: "8.9.4.25"', 'nvidia-cudnn-cu11: "8.9.5.29"'), encoding="utf-8")
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
