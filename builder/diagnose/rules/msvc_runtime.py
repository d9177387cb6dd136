"""TF on Windows cannot find the Visual C++ runtime (msvcp140.dll, msvcp140_1.dll, vcruntime140_1.dll)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import family

ID = "msvc-runtime"
FAMILIES = ("msvcp140", "msvcp140_1", "vcruntime140", "vcruntime140_1", "concrt140")


def check(log, ctx):
    found = [(n, ev) for n, ev in log.failed_libraries() if family(n) in FAMILIES]
    if not found:
        return None
    names = [n for n, _ in found]
    cause = t("TF's Windows build needs the Microsoft Visual C++ 2015-2022 runtime (x64); {names} is missing, or an "
              "older copy from another program (a JDK, an old application) comes first on PATH.",
              names=" / ".join(names))
    fix = t("install the latest x64 Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 "
            "(vc_redist.x64.exe; the x86 one does not help a 64-bit Python), then open a new terminal; if `where "
            "msvcp140.dll` lists another folder before {system32}, that older copy is the one found",
            system32=r"C:\Windows\System32")
    return Finding(ID, t("The Visual C++ runtime is missing: {names}", names=", ".join(names)),
                   [ev.line for _, ev in found],
                   cause, fix, tfenv_way(ctx), rank=19)
