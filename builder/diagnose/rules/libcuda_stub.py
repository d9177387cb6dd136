"""CUDA's link-time stub libcuda.so (CUDA's lib64/stubs, targets/<arch>/lib/stubs) was loaded instead of the
driver's: every driver call answers CUDA_ERROR_STUB_LIBRARY (34). The stubs folder is on LD_LIBRARY_PATH (or in
the ld cache), put there to link or to get past a missing libcuda.so.1.

Which cause wins: the stub explains the failed cuInit, the missing device and the driver library "not found" that
follow it, so it ranks above cuinit-error, no-gpu-visible and libcuda-missing. In WSL 2 the same stub is
wsl-lib-path (its advice names WSL's driver folder); native Windows has no stub library."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, tfenv_way

ID = "libcuda-stub"


def check(log, ctx):
    stub = log.all("stub_libcuda")[:1]
    if not stub or ctx.wsl or ctx.windows:
        return None
    cause = t("The libcuda.so this process loaded is CUDA's stub (its stubs folder, for linking only): it has no "
              "driver in it, so every CUDA call fails (CUDA_ERROR_STUB_LIBRARY, 34).")
    fix = t("take CUDA's stubs folder (.../lib64/stubs, .../targets/x86_64-linux/lib/stubs) off LD_LIBRARY_PATH and "
            "out of /etc/ld.so.conf.d (then `sudo ldconfig`), so that the driver's libcuda.so.1 loads; `ldconfig -p "
            "| grep libcuda` must list the driver's copy (if there is none, install the NVIDIA driver)")
    if ctx.container:
        fix += "; " + t("in an image, drop the stubs folder from its LD_LIBRARY_PATH (ENV) or delete it after the "
                        "build, and start the container with `--gpus all` so that the toolkit mounts the driver's "
                        "libcuda.so.1")
    return Finding(ID, t("CUDA's stub libcuda.so was loaded instead of the NVIDIA driver's"),
                   lines(stub + log.all("cuinit")[:1]), cause, fix, tfenv_way(ctx), rank=26,
                   supersedes=("cuinit-error", "no-gpu-visible", "libcuda-missing", "no-gpu-harmless"))
