"""The GPU's compute capability is below what the TF build has code for (gpu_device.cc: "Ignoring visible gpu
device ... The minimum required Cuda capability is X")."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import _tested
from builder.diagnose.rules._common import lines
from builder.diagnose.rules._programs import ollama_skipped
from builder.diagnose.versions import compute_capability, vkey

ID = "gpu-too-old"
OFFICIAL_MIN = "3.5"  # TF's pip builds since 1.x (gpu_device.cc's default minimum)
# RAPIDS' platform support: compute capability 7.0 (Volta) or newer; Pascal was dropped in 24.02 (RSN 34) and never
# worked under WSL 2, where it fails with cudaErrorNotSupported (rapidsai/cudf#9753, closed won't-fix)
RAPIDS_MIN = "7.0"
# other programs' oldest compute capability, where their message does not say it: FlashAttention 2's kernels are for
# Ampere (sm_80) and newer (csrc/flash_attn/flash_api.cpp), ollama's CUDA builds for 5.0 and newer (discover/gpu.go
# CudaComputeMajorMin; docs/gpu.md "compute capability 5.0+"), Triton's for 7.0 (torch/_inductor GPUTooOldForTriton)
FLASH_ATTENTION_MIN, OLLAMA_MIN, TRITON_MIN = "8.0", "5.0", "7.0"
# the GPU generations of the compute capabilities later CUDA releases dropped (NVIDIA's CUDA GPUs list)
# (by major version, or by the whole compute capability where one major holds two generations)
GENERATIONS = {"2": "Fermi", "3": "Kepler", "5": "Maxwell", "6": "Pascal", "7.0": "Volta", "7.2": "Volta",
               "7.5": "Turing"}


def check(log, ctx):
    unsupported = log.first("nvrm_unsupported_gpu") or log.first("nvrm_open_unsupported")
    if unsupported:
        return _driver_dropped_gpu(unsupported)
    rapids = _rapids_in_wsl(log, ctx)
    if rapids:
        return rapids
    program = _program_minimum(log, ctx)
    if program:
        return program
    dropped = _target_dropped(log, ctx)
    if dropped:
        return dropped
    ignored = log.all("gpu_ignored")[:1]
    cc = ctx.compute_capability.value
    old = cc and vkey(cc) < vkey(OFFICIAL_MIN)
    crash = (log.all("no_kernel_image")[:1] + [ev for ev in log.all("cuda_error")
                                               if ev.groups[0] == "CUDA_ERROR_NO_BINARY_FOR_GPU"][:1]) if old else []
    none_capable = log.all("no_capable_device")[:1] + log.all("arch_mismatch")[:1]  # cuDNN's, cuBLAS's words
    if not (ignored or crash or none_capable):
        return None
    minimum = log.first("min_capability") or log.first("no_capable_device")
    need = minimum.groups[0] if minimum else OFFICIAL_MIN
    have = (ignored[0].groups[0] if ignored and ignored[0].groups[0] else cc) or ""
    evidence = ignored + crash + log.all("arch_mismatch")[:1] + ([minimum] if minimum else [])
    if not have:  # the check names only the minimum: the GPU's own capability is on NVIDIA's list
        cause = t("No GPU here has compute capability {need} or newer, the least this TF build has GPU code for, so "
                  "it runs on the CPU.", need=need)
        fix = t("look the GPU up in NVIDIA's CUDA GPUs list (developer.nvidia.com/cuda-gpus): below {need} no driver "
                "or CUDA setup helps; build TF from source with TF_CUDA_COMPUTE_CAPABILITIES set to its compute "
                "capability, run on the CPU, or use a GPU of compute capability {need} or newer", need=need)
        return Finding(ID, t("The GPU is too old for this TensorFlow build (compute capability below {need})",
                             need=need), lines(evidence), cause, fix, "", rank=28,
                       supersedes=("gpu-too-new", "no-gpu-visible"))
    torch = [ev for ev in ignored if "which is of cuda capability" in log.line_text(ev.line)]
    if torch:  # PyTorch's own check (torch/cuda/__init__.py): its minimum, when the warning is whole, else none named
        return _torch_too_old(log, have, minimum.groups[0] if minimum else "", evidence)
    cause = t("This GPU has compute capability {have}; the TF build has GPU code only for {need} and newer, so it "
              "ignores the GPU and runs on the CPU.", have=have, need=need)
    fix = t("no driver or CUDA setup changes the compute capability: build TF from source with "
            "TF_CUDA_COMPUTE_CAPABILITIES={have} (with a CUDA release that still supports it), use an older TF "
            "whose build included it, run on the CPU, or use a GPU of compute capability {need} or newer", have=have,
            need=need)
    return Finding(ID, t("The GPU is too old for this TensorFlow build (compute capability {have})", have=have),
                   lines(evidence), cause, fix, "", rank=28, supersedes=("gpu-too-new", "no-gpu-visible"))


def _driver_dropped_gpu(ev):
    """nvidia.ko's probe: this driver release does not drive the GPU (its branch dropped the architecture)."""
    if ev.kind == "nvrm_open_unsupported":
        cause = t("The open flavour of the NVIDIA kernel module drives only GPUs with a GSP (Turing and newer); this "
                  "older GPU needs the proprietary module of the same driver.")
        fix = t("install the proprietary kernel module instead of the open one (Ubuntu: nvidia-driver-<branch> rather "
                "than nvidia-driver-<branch>-open; the .run file with `-m=kernel`), then reboot")
        return Finding(ID, t("The GPU is too old for the installed NVIDIA driver"), [ev.line], cause, fix, "",
                       rank=28, supersedes=("gpu-too-new", "no-gpu-visible", "libcuda-missing"))
    release, legacy = ev.groups
    cause = t("The installed NVIDIA driver does not drive this GPU: the GPU is older than what the driver's branch "
              "supports, so the driver ignores it.")
    if legacy:
        fix = t("install the NVIDIA {legacy}.xx legacy driver, the last branch for this GPU (the distribution's "
                "nvidia-driver-{legacy} package or NVIDIA's download page); then use a TF whose CUDA that driver "
                "runs", legacy=legacy)
    else:
        fix = t("install the newest legacy driver branch that still supports this GPU (NVIDIA's legacy GPU list and "
                "the driver README's supported products appendix name it) instead of {release}; then use a TF "
                "whose CUDA that driver runs", release=release)
    return Finding(ID, t("The GPU is too old for the installed NVIDIA driver"), [ev.line], cause, fix, "", rank=28,
                   supersedes=("gpu-too-new", "no-gpu-visible", "libcuda-missing"))


def _rapids_in_wsl(log, ctx):
    """A RAPIDS program in WSL 2 failing with "operation not supported" (801): a GPU below compute capability 7.0."""
    cc = ctx.compute_capability.value
    if ctx.platform.value != "wsl2" or not log.has("rapids") or (cc and vkey(cc) >= vkey(RAPIDS_MIN)):
        return None
    error = [ev for ev in log.all("cuda_error") if ev.groups[0] in ("cudaErrorNotSupported",
                                                                      "CUDA_ERROR_NOT_SUPPORTED")][:1]
    if not error:
        return None
    cause = t("RAPIDS (cuDF, RMM, cuML) needs a GPU of compute capability {need} or newer; under WSL 2 an older one "
              "(Pascal: GeForce 10xx, Quadro P) fails its first allocations with cudaErrorNotSupported (801).",
              need=RAPIDS_MIN)
    fix = t("no driver or package change helps: use a GPU of compute capability {need} or newer (Volta, Turing and "
            "later; developer.nvidia.com/cuda-gpus lists them); on native Linux RAPIDS 23.12 and older still support "
            "Pascal",
            need=RAPIDS_MIN)
    return Finding(ID, t("The GPU is too old for RAPIDS in WSL 2 (compute capability below {need})", need=RAPIDS_MIN),
                   lines(error + log.all("rapids")[:1]), cause, fix, "", rank=28,
                   supersedes=("gpu-too-new", "no-gpu-visible", "gpu-out-of-memory", "cuinit-error"))


def _target_dropped(log, ctx):
    """nvcc refusing a target that a later CUDA dropped ("Unsupported gpu architecture 'compute_21'"): the build asks
    for a GPU generation this toolkit no longer compiles for (matrix.yaml nvidia.last_cuda_for_arch)."""
    for ev in log.all("nvcc_arch"):
        cc = compute_capability(ev.groups[0])
        last = _tested.last_cuda_for_arch(ctx, cc)
        if not last:
            continue
        gpu = _generation(cc)
        cause = t("This nvcc no longer compiles for compute_{target} ({gpu}): CUDA {last} is the last toolkit that "
                  "does. The build asks for that target, for an old GPU or from an old list of architectures.",
                  target=ev.groups[0], gpu=gpu, last=last)
        fix = t("for a GPU of compute capability {cc}, build with CUDA {last} or older (and a driver that runs it) or "
                "use a release of the program built with it; for a newer GPU, remove compute_{target} / sm_{target} "
                "from the build's architecture list (-gencode, CUDA_ARCH, TORCH_CUDA_ARCH_LIST, "
                "CMAKE_CUDA_ARCHITECTURES)", cc=cc, last=last, target=ev.groups[0])
        return Finding(ID, t("The build targets a GPU generation this CUDA dropped: {gpu}", gpu=gpu), [ev.line],
                       cause, fix, "", rank=28, supersedes=("gpu-too-new",))
    return None


def _program_minimum(log, ctx):
    """A program other than TF that checks the GPU against its own oldest compute capability and says so: Triton
    (torch.compile's inductor backend), FlashAttention 2, ollama. The fix is the program's: turn that part off, or a
    build of it for this GPU; no driver or CUDA setup helps."""
    cc = ctx.compute_capability.value
    triton = log.first("triton_too_old")
    if triton:
        need, have = triton.groups[0] or TRITON_MIN, triton.groups[1] or cc
        cause = t("Triton, the compiler behind torch.compile (PyTorch's inductor backend), has no code for GPUs below "
                  "compute capability {need}.", need=need)
        if have:
            cause += " " + t("This GPU is {gpu}.", gpu=_generation(have))
        fix = t("run the model without torch.compile: remove the torch.compile call or turn off the program's compile "
                "option (torch.compile(model, backend=\"eager\") keeps the call), and PyTorch runs it on this GPU; "
                "or use a GPU of compute capability {need} or newer", need=need)
        return Finding(ID, t("The GPU is too old for Triton (torch.compile)"), [triton.line], cause, fix, "",
                       rank=28, supersedes=("gpu-too-new", "no-gpu-visible"))
    flash = log.first("flash_attn_arch")
    if flash:
        cause = t("FlashAttention 2 has kernels only for Ampere (compute capability {need}) and newer GPUs; this GPU "
                  "is older.", need=FLASH_ATTENTION_MIN)
        fix = t("turn FlashAttention off for this GPU: the program's option for it, or attn_implementation=\"sdpa\" "
                "(or \"eager\") in Hugging Face transformers; uninstall flash-attn where the program uses it whenever "
                "it is installed; or use a GPU of compute capability {need} or newer", need=FLASH_ATTENTION_MIN)
        return Finding(ID, t("The GPU is too old for FlashAttention 2"), [flash.line], cause, fix, "", rank=28,
                       supersedes=("gpu-too-new", "no-gpu-visible"))
    ollama = log.first("ollama_too_old")
    skipped = ollama_skipped(log)
    if skipped and vkey(skipped[1]) < vkey(skipped[2][-1]):
        have, need, line = skipped[1], skipped[2][0], skipped[0].line
    elif ollama:
        have, need, line = ollama.groups[0], OLLAMA_MIN, ollama.line
    else:
        return None
    cause = t("This ollama build has no CUDA code for the GPU ({gpu}): its CUDA libraries are built for compute "
              "capability {need} and newer, so it runs the model on the CPU.", gpu=_generation(have), need=need)
    last = _tested.last_cuda_for_arch(ctx, have)
    with_cuda = t("with CUDA {last} or older, the last release that compiles for it", last=last) if last else t(
        "with a CUDA release that compiles for it")
    fix = t("no driver or CUDA setup changes that: build ollama from source for this GPU (its development guide: "
            "cmake with -DCMAKE_CUDA_ARCHITECTURES={arch}, {with_cuda}), or use a GPU of compute capability {need} or "
            "newer", arch=have.replace(".", ""), with_cuda=with_cuda, need=need)
    return Finding(ID, t("The GPU is too old for this ollama build ({gpu})", gpu=_generation(have)), [line], cause,
                   fix, "", rank=28, supersedes=("gpu-too-new", "no-gpu-visible", "cuinit-error"))


def _torch_too_old(log, have, need, evidence):
    """PyTorch's _check_capability: "Found GPU0 %s which is of cuda capability %d.%d. PyTorch no longer supports this
    GPU because it is too old." Its binaries carry kernels only for the architectures they were built for."""
    gpu = _generation(have)
    cause = t("This GPU ({gpu}) is too old for the PyTorch installed, which has no GPU code for it and says it no "
              "longer supports it.", gpu=gpu)
    fix = t("this GPU ({gpu}) is too old for this PyTorch build and no driver or CUDA setup changes that: install "
            "an older PyTorch release whose binaries still include compute capability {have}, or build from source "
            "with TORCH_CUDA_ARCH_LIST=\"{have}\" (with a CUDA release that still supports it); or run on the CPU",
            gpu=gpu, have=have)
    if need:
        fix += t(", or use a GPU of compute capability {need} or newer (this build's oldest)", need=need)
    return Finding(ID, t("The GPU is too old for this PyTorch build ({gpu})", gpu=gpu), lines(evidence), cause, fix,
                   "", rank=28, supersedes=("gpu-too-new", "no-gpu-visible"))


def _generation(cc):
    """'2.1' -> 'Fermi, compute capability 2.1' (the generation's name where GENERATIONS has it)."""
    generation = GENERATIONS.get(cc) or GENERATIONS.get(cc.split(".")[0], "")
    return t("{generation}, compute capability {cc}", generation=generation, cc=cc) if generation else t(
        "compute capability {cc}", cc=cc)
