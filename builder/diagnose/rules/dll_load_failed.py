"""`ImportError: DLL load failed` on Windows with nothing more specific in the log. Its usual cause is the
Visual C++ runtime (the same cause as a named msvcp140.dll), so it carries that id; the fix lists the rest in
order of likelihood. (A 32-bit Python, "%1 is not a valid Win32 application", is python-unsupported.) PyTorch's
own words for one of its DLLs ('Error loading "...\\torch\\lib\\c10.dll" or one of its dependencies') get PyTorch's
advice; Windows' ERROR_COMMITMENT_LIMIT (1455, the paging file too small) is not a missing DLL and gets none."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, tfenv_way
from builder.diagnose.rules._programs import tf_module

ID = "msvc-runtime"


def check(log, ctx):
    if not log.has("dll_load_failed", "win_error_126", "error_loading_dll") or log.has("win32_app", "paging_file"):
        return None
    if ctx.platform.value not in ("windows", ""):
        return None
    # cuDNN's own "Could not load library %s. Error code 126" names its DLL: the finding for that library explains it
    named = {ev.line for _, ev in log.failed_libraries()}
    if not log.has("dll_load_failed", "error_loading_dll") and all(ev.line in named for ev in log.all("win_error_126")):
        return None
    torch = log.first("error_loading_dll")
    if torch and not log.has("dll_load_failed"):
        dll = torch.groups[0]
        cause = t("Windows could not load PyTorch's {dll} or a DLL it needs; most often that is the Microsoft Visual "
                  "C++ runtime, which PyTorch's DLLs need in a recent version.", dll=dll)
        fix = t("install the latest x64 Microsoft Visual C++ Redistributable 2015-2022 (vc_redist.x64.exe) and open a "
                "new terminal; if it persists, reinstall torch in that environment (`pip install --force-reinstall "
                "torch`, the index URL of the CUDA build you want): its CUDA and cuDNN DLLs come inside the wheel, so "
                "a CUDA toolkit on PATH does not replace them")
        return Finding(ID, t("PyTorch's {dll} failed to load", dll=dll), [torch.line], cause, fix, "", rank=85)
    module = next((ev.groups[0] for ev in log.all("dll_load_failed") if ev.groups[0]
                   and not tf_module(ev.groups[0])), "")
    if module:  # another package's extension, the traceback naming no frame of it (dll-load-failed-other's case)
        return _package_dll(log, module)
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


def _package_dll(log, module):
    """`DLL load failed while importing <module>` of a package other than TF: its DLLs need a current Visual C++
    runtime first (ONNX Runtime's and PyTorch's Windows requirements), then a build of the package for this
    Python."""
    cause = t("Windows could not load {module} (a compiled part of a Python package) or a DLL it needs; most often "
              "that is the Microsoft Visual C++ runtime, which current packages need in a recent version.",
              module=module)
    fix = t("install the latest x64 Microsoft Visual C++ Redistributable 2015-2022 (vc_redist.x64.exe) and open a "
            "new terminal; if it persists, reinstall that package in that environment in a release built for this "
            "Python (`pip install --force-reinstall <package>==<version>`), and do not mix pip and conda copies of "
            "it")
    return Finding(ID, t("{module} failed to load", module=module), lines(log.all("dll_load_failed")[:1]), cause,
                   fix, "", rank=85)
