"""TF on Windows cannot find the Visual C++ runtime (msvcp140.dll, msvcp140_1.dll, vcruntime140_1.dll)."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import family

ID = "msvc-runtime"
FAMILIES = ("msvcp140", "msvcp140_1", "vcruntime140", "vcruntime140_1", "concrt140")


def check(log, ctx):
    found = [(n, ev) for n, ev in log.failed_libraries() if family(n) in FAMILIES]
    if not found:
        return None
    names = [n for n, _ in found]
    cause = ("TF's Windows build needs the Microsoft Visual C++ 2015-2022 runtime (x64); {} is missing, or an older "
             "copy "
             "from another program (a JDK, an old application) comes first on PATH.".format(" / ".join(names)))
    fix = ("install the latest x64 Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 "
           "(vc_redist.x64.exe; "
           "the x86 one does not help a 64-bit Python), then open a new terminal; if `where msvcp140.dll` lists "
           "another "
           r"folder before C:\Windows\System32, that older copy is the one found")
    return Finding(ID, "The Visual C++ runtime is missing: {}".format(", ".join(names)), [ev.line for _, ev in found],
                   cause, fix, tfenv_way(ctx), rank=19)
