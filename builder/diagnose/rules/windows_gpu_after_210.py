"""TF 2.11 and later have no GPU support on native Windows."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import LAST_WINDOWS_GPU_TF, tfenv_way
from builder.diagnose.rules._gpu import cpu_only
from builder.diagnose.versions import vkey

ID = "windows-gpu-after-210"


def check(log, ctx):
    newer = ctx.tf and vkey(ctx.tf.value) > vkey(LAST_WINDOWS_GPU_TF)
    # TF <= 2.10 on Windows names the DLL it misses; a Windows TF that sees no GPU and names none is a CPU build.
    silent = ((cpu_only(log) or log.has("tf_cpu_build"))
              and not log.has("load_fail", "cuinit", "opened", "device", "found_device"))
    asked = [ev for ev in log.all("pip_no_version") if ev.groups[0].startswith("tensorflow-gpu")
             and vkey(ev.groups[0].split("=")[-1]) >= (2, 11)][:1]
    # tensorflow[and-cuda] on Windows: pip finds no Linux-only NVIDIA CUDA wheel (at most their placeholders)
    wheels = [ev for ev in log.all("pip_nvidia_wheel") if ctx.windows or log.has("placeholder_versions")][:1]
    # CUDA 12 installed on native Windows, no TF named and nothing failing to load: no Windows GPU build of TF uses
    # CUDA 12 (the last, 2.10, is built for 11.2), so whatever TF is there cannot use it
    cuda12 = [ev for ev in log.all("nvcc_release") if ctx.windows and not ctx.tf and vkey(ev.groups[0]) >= (12,)
              and not log.has("load_fail", "so_missing", "dll_missing", "dll_load_failed", "opened")][:1]
    # tf.test.is_built_with_cuda() said False: outside Linux that is the Windows CPU package
    named = log.has("tf_intel", "tf_gpu_placeholder") or silent and log.has("tf_cpu_build")
    if not (newer or asked or wheels or cuda12 or named or (ctx.windows and silent)):
        return None
    # Platform unknown, TF >= 2.11 sees no GPU and names no missing library: on Linux it would say what it lacks.
    if not (ctx.windows or (not ctx.platform and not ctx.posix and (silent or wheels))):
        return None
    # Only when the log is about the GPU: a numpy error under TF 2.15 on Windows is a numpy error.
    if not (asked or silent or wheels or cuda12 or log.has("gpu_none", "gpus_available", "load_fail", "cannot_dlopen",
                                                 "tf_intel", "cuinit", "tf_gpu_placeholder")):
        return None
    evidence = [ctx.tf.line] + [ev.line for ev in log.all("tf_intel")[:1] + log.all("gpus_available")[:1]
                                + log.all("gpu_none")[:1] + log.all("tf_gpu_placeholder")[:1]
                                + log.all("tf_cpu_build")[:1] + asked
                                + log.all("device_type")[:1] + wheels + cuda12]
    cause = t("TF {last} was the last release with GPU support on native Windows; from 2.11 the Windows package is a "
              "CPU build (tensorflow-intel), so no CUDA setup makes it see the GPU.", last=LAST_WINDOWS_GPU_TF)
    fix = t("either run TF in WSL2 (inside it: `pip install tensorflow[and-cuda]`, with the NVIDIA Windows driver "
            "only), or stay native with tensorflow=={last}.1 on Python 3.7-3.10 with CUDA 11.2 and cuDNN 8.1 on "
            "PATH", last=LAST_WINDOWS_GPU_TF)
    return Finding(ID, t("TensorFlow {tf} has no GPU support on native Windows", tf=ctx.tf.value or ">= 2.11"),
                   evidence, cause, fix, tfenv_way(ctx, windows=True), rank=25,
                   supersedes=("missing-cuda-runtime", "missing-cudnn", "no-gpu-harmless"))
