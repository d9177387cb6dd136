"""glibc's ldconfig warns on every package install in WSL2: the Windows driver's libcuda.so* in /usr/lib/wsl/lib
are plain copies, not links (elf/ldconfig.c "%s is not a symbolic link")."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, wsl_lib

ID = "wsl-libcuda-symlink"
LXSS_LIB = r"C:\Windows\System32\lxss\lib"


def check(log, ctx):
    readlink = log.first("wsl_readlink")
    if readlink:
        return _read_as_link(readlink)
    evidence = log.all("wsl_not_symlink")[:2]
    if not evidence:
        return None
    name = evidence[0].groups[0]
    cause = t("The NVIDIA Windows driver puts libcuda.so, libcuda.so.1 and libcuda.so.1.1 into {wsl_lib} as "
              "three copies instead of symbolic links, and ldconfig says so each time it runs; CUDA itself still "
              "works.", wsl_lib=wsl_lib(ctx))
    fix = t("nothing breaks, it is a harmless warning; to silence it, replace the copies by symbolic links to "
            "libcuda.so.1.1 in an elevated Windows prompt in {folder}: `del libcuda.so libcuda.so.1`, `mklink "
            "libcuda.so libcuda.so.1.1`, `mklink libcuda.so.1 libcuda.so.1.1`, then `wsl --shutdown` (a driver "
            "update brings the copies back)", folder=LXSS_LIB)
    return Finding(ID, t("ldconfig: {name} is not a symbolic link (harmless in WSL2)", name=name), lines(evidence),
                   cause, fix, "", harmless=True, rank=93)


def _read_as_link(ev):
    """A program that reads WSL's libcuda.so.1 as a link (Python's os.readlink: EINVAL on a file that is none)."""
    cause = t("The program reads {name} as a symbolic link (readlink), but the NVIDIA Windows driver ships it to WSL 2 "
              "as a plain copy of libcuda.so.1.1, so the call fails with EINVAL.", name=ev.groups[0])
    fix = t("make the program accept a file that is not a link (os.path.realpath, or os.path.islink before "
            "os.readlink); or replace the copies by symbolic links to libcuda.so.1.1 in an elevated Windows prompt in "
            "{folder}: `del libcuda.so libcuda.so.1`, `mklink libcuda.so libcuda.so.1.1`, `mklink libcuda.so.1 "
            "libcuda.so.1.1`, then `wsl --shutdown` (a driver update brings the copies back)", folder=LXSS_LIB)
    return Finding(ID, t("{name} is a copy, not a symbolic link, in WSL 2", name=ev.groups[0]), [ev.line], cause, fix,
                   "", rank=60)
