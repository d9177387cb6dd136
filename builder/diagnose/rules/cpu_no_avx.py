"""The CPU lacks AVX, which every official TF wheel since 1.6 needs."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._programs import tf_module

ID = "cpu-no-avx"


def check(log, ctx):
    # ERROR_DLL_INIT_FAILED under PyTorch's 'Error loading "...\\torch\\lib\\c10.dll"', or in another package's
    # import ("while importing onnxruntime_pybind11_state"), is that package's DLLs (rules/dll_load_failed.py), not
    # TF's AVX check
    other = [ev for ev in log.all("dll_load_failed") if ev.groups[0] and not tf_module(ev.groups[0])]
    init_failed = [] if log.has("error_loading_dll") or other else log.all("dll_init_failed")[:1]
    evidence = log.all("avx_missing")[:1] + log.all("illegal_instruction")[:1] + init_failed
    # a CPU model without AVX beside TF's native library failing to load (Windows: DLL load failed)
    model = log.all("cpu_model_no_avx")[:1] if log.has("dll_load_failed", "native_runtime") else []
    if not evidence and not model:
        return None
    if not evidence:  # known by the CPU's model alone
        evidence = model + log.all("dll_load_failed")[:1]
        cause = t("Official TensorFlow wheels since 1.6 use AVX instructions, and this CPU model has none (AVX came "
                  "with Intel's Sandy Bridge and AMD's Bulldozer in 2011); TF's native library cannot load on it.")
    elif init_failed:
        cause = t("Official TensorFlow wheels since 1.6 use AVX instructions; on a CPU without them the import dies "
                  "(DLL initialization routine failed).")
    else:
        cause = t("Official TensorFlow wheels since 1.6 use AVX instructions; on a CPU without them the import dies "
                  "(illegal instruction).")
    if ctx.windows:
        fix = t("check the CPU model for AVX support (older Pentium, Celeron, Atom lack it); if it has AVX, reinstall "
                "the x64 Visual C++ Redistributable 2015-2022; without AVX use a community wheel built without AVX, "
                "conda's tensorflow build, or another machine")
    else:
        fix = t("check with `grep -o -m1 avx /proc/cpuinfo`; without AVX use a community wheel built without AVX, "
                "build TF from source, or run on a machine (or VM CPU model) that exposes AVX")
    return Finding(ID, t("This CPU cannot run the official TensorFlow build (no AVX)"), [ev.line for ev in evidence],
                   cause, fix, t("tfenv's images use the official wheels too: they need an AVX CPU"), rank=16,
                   supersedes=("msvc-runtime",))
