"""Where a log ran, seen from WSL's side (builder.diagnose.context._platform): the names only WSL 2 has make a log
that otherwise looks like Linux a WSL 2 log, so that its libcuda failure gets WSL's reading (the Windows driver's
folder), and `wsl.exe`'s own output says WSL 1 or 2 also when piped from Windows as UTF-16 (a NUL after each
letter)."""

import pytest

from builder import diagnose
from builder.matrix.facts import facts_from_matrix
from tests.helpers import matrix

LIBCUDA = ("2022-11-02 10:11:12.123456: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not "
           "load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file "
           "or directory\n")


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


@pytest.mark.parametrize("evidence", [
    "PS C:\\Users\\me> code \\\\wsl$\\Ubuntu\\home\\me\\project",  # Windows' UNC path to a distribution
    "Opened \\\\wsl.localhost\\Ubuntu-22.04\\home\\me\\project",
    "WAYLAND_DISPLAY=wayland-0 XDG_RUNTIME_DIR=/mnt/wslg/runtime-dir",  # WSLg
    "WSL_DISTRO_NAME=Ubuntu-22.04",
    "WSL_INTEROP=/run/WSL/1234_interop",
    "[    0.412345] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22",  # dxgkrnl in dmesg
    "I set memory=16GB in C:\\Users\\me\\.wslconfig",
    "WSL version: 2.0.9.0\nKernel version: 5.15.133.1-1",  # `wsl --version`
    "WSL 版本： 1.0.3.0\n内核版本： 5.15.79.1",  # `wsl --version` on a Chinese Windows
    "WSL バージョン: 2.0.14.0",
    "Linux DESKTOP-1 5.15.90.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux",  # uname -a
    "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_7b5b1a5c/libcuda.so.1.1",
    "\x00".join("  NAME      STATE           VERSION\n* Ubuntu    Running         2\n"),  # wsl -l -v, UTF-16
])
def test_names_only_wsl2_has_say_wsl2(evidence, facts):
    result = diagnose.explain(evidence + "\n" + LIBCUDA, facts)
    assert result.context.platform.value == "wsl2", result.context.as_dict()
    assert result.findings[0].id == "wsl-lib-path", [f.id for f in result.findings]
    assert "/usr/lib/wsl/lib" in result.findings[0].fix


def test_wsl_list_in_utf16_says_wsl1(facts):
    listing = "\x00".join("  NAME      STATE           VERSION\n* Ubuntu    Running         1\n")
    result = diagnose.explain(listing + "\n" + LIBCUDA, facts)
    assert result.context.platform.value == "wsl1" and result.findings[0].id == "wsl1"


@pytest.mark.parametrize("log", [
    "user@server:~/project$ python3 train.py\n" + LIBCUDA,  # a Linux host
    "  File \"/mnt/data/train.py\", line 3, in <module>\n" + LIBCUDA,  # a Linux mount, not a Windows drive
    # native Windows with its DLLs, beside a path into a WSL distribution
    "PS C:\\> python \\\\wsl$\\Ubuntu\\home\\me\\train.py\n2022-11-02 10:11:12.123456: W tensorflow/stream_executor/"
    "platform/default/dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll "
    "not found\n",
])
def test_other_logs_stay_off_wsl2(log, facts):
    assert diagnose.explain(log, facts).context.platform.value != "wsl2"
