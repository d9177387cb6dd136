"""cuDNN 8.3-8.8 on Windows need zlibwapi.dll; without it a cuDNN sub-library fails with error 126."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import module_not_found, tfenv_way
from builder.diagnose.versions import family, version_suffix, vkey

ID = "zlibwapi"
# cuDNN 8's convolution sub-libraries are the ones seen failing for want of zlibwapi.dll (cudnn_cnn_infer64_8.dll
# with error 126 or 193, cuDNN 8.3-8.8); cudnn_ops_infer64_8.dll, loaded before them, links cuBLAS, not zlib
ZLIB_USERS = ("cudnn_cnn_infer", "cudnn_cnn_train")


def check(log, ctx):
    named = [ev for n, ev in log.failed_libraries() if family(n) == "zlibwapi"]
    # cuDNN 8's sub-libraries only: cuDNN 9 (cudnn_cnn64_9.dll) carries zlib itself
    sub = [ev for n, ev in log.failed_libraries() if family(n) in ZLIB_USERS and version_suffix(n)[:1] == "8"]
    loaded = log.first("cudnn_loaded")
    release = int(loaded.groups[0]) if loaded else 0
    zlib_era = 8300 <= release < 8900
    # error 126 is a missing dependency of the named DLL: when the log names a missing cuBLAS (what cuDNN's
    # sub-libraries link against), that is the dependency, not zlibwapi
    cublas_missing = any(family(n).startswith("cublas") for n, _ in log.failed_libraries())
    code = module_not_found(log, sub) or log.has("win32_app")  # 193: a 32-bit zlibwapi.dll found first
    if not named and not (sub and (zlib_era or code and not cublas_missing and not release)):
        return None
    if not (ctx.windows or named):
        return None
    evidence = named[:1] + sub[:1] + log.all("win_error_126")[:1] + ([loaded] if loaded else [])
    version = f"{release // 1000}.{(release % 1000) // 100}" if release else ""
    cause = t("cuDNN {version} loaded, but its sub-libraries need zlibwapi.dll, which cuDNN 8.3 to 8.8 on Windows do "
              "not ship; error 126 means a dependency of the named DLL is missing.", version=version or "8.x")
    fix = t("download zlibwapi.dll (x64, from NVIDIA's cuDNN install guide) into the CUDA bin folder or another "
            "folder on PATH; or use cuDNN 8.1 (what TF 2.5-2.10 were built with) or 8.9, which carries zlib itself")
    if vkey(ctx.tf.value) and vkey(ctx.tf.value) <= (2, 10):
        fix += " " + t("(nvidia-cudnn-cu11 8.9.4.25 and 8.9.5.29 have Windows wheels)")
    return Finding(ID, t("cuDNN cannot load its sub-libraries: zlibwapi.dll is missing"), [ev.line for ev in evidence],
                   cause, fix, tfenv_way(ctx), rank=33, supersedes=("missing-cudnn", "msvc-runtime"))
