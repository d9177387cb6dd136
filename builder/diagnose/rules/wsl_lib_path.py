"""WSL2 has the driver in /usr/lib/wsl/lib, but this process does not look there (a login shell without WSL's
PATH, a loader path or ld cache without the folder, the unversioned libcuda.so that ldconfig skips, the
unversioned libnvidia-ml.so that WSL does not ship at all), or it loads another libcuda first.

Definitions (see wsl_gpu_unavailable for the order of the WSL causes): this rule takes a WSL 2 log where libcuda
is not found; where CUDA's link-time stub libcuda answered (CUDA_ERROR_STUB_LIBRARY, 34); where cuInit found no
device (NO_DEVICE, 100) while nvidia-smi works (the Windows driver and its tools answer, so what differs is the
libcuda this process loads; the fix puts WSL's first and names the purge of a Linux one; NO_DEVICE without a working
nvidia-smi is wsl-linux-driver, the usual WSL 2 case); and where a
cuDNN 8 sub-library (libcudnn_cnn_infer.so.8 ...) fails to load in cuDNN's own words ("Could not load library"):
cuDNN itself loaded, and what its sub-libraries miss in WSL 2 is the unversioned libcuda.so (unless the error names
the sub-library itself: then cuDNN is incomplete, missing-cudnn). A link step that finds no libcuda (`-lcuda`,
CMake's FindCUDA, Triton) gets the linker's path (LIBRARY_PATH) instead of the loader's.
"""

import re

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, wsl_lib
from builder.diagnose.rules._gpu import libcuda_failures, link_step_failures
from builder.diagnose.rules.wsl_linux_driver import installed_driver_packages

ID = "wsl-lib-path"
SUPERSEDES = ("libcuda-missing", "no-gpu-harmless", "wsl-libcuda-symlink")
_CUDNN_SUB = re.compile(r"libcudnn_(?:ops|cnn|adv)_(?:infer|train)|libcudnn_engines|libcudnn_graph|libcudnn_heuristic")


def _other_libcuda(log):
    """Events of a process that loaded a libcuda other than WSL's: the stub, or one that finds no device."""
    stub = log.all("stub_libcuda")[:1]
    no_device = [ev for kind in ("cuinit", "cuda_error", "cuda_error_text") for ev in log.all(kind)
                 if "NO_DEVICE" in ev.groups[0] or "(100)" in ev.groups[0] or "no CUDA-capable" in ev.groups[0]]
    return stub + (no_device[:1] + log.all("smi_works")[:1] if no_device and log.has("smi_works") else [])


def _cudnn_sub_library(log):
    # "... Error: libcudnn_ops_infer.so.8: cannot open ..." names the sub-library itself: cuDNN is incomplete there
    return [ev for ev in log.all("load_fail") if _CUDNN_SUB.match(ev.groups[0])
            and "Could not load library" in log.line_text(ev.line)
            and "Error: libcudnn" not in log.line_text(ev.line)][:1]


def check(log, ctx):
    if ctx.platform.value != "wsl2" or installed_driver_packages(log):
        return None
    failed = [ev for _, ev in libcuda_failures(log)]
    # the stub answering after libcuda.so.1 was not found: someone put .../stubs on the path to get past it
    other = _other_libcuda(log) if not failed or log.has("stub_libcuda") else []
    cudnn = [] if failed else _cudnn_sub_library(log)
    link = [] if failed else link_step_failures(log)
    failed = failed or link[:1]
    evidence = failed[:1] + other + cudnn + log.all("smi_not_found")[:1] + log.all("smi_no_nvml")[:1]
    service = _service_without_path(log)
    evidence += service
    if not evidence:
        return _nvml_unversioned(log, ctx)
    if other:
        return _other_found(log, ctx, failed[:1] + other)
    if link and evidence[:1] == link[:1]:
        return _link_step(ctx, evidence)
    name = _missing_name(log, failed or cudnn)
    cause = t("In WSL 2 the Windows driver provides {name} in {wsl_lib}; this process does not look there (the "
              "folder is not on its search path, and ldconfig skips the unversioned libcuda.so, a copy rather "
              "than a link).", name=name, wsl_lib=wsl_lib(ctx))
    if cudnn:
        cause = t("cuDNN loaded, but its sub-library {lib} did not: in WSL 2 what it misses is the unversioned "
                  "libcuda.so, which the Windows driver provides in {wsl_lib} and ldconfig skips (a copy rather than "
                  "a link).", lib=cudnn[0].groups[0], wsl_lib=wsl_lib(ctx))
    fix = t("put the folder on the search paths: `export LD_LIBRARY_PATH={wsl_lib}:$LD_LIBRARY_PATH` (and "
            "`export PATH=$PATH:{wsl_lib}` for nvidia-smi) in ~/.bashrc, or list {wsl_lib} in /etc/ld.so.conf.d/ and "
            "run `sudo ldconfig`; never install a Linux NVIDIA driver inside WSL", wsl_lib=wsl_lib(ctx))
    if service:
        cause = t("nvidia-smi works in your shell ({wsl_lib}/nvidia-smi), but the program that ran it (a service, "
                  "another user, a container) has no {wsl_lib} on its PATH.", wsl_lib=wsl_lib(ctx))
        fix = t("give that program WSL's folder: for a systemd service `sudo systemctl edit <service>` with "
                "`Environment=\"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:{wsl_lib}\"` and "
                "`Environment=\"LD_LIBRARY_PATH={wsl_lib}\"`, then restart it; list {wsl_lib} in /etc/ld.so.conf.d/ "
                "and run `sudo ldconfig` for the libraries", wsl_lib=wsl_lib(ctx))
    return Finding(ID, t("{name} is in {wsl_lib}, which this process does not search", name=name, wsl_lib=wsl_lib(ctx)),
                   lines(evidence), cause, fix, t("`tfenv wsl` writes an environment that sets this path"), rank=12,
                   supersedes=SUPERSEDES + ("missing-cudnn",) if cudnn else SUPERSEDES)


def _link_step(ctx, evidence):
    """A build or JIT step (gcc/ld `-lcuda`, CMake's FindCUDA, Triton's launcher) that needs the unversioned
    libcuda.so: the loader finds WSL's folder through ld.wsl.conf, the linker does not search it."""
    cause = t("In WSL 2 the driver's libcuda.so is only in {wsl_lib}; the program loads it through WSL's ld.wsl.conf, "
              "but a link step (`-lcuda`: a build, CMake's FindCUDA, Triton's or torch.compile's launcher) searches "
              "the linker's path, which does not include that folder.", wsl_lib=wsl_lib(ctx))
    fix = t("put the folder on the linker's path: `export LIBRARY_PATH={wsl_lib}:$LIBRARY_PATH` in ~/.bashrc (or "
            "`-L{wsl_lib}`; CMake: `-DCUDA_CUDA_LIBRARY={wsl_lib}/libcuda.so`), and for Triton `sudo ldconfig` so "
            "that `ldconfig -p` lists it; LD_LIBRARY_PATH alone does not reach a linker; never install a Linux "
            "NVIDIA driver inside WSL", wsl_lib=wsl_lib(ctx))
    return Finding(ID, t("The link step does not search {wsl_lib}, where libcuda.so is", wsl_lib=wsl_lib(ctx)),
                   lines(evidence), cause, fix, "", rank=12, supersedes=SUPERSEDES)


def _service_without_path(log):
    """A program's "nvidia-smi command failed" beside WSL's nvidia-smi answering in the shell."""
    works = log.has("smi_works") or any("nvidia-smi" in log.line_text(ev.line) for ev in log.all("wsl_lib"))
    return log.all("smi_failed")[:1] if works else []


def _missing_name(log, libcuda):
    """What the process could not find: the libcuda it named, nvidia-smi's NVML, or nvidia-smi itself."""
    named = libcuda_failures(log)
    if named:
        return named[0][0]
    if libcuda:
        return "libcuda.so"
    return "libnvidia-ml.so.1" if log.has("smi_no_nvml") and not log.has("smi_not_found") else "nvidia-smi"


def _other_found(log, ctx, evidence):
    """cuInit answered from another libcuda: CUDA's stub, or one that sees no GPU (a Linux driver's, a compat one)."""
    cause = t("In WSL 2 the GPU is reached only through the libcuda the Windows driver provides in {wsl_lib}; this "
              "process loaded another libcuda first (CUDA's link-time stub from .../stubs, or a Linux driver's), "
              "which finds no GPU.", wsl_lib=wsl_lib(ctx))
    fix = t("make WSL's libcuda load first: `export LD_LIBRARY_PATH={wsl_lib}:$LD_LIBRARY_PATH` in ~/.bashrc (take any "
            "CUDA .../lib64/stubs folder off LD_LIBRARY_PATH); if `ldconfig -p | grep libcuda` lists a libcuda "
            "outside {wsl_lib}, a Linux NVIDIA driver package put it there: purge it (never install a Linux driver "
            "inside WSL)", wsl_lib=wsl_lib(ctx))
    return Finding(ID, t("This process does not load the libcuda in {wsl_lib}", wsl_lib=wsl_lib(ctx)), lines(evidence),
                   cause, fix, t("`tfenv wsl` writes an environment that sets this path"), rank=12,
                   supersedes=SUPERSEDES + ("cuinit-error", "no-gpu-visible"))


def _nvml_unversioned(log, ctx):
    """A program that dlopens libnvidia-ml.so: WSL's driver folder has only libnvidia-ml.so.1."""
    evidence = log.all("nvml_unversioned")[:1]
    if not evidence:
        return None
    cause = t("In WSL 2 the Windows driver provides NVML as {wsl_lib}/libnvidia-ml.so.1 only; there is no unversioned "
              "libnvidia-ml.so to load (a Linux driver package would install one, WSL does not).", wsl_lib=wsl_lib(ctx))
    fix = t("have the program load libnvidia-ml.so.1 (most NVML bindings take a library path), or add the missing "
            "name once: `sudo ln -s {wsl_lib}/libnvidia-ml.so.1 /usr/local/lib/libnvidia-ml.so && sudo ldconfig`; "
            "never install a Linux NVIDIA driver inside WSL", wsl_lib=wsl_lib(ctx))
    return Finding(ID, t("libnvidia-ml.so (unversioned) does not exist in WSL 2"), lines(evidence), cause, fix, "",
                   rank=12, supersedes=SUPERSEDES)
