"""`ImportError: DLL load failed` on Windows with nothing more specific in the log."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import tfenv_way

ID = "dll-load-failed-other"


def check(log, ctx):
    evidence = [ev for kind in ("dll_load_failed", "win_error_126", "native_runtime", "win32_app")
                for ev in log.all(kind)[:1]]
    if not log.has("dll_load_failed", "win32_app", "win_error_126") or ctx.platform.value not in ("windows", ""):
        return None
    if log.has("win32_app"):
        cause = "Python and TensorFlow's DLLs differ in bitness: TF needs a 64-bit Python."
        fix = ("install 64-bit Python (python.org, \"Windows installer (64-bit)\") and reinstall TensorFlow in a new "
               "venv")
    else:
        cause = ("Windows could not load _pywrap_tensorflow_internal or one of the DLLs it needs; the log does not say "
                 "which.")
        fix = ("in order of likelihood: install the x64 Visual C++ Redistributable 2015-2022; check the CPU has AVX; "
               "use "
               "a 64-bit Python within TF's supported versions; for TF <= 2.0 GPU builds install the CUDA and cuDNN "
               "versions it was built with and put their bin folders on PATH; then open a new terminal. The standalone "
               "doctor (`python doctor.py --env ENV`) lists what is missing")
    return Finding(ID, "TensorFlow's native library failed to load", [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx), rank=85)
