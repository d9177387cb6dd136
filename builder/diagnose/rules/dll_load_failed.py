"""`ImportError: DLL load failed` on Windows with nothing more specific in the log. Its usual cause is the
Visual C++ runtime (the same cause as a named msvcp140.dll), so it carries that id; the fix lists the rest in
order of likelihood. (A 32-bit Python, "%1 is not a valid Win32 application", is python-unsupported.)"""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, tfenv_way

ID = "msvc-runtime"


def check(log, ctx):
    if not log.has("dll_load_failed", "win_error_126") or log.has("win32_app"):
        return None
    if ctx.platform.value not in ("windows", ""):
        return None
    evidence = [ev for kind in ("dll_load_failed", "win_error_126", "native_runtime") for ev in log.all(kind)[:1]]
    cause = t("Windows could not load _pywrap_tensorflow_internal or a DLL it needs, and the log does not say which; "
              "most often it is the Microsoft Visual C++ runtime.")
    fix = t("in order of likelihood: install the latest x64 Microsoft Visual C++ Redistributable 2015-2022 "
            "(vc_redist.x64.exe); check the CPU has AVX; use a 64-bit Python within TF's supported versions; for "
            "TF <= 2.0 GPU builds install the CUDA and cuDNN versions it was built with and put their bin folders on "
            "PATH; then open a new terminal. The standalone doctor (`python doctor.py --env ENV`) lists what is "
            "missing")
    return Finding(ID, t("TensorFlow's native library failed to load"), lines(evidence), cause, fix, tfenv_way(ctx),
                   rank=85)
