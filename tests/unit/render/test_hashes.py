"""Hash-locked pins: every committed lock hashes every pin, every generated install checks them, and pip's
refusal of a substituted file becomes one line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from builder.core import paths
from builder.docker import base
from builder.matrix import validate
from builder.render import lock, windows

ROOT = Path(__file__).resolve().parents[3]
LOCKS = sorted((ROOT / "locks").glob("*.txt"))
M = validate.load()

# pip 23.0.1's refusal, as it printed it here for a toml wheel repacked by tests/slow/test_hashes.py's index on
# 127.0.0.1 (pip install --no-deps --require-hashes --index-url http://127.0.0.1:38933/simple -r r.txt).
PIP_REFUSAL = """\
Looking in indexes: http://127.0.0.1:38933/simple
Collecting toml==0.10.2
  Downloading http://127.0.0.1:38933/files/toml-0.10.2-py2.py3-none-any.whl (16 kB)
ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package \
versions, please update the hashes. Otherwise, examine the package contents carefully; someone may have \
tampered with them.
    toml==0.10.2 from http://127.0.0.1:38933/files/toml-0.10.2-py2.py3-none-any.whl#sha256=\
3b84c03271a432c90fe0cab73cd661213a0794cfb26e6dc3db5b7b59326a5443 (from -r /tmp/hashtest/r.txt (line 1)):
        Expected sha256 806143ae5bfb6a3c6e736a764057db0e6a0e05e338b5630894a5f779cabb4f9b
             Got        3b84c03271a432c90fe0cab73cd661213a0794cfb26e6dc3db5b7b59326a5443
""".replace("\\\n", "")


@pytest.mark.parametrize("path", LOCKS, ids=lambda p: p.name)
def test_every_committed_pin_has_a_hash(path):
    parsed = lock.parse(path)
    assert parsed.pins, path.name
    assert parsed.unhashed() == [], f"{path.name}: pins without --hash: {parsed.unhashed()[:5]}"
    assert "--require-hashes" in path.read_text(encoding="utf-8").split("\n\n", 1)[0]  # the header says so


def test_every_lock_the_matrix_needs_is_committed():
    names = {p.name for p in LOCKS}
    for target in lock.lock_targets(M):
        assert paths.lock_name(target) in names and paths.lock_name(target, True) in names
    for python in lock.linux_wheel_platforms(M):
        assert paths.wheels_lock_path(python).name in names
    for python in windows.wheel_pythons(M):
        assert paths.wheels_lock_path(python, windows=True).name in names


def test_lock_text_round_trips(tmp_path):
    pins = [lock.Pin("six", "1.16.0", ("a" * 64, "b" * 64)), lock.Pin("toml", "0.10.2", ("c" * 64,))]
    path = lock.write(tmp_path / "x.txt", lock.lock_text("t", "2022-12-31", "x86_64-manylinux_2_31", "3.9", pins))
    parsed = lock.parse(path)
    assert parsed.pin_list() == pins
    assert parsed.hashed()[0] == f"six==1.16.0 --hash=sha256:{'a' * 64} --hash=sha256:{'b' * 64}"


def test_a_malformed_hash_is_one_clear_error(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("six==1.16.0 \\\n    --hash=sha256:nothex\n", encoding="utf-8")
    with pytest.raises(lock.LockError, match=r"x\.txt:1: expected 'name==version \[--hash=sha256:HEX"):
        lock.parse(path)


@pytest.mark.parametrize("glibc, platform", [("2.17", "x86_64-manylinux_2_17"), ("2.27", "x86_64-manylinux_2_17"),
                                             ("2.28", "x86_64-manylinux_2_28"), ("2.31", "x86_64-manylinux_2_31")])
def test_hashes_are_for_the_wheels_the_os_glibc_installs(glibc, platform):
    assert lock.manylinux_platform(glibc) == platform


def test_a_lock_shared_by_two_variants_takes_the_lower_glibc():
    assert lock.linux_platform(M, M.target("tf29", "ubuntu20.04")) == "x86_64-manylinux_2_17"  # with bionic
    assert lock.linux_platform(M, M.target("tf29", "debian11")) == "x86_64-manylinux_2_31"


def test_pip_refusal_becomes_one_line_naming_package_version_and_index():
    message = lock.hash_mismatch(PIP_REFUSAL.splitlines(), "tfenv.lock")
    assert message.startswith("toml 0.10.2 from 127.0.0.1:38933 is not the file tfenv.lock names")
    assert "\n" not in message and "PIP_INDEX_URL" in message
    assert lock.hash_mismatch(["ERROR: No matching distribution found for toml==0.10.2"]) is None


def test_credentials_in_an_index_url_are_never_repeated():
    lines = ["ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.",
             "    six==1.16.0 from https://user:secret@mirror.example.org/p/six.whl (from -r r.txt (line 1)):"]
    message = lock.hash_mismatch(lines)
    assert "mirror.example.org" in message and "secret" not in message


GENERATED = sorted((ROOT / "dockerfiles").glob("*/*/Dockerfile")) + sorted((ROOT / "wsl").glob("*/install.sh")) + \
    sorted((ROOT / "windows").glob("*/setup.ps1"))


@pytest.mark.parametrize("path", GENERATED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_generated_pip_install_requires_hashes(path):
    text = path.read_text(encoding="utf-8")
    installs = [ln for ln in text.splitlines() if re.search(r"pip'?,? '?install\b|-m pip install|pip install ", ln)
                and not ln.lstrip().startswith(("#", "echo", "Write-Step"))]
    assert installs, path
    for line in installs:
        assert "--require-hashes" in line, f"{path.name}: {line.strip()}"


def test_project_dockerfile_installs_tfenv_lock_with_hashes():
    text = (ROOT / "builder" / "templates" / "project" / "Dockerfile.j2").read_text(encoding="utf-8")
    assert "--no-deps --require-hashes -r /tmp/tfenv-project/tfenv.lock" in text


def test_debootstrap_checks_signatures_with_debians_keyring(tmp_path):
    cmd = base.debootstrap_command("debootstrap", "bullseye", tmp_path, None)
    assert f"--keyring={base.KEYRING}" in cmd and not any("no-check-gpg" in c for c in cmd)


def test_guided_windows_downloads_are_checked_before_the_installer_runs():
    for env in [e for e in M.envs.values() if windows.supported(e) and e.cuda.windows.source == "installer"]:
        installer = env.cuda.windows.installer
        assert re.fullmatch(r"[0-9a-f]{32}", installer.md5) and installer.md5_source.startswith("https://")
        text = windows.render(M, env).text
        body = text[text.index("function Invoke-CudaInstaller {"):]
        assert body.index("Test-FileChecksum -Path $Installer.Path -Algorithm 'MD5'") < \
            body.index("Invoke-Console -FilePath $Installer.Path"), env.name  # checked, then run
        guided = text[text.index("function Install-CudaRuntime {"):]
        assert guided.index("Test-FileChecksum -Path $CudnnZip") < guided.index("Test-Administrator") < \
            guided.index("Invoke-CudaInstaller -Installer"), env.name  # the zip too, before anything runs
        assert f"$InstallerMd5 = '{installer.md5}'" in text


def test_install_sh_turns_pips_refusal_into_the_same_one_line(tmp_path):
    log = tmp_path / "pip.log"
    log.write_text(PIP_REFUSAL, encoding="utf-8")
    script = (ROOT / "wsl" / "tf29" / "install.sh").read_text(encoding="utf-8")
    function = re.search(r"^hash_mismatch\(\) \{.*?^\}$", script, re.S | re.M).group(0)
    out = subprocess.run(["bash", "-c", f'{function}\nhash_mismatch "$1"', "bash", str(log)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout.count("\n") == 1, out
    assert out.stdout.startswith("toml 0.10.2 from 127.0.0.1:38933 is not the file the lock names"), out.stdout


# The same refusal in pip's --log file (what setup.ps1 reads: pip runs on its own console there), as pip
# 23.0.1 wrote it here for the same repacked wheel: a timestamp before every line.
PIP_LOG = """\
2026-12-01T21:10:46,783 ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have \
updated the package versions, please update the hashes. Otherwise, examine the package contents carefully; someone \
may have tampered with them.
2026-12-01T21:10:46,783     toml==0.10.2 from http://127.0.0.1:37581/files/toml-0.10.2-py2.py3-none-any.whl#sha256=\
741dc5a7713dd6c9e6fa86932d4d19b3aa558897e366bee1554c2333ecf70986 (from -r /tmp/hashtest/r.txt (line 1)):
2026-12-01T21:10:46,783         Expected sha256 806143ae5bfb6a3c6e736a764057db0e6a0e05e338b5630894a5f779cabb4f9b
2026-12-01T21:10:46,783              Got        741dc5a7713dd6c9e6fa86932d4d19b3aa558897e366bee1554c2333ecf70986
"""


def test_setup_ps1_finds_the_refused_pin_in_pips_log():
    """The pattern Get-HashMismatch matches with (.NET and Python agree on this subset), on pip's log."""
    text = windows.render(M, M.env("tf29")).text
    pattern = re.search(r"\$seen -and \$line -match '([^']+)'", text).group(1)
    lines = PIP_LOG.splitlines()
    start = next(i for i, ln in enumerate(lines) if "DO NOT MATCH THE HASHES" in ln)
    found = next(m for m in (re.match(pattern, ln) for ln in lines[start + 1:]) if m)
    assert found.group(1, 2, 4) == ("toml", "0.10.2", "127.0.0.1:37581")
    assert re.match(pattern, "    six==1.16.0 from https://u:secret@mirror.example.org/six.whl").group(4) == (
        "mirror.example.org")
