"""`tfenv wsl`: the rendered scripts (shellcheck, drift, reviewed snapshots), their options and messages,
the PowerShell conventions that can be checked without PowerShell, and the matrix's wsl schema."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import cli
from builder.matrix import model, validate
from builder.render import generated, lock, wsl
from tests.helpers import ROOT, UNIT, tfenv
from tests.unit.powershell_lint import functions

SNAPSHOTS = UNIT / "snapshots"
SCRIPTS = sorted((ROOT / "wsl").glob("*/install.sh"))
POWERSHELL = sorted((ROOT / "wsl").glob("*/setup.ps1"))
VENV = "/home/user/.venvs/tfenv"



def _run(script, *args, env=None):
    return subprocess.run(["bash", str(script), *args], capture_output=True, text=True, env=env, timeout=60)


def _invoke(*args):
    return CliRunner().invoke(cli, list(args), standalone_mode=False, catch_exceptions=True)


# --- the committed renders ---------------------------------------------------------------------


def test_every_environment_has_both_scripts(m):
    assert {p.parent.name for p in SCRIPTS} == set(m.envs)
    assert {p.parent.name for p in POWERSHELL} == set(m.envs)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.parent.name)
def test_shellcheck(script):
    tool = shutil.which("shellcheck")
    if not tool:
        pytest.fail("shellcheck is not installed: pip install -e '.[dev]'")
    result = subprocess.run([tool, "--severity=style", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_committed_renders_match_the_matrix(m):
    assert generated.check(wsl.render_all(m), ROOT, stale_globs=("wsl/*/*",)) == []


def test_render_check_covers_wsl(tmp_path):
    copy = tmp_path / "checkout"
    copy.mkdir()
    shutil.copy(ROOT / "matrix.yaml", copy / "matrix.yaml")
    shutil.copytree(ROOT / "wsl", copy / "wsl")
    (copy / "dockerfiles").mkdir()
    path = copy / "matrix.yaml"
    path.write_text(path.read_text().replace("links: [{link: libcupti.so.11.2, to: libcupti.so.11.8}]",
                                             "links: [{link: libcupti.so.11.2, to: libcupti.so.11.9}]"))
    (copy / "wsl" / "tf21").mkdir()
    (copy / "wsl" / "tf21" / "install.sh").write_text("stale\n")
    problems = generated.check(wsl.render_all(validate.load(path)), copy, stale_globs=("wsl/*/*",))
    assert "wsl/tf29/install.sh: differs from matrix.yaml" in problems
    assert "wsl/tf29/setup.ps1: differs from matrix.yaml" not in problems  # no link in the PowerShell side
    assert "wsl/tf21/install.sh: stale (no matrix entry renders it)" in problems
    assert not any(p.startswith("wsl/tf22/") for p in problems)  # CUDA 10.2 takes no wheels


def test_a_wheel_the_wheels_lock_lacks_is_one_error_saying_to_lock(tmp_path):
    path = tmp_path / "matrix.yaml"
    path.write_text((ROOT / "matrix.yaml").read_text().replace('nvidia-cudnn-cu11: "8.6.0.163"        #',
                                                               'nvidia-cudnn-cu11: "8.6.0.164"        #'))
    missing = r"wheels-py3\.\d\.txt has no nvidia-cudnn-cu11==8\.6\.0\.164: run `tfenv lock`"
    with pytest.raises(lock.LockError, match=missing):
        wsl.render_all(validate.load(path))


@pytest.mark.parametrize("env", ["tf22", "tf29"])
def test_dry_run_matches_reviewed_snapshot(env):
    result = _run(ROOT / "wsl" / env / "install.sh", "--dry-run", "--distro", "Ubuntu-20.04", "--venv", VENV,
                  env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert result.stdout == (SNAPSHOTS / f"wsl-{env}-dry-run.txt").read_text(encoding="utf-8")


# --- what the bash script installs ---------------------------------------------------------------


def _dry_run(env, distro):
    result = _run(ROOT / "wsl" / env / "install.sh", "--dry-run", "--distro", distro, "--venv", VENV)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("env", ["tf29", "tf210"])
def test_each_python_gets_its_own_lock(m, env):
    for distro, python in [("Ubuntu-20.04", "3.8"), ("Debian", "3.9")]:
        lines = re.findall(r"^    (\S+==\S+(?: --hash=sha256:[0-9a-f]{64})+)$", _dry_run(env, distro), re.M)
        target = m.target(env, "debian11" if python == "3.9" else "ubuntu20.04")
        wheels = [f"{n}=={v}" for n, v in m.cuda["11.2"].wsl.pip.items()]
        assert [ln.split()[0] for ln in lines] == ["pip==23.0.1"] + lock.read(target).requirements() + wheels
        assert lines[1:-len(wheels)] == lock.read(target).hashed()  # each pin with its lock's hashes


def test_cuda11_takes_the_wheels_and_links_cupti():
    out = _dry_run("tf29", "Debian")
    assert "nvidia-cudnn-cu11==8.6.0.163" in out
    assert "apt-get install -y --no-install-recommends python3.9 python3.9-venv" in out
    assert "cuda-keyring" not in out
    assert f"would link: {VENV}/lib/tfenv/libcupti.so.11.2 -> libcupti.so.11.8" in out
    path = re.search(r'LD_LIBRARY_PATH="([^$]+)\$', out).group(1).split(":")
    assert path[:2] == ["/usr/lib/wsl/lib", f"{VENV}/lib/tfenv"]
    assert f"{VENV}/lib/python3.9/site-packages/nvidia/cudnn/lib" in path


def test_cuda10_takes_exact_runtime_packages_and_no_meta_package(m):
    out = _dry_run("tf22", "Ubuntu-20.04")
    apt = re.search(r"apt-get install -y --no-install-recommends (cuda-.*)$", out, re.M).group(1).split()
    assert apt == [f"{n}={v}" for n, v in m.cuda["10.2"].ubuntu.packages.items()]
    assert not [p for p in apt if re.match(r"(cuda|cuda-\d+-\d+|cuda-drivers)=", p)]
    assert "compute/cuda/repos/ubuntu1804/x86_64" in out
    assert f"would link: {VENV}/lib/tfenv/libcudart.so.10.1 -> libcudart.so.10.2" in out
    assert "nvidia-cudnn-cu11" not in out


def test_a_meta_package_in_the_matrix_is_refused(matrix_data, write_matrix):
    matrix_data["cuda"]["10.2"]["ubuntu"]["packages"]["cuda-10-2"] = "10.2.89-1"
    m = validate.load(write_matrix(matrix_data))
    with pytest.raises(wsl.WslError, match="cuda-10-2, which pull a Linux NVIDIA driver"):
        wsl.render(m, m.env("tf22"), locks_root=ROOT / "locks")


# --- the bash script's own behaviour outside WSL (this machine is not WSL) -----------------------


def test_check_outside_wsl_says_what_to_do(tmp_path):
    result = _run(SCRIPTS[0], "--check", env={"PATH": "/usr/bin:/bin", "TFENV_WSL_ROOT": str(tmp_path)})
    assert result.returncode == 2
    assert "not running inside WSL2" in result.stderr
    assert "run this script inside the WSL2 distribution" in result.stderr
    assert "no libcuda.so in /usr/lib/wsl/lib" in result.stderr


def test_wsl1_is_told_to_convert(tmp_path):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "version").write_text("Linux version 4.4.0-19041-Microsoft (simulated WSL 1)\n")
    result = _run(SCRIPTS[0], "--check", env={"PATH": "/usr/bin:/bin", "TFENV_WSL_ROOT": str(tmp_path)})
    assert result.returncode == 2
    assert "this is WSL 1, which has no GPU" in result.stderr and "wsl --set-version" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "unknown option '--bogus'"),
    (["--venv"], "--venv needs a folder"),
    (["--dry-run", "--distro", "Fedora"], "unknown distribution 'Fedora'"),
])
def test_bad_options_are_one_line_errors(args, message):
    result = _run(ROOT / "wsl" / "tf29" / "install.sh", *args)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [f"tfenv-wsl: error: {result.stderr.split('error: ', 1)[1].strip()}"]
    assert message in result.stderr


# --- the PowerShell script (no PowerShell here: checked as text) ----------------------------------

APPROVED_VERBS = set("""Add Clear Close Copy Enter Exit Find Format Get Hide Join Lock Move New Open Optimize Pop Push
Redo Remove Rename Reset Resize Search Select Set Show Skip Split Step Switch Undo Unlock Watch Connect Disconnect Read
Receive Send Write Backup Checkpoint Compare Compress Convert ConvertFrom ConvertTo Dismount Edit Expand Export Group
Import Initialize Limit Merge Mount Out Publish Restore Save Sync Unpublish Update Approve Assert Build Complete Confirm
Deny Deploy Disable Enable Install Invoke Register Request Restart Resume Start Stop Submit Suspend Uninstall Unregister
Wait Debug Measure Ping Repair Resolve Test Trace Protect Unprotect Block Grant Revoke Unblock Use""".split())  # noqa: SIM905
# An alias in command position (line start or after a pipe); `foreach (` is the language keyword.
ALIASES = (r"(^|\|)\s*(gci|gc|ls|dir|cat|echo|cd|cls|select|where|foreach|%|\?|iex|iwr|curl|wget|sleep|kill|rm|cp|mv)"
           r"(?!\S)(?!\s*\()")


@pytest.mark.parametrize("script", POWERSHELL, ids=lambda p: p.parent.name)
def test_powershell_conventions(script):
    text = script.read_text(encoding="utf-8")
    assert text.isascii()
    assert "Set-StrictMode -Version Latest" in text
    assert "$ErrorActionPreference = 'Stop'" in text
    assert "[CmdletBinding()]" in text
    for name in re.findall(r"^function (\S+)", text, re.M):
        verb, _, noun = name.partition("-")
        assert verb in APPROVED_VERBS and noun, name
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("#", "throw", "Write-Step")))
    assert not re.search(ALIASES, code, re.I | re.M), re.search(ALIASES, code, re.I | re.M)
    assert "Write-Host" not in text


def test_powershell_checks_what_windows_needs(m):
    text = (ROOT / "wsl" / "tf29" / "setup.ps1").read_text(encoding="utf-8")
    assert "$MinimumBuild = 19044" in text
    assert f"$MinimumDriver = [version]'{wsl.driver_min(m, m.env('tf29'))}'" in text
    assert "@('--update')" in text
    assert "[string]$Distribution = 'Ubuntu-20.04'" in text
    assert "'--install', '-d', $Distribution" in text
    assert "--query-gpu=driver_version" in text
    assert "'bash', (Get-LinuxPath), '--distro', $Distribution" in text


def test_driver_is_checked_before_wsl_downloads_anything():
    text = (ROOT / "wsl" / "tf29" / "setup.ps1").read_text(encoding="utf-8")
    steps = re.findall(r"^([A-Z][a-z]+-[A-Za-z]+)\r?$", text, re.M)
    assert steps == ["Assert-WindowsBuild", "Assert-NvidiaDriver", "Assert-Wsl", "Install-Distribution",
                     "Invoke-InstallScript"]


def test_wsl_first_run_and_offline_messages():
    text = (ROOT / "wsl" / "tf29" / "setup.ps1").read_text(encoding="utf-8")
    assert "in an administrator PowerShell run 'wsl --install', restart Windows (it needs a restart)" in text
    assert "warning: 'wsl --update' failed" in text and "WSL works, so this run goes on" in text
    body = functions(text)["Assert-Wsl"][1]
    # a failed update stops only when wsl --status fails too
    update = body.index("if ($update.ExitCode -ne 0) {")
    assert update < body.index("if ($status.ExitCode -ne 0) {", update)


def test_wslenv_carries_pip_and_proxy_settings_and_nothing_that_disables_tls(m):
    text = (ROOT / "wsl" / "tf29" / "setup.ps1").read_text(encoding="utf-8")
    assert ("$WslEnvVariables = @('PIP_INDEX_URL/u', 'PIP_EXTRA_INDEX_URL/u', 'PIP_CERT/up', 'HTTPS_PROXY/u', "
            "'HTTP_PROXY/u', 'NO_PROXY/u')") in text
    assert not re.search(r"TRUSTED_HOST|PYTHONHTTPSVERIFY|NO_VERIFY|INSECURE|CURL_CA_BUNDLE", text, re.I)
    funcs = functions(text)
    # Every wsl.exe run goes through the two functions that know its encodings and WSLENV.
    runners = {n for n, (_, body) in funcs.items() if re.search(r"&\s*\$|Start-Process|Process\]::Start", body)}
    assert runners == {"Invoke-Wsl", "Invoke-Captured"}
    assert re.search(r"finally \{\s+\$env:WSLENV = \$saved", funcs["Invoke-Wsl"][1])


def test_install_sh_codes_are_mapped_so_1_never_means_checks_failed():
    """install.sh's codes (1: final checks, 2: die's default, 130: interrupted) come back as the table's."""
    text = (ROOT / "wsl" / "tf29" / "setup.ps1").read_text(encoding="utf-8")
    mapped = re.search(r"\$mapped = @\{ (.*?) \}", text).group(1)
    assert mapped == "0 = $Exit.Ready; 1 = $Exit.ChecksFailed; 2 = $Exit.InstallStopped; 130 = $Exit.Interrupted"
    bash = (ROOT / "wsl" / "tf29" / "install.sh").read_text(encoding="utf-8")
    assert 'exit "${2:-2}"' in bash and " 130' INT TERM" in bash
    assert set(re.findall(r'die "[^"]*" (\d+)', bash)) == {"1", "130"}  # final checks, Ctrl-C; others 2
    assert "if ($code -lt 0 -or $code -gt 255) {" in text  # wsl.exe's own failure (-1, an HRESULT): 17


def test_install_sh_reports_the_pip_settings_it_received(tmp_path):
    """What WSLENV hands over is named in the preflight; a PIP_CERT that is not a file inside WSL is a problem."""
    env = {"PATH": "/usr/bin:/bin", "TFENV_WSL_ROOT": str(tmp_path), "PIP_INDEX_URL": "https://pypi.example.org/simple",
           "PIP_CERT": "/mnt/c/certs/missing.pem", "HTTPS_PROXY": "http://proxy.example.org:3128"}
    result = _run(SCRIPTS[0], "--check", env=env)
    assert ("tfenv-wsl: pip: index https://pypi.example.org/simple, CA bundle /mnt/c/certs/missing.pem, "
            "proxy http://proxy.example.org:3128") in result.stdout
    assert "PIP_CERT=/mnt/c/certs/missing.pem is not a file inside WSL" in result.stderr
    ca = tmp_path / "ca.pem"
    ca.write_text("not checked here\n")
    result = _run(SCRIPTS[0], "--check", env={**env, "PIP_CERT": str(ca)})
    assert "PIP_CERT=" not in result.stderr


def test_driver_minimum_is_the_higher_of_wsl_and_cuda(matrix_data, write_matrix):
    m = validate.load(write_matrix(matrix_data))
    assert wsl.driver_min(m, m.env("tf29")) == "495.0"
    matrix_data["cuda"]["11.2"]["driver_min"]["windows"] = "527.41"
    m = validate.load(write_matrix(matrix_data))
    assert wsl.driver_min(m, m.env("tf29")) == "527.41"


# --- the command ---------------------------------------------------------------------------------


def test_command_writes_the_committed_render(tmp_path):
    out = tmp_path / "install.sh"
    result = _invoke("wsl", "tf29", "-o", str(out))
    assert result.exception is None, result.output
    assert out.read_bytes() == (ROOT / "wsl" / "tf29" / "install.sh").read_bytes()
    assert out.stat().st_mode & 0o111
    result = _invoke("wsl", "tf29", "--windows", "-o", str(tmp_path / "setup.ps1"))
    # Byte for byte, CRLF included: what .gitattributes checks out is what the command writes.
    assert (tmp_path / "setup.ps1").read_bytes() == (ROOT / "wsl" / "tf29" / "setup.ps1").read_bytes()


def test_command_prints_plain_newlines_to_stdout():
    """Standard output is text: the platform adds its line ends (on Windows, CRLF), so the render must not."""
    result = _invoke("wsl", "tf29", "--windows")
    assert result.exception is None
    assert "\r" not in result.output
    assert result.output == (ROOT / "wsl" / "tf29" / "setup.ps1").read_bytes().decode().replace("\r\n", "\n")


def test_command_with_one_distro_embeds_only_its_lock():
    result = _invoke("wsl", "tf29", "--distro", "Debian")
    assert result.exception is None
    assert "    3.9)" in result.output and "    3.8)" not in result.output
    assert "Ubuntu-20.04)" not in result.output


@pytest.mark.parametrize("args, message", [
    (["wsl", "tf99"], "unknown environment 'tf99'"),
    (["wsl", "tf29", "--distro", "Debain"], "did you mean 'Debian'?"),
    (["wsl", "tf22", "--distro", "Debian"], "unknown WSL distribution for tf22 'Debian'"),
])
def test_command_errors_are_one_line(args, message):
    result = tfenv(*args)
    assert result.returncode == 2
    assert result.stderr.startswith("tfenv: error: ") and result.stderr.count("\n") == 1
    assert message in result.stderr


# --- the matrix's wsl schema ---------------------------------------------------------------------


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["cuda"]["11.2"]["wsl"].update(source="conda"), "cuda.11.2.wsl.source: unknown WSL CUDA source"),
    (lambda d: d["cuda"]["11.2"]["wsl"].pop("pip"), "cuda.11.2.wsl.pip: missing required key"),
    (lambda d: d["cuda"]["10.2"]["wsl"].update(cudnn="8.6.0"), "cuda.10.2.wsl: 'pip' and 'cudnn' belong to"),
    (lambda d: d["wsl"]["distros"]["Debian"].update(os="debian12"), "wsl.distros.Debian.os: unknown OS variant"),
    (lambda d: d["wsl"].update(windows_build_min="19044"), "wsl.windows_build_min: expected a positive integer"),
    (lambda d: d["cuda"]["11.2"]["wsl"].update(cudnn="7.6.5"), "TF needs cuDNN 8.1.x"),
    (lambda d: d["cuda"]["11.2"]["wsl"].update(links=[{"link": "x"}]), "cuda.11.2.wsl.links[0].to: missing"),
])
def test_invalid_wsl_schema_is_one_line(matrix_data, write_matrix, edit, message):
    edit(matrix_data)
    with pytest.raises(model.MatrixError, match=re.escape(message)):
        validate.load(write_matrix(matrix_data))


def test_apt_route_needs_an_ubuntu_section(matrix_data, write_matrix):
    matrix_data["cuda"]["11.2"]["wsl"] = {"source": "apt"}
    del matrix_data["cuda"]["11.2"]["ubuntu"]
    for env in matrix_data["envs"].values():  # no Ubuntu variant can use 11.2 now
        if env["cuda"] == "11.2":
            env["os"] = ["debian11"]
    with pytest.raises(model.MatrixError, match=r"cuda\.11\.2\.wsl\.source: 'apt' takes the packages"):
        validate.load(write_matrix(matrix_data))


def test_final_checks_report_a_non_ascii_path_under_an_ascii_locale(tmp_path):
    """install.sh's embedded checks (taken from the rendered script) print a library path the locale cannot
    spell escaped, and still reach their verdict (here: no TensorFlow in this venv)."""
    bash = (ROOT / "wsl" / "tf29" / "install.sh").read_text(encoding="utf-8")
    program = re.search(r"<<'PY' \|\| rc=\$\?\n(.*?)\nPY\n", bash, re.S).group(1)
    libs = tmp_path / "C" / "Users" / "\u5f20\u4e09" / "lib"
    libs.mkdir(parents=True)
    zlib = next(p for p in (Path("/lib/x86_64-linux-gnu/libz.so.1"), Path("/usr/lib/x86_64-linux-gnu/libz.so.1"))
                if p.exists())
    shutil.copy(zlib, libs / "libz.so.1")
    result = subprocess.run(["python3", "-c", program, "2.9.3", "libz.so.1"], capture_output=True, timeout=60,
                            env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "ascii",
                                 "LD_LIBRARY_PATH": str(libs)})
    out = result.stdout.decode("ascii")
    assert result.returncode == 1 and b"Traceback" not in result.stderr, result.stderr
    assert f"ok   libz.so.1 loads from {libs.parent.parent}/\\u5f20\\u4e09/lib/libz.so.1" in out
    assert "FAIL import tensorflow: ModuleNotFoundError: No module named 'tensorflow'" in out
