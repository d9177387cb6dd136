"""The GPU is newer than a CUDA piece in use: the TF build's kernels (no kernel image, or a slow PTX JIT start) or the
ptxas XLA runs (`Value 'sm_86' is not defined for option 'gpu-name'`).

Which cause wins: a ptxas that exists but does not know this GPU is gpu-too-new (the fix is a newer CUDA, named by
matrix.yaml nvidia.first_cuda_for_arch); xla-libdevice is for libdevice or ptxas that cannot be found or run."""

import re

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import _tested
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.rules._programs import ollama_skipped, other_program, tf_log
from builder.diagnose.versions import compute_capability, vkey

ID = "gpu-too-new"
_CU_SOURCE = re.compile(r"\.cu[h]?:\d")
ERRORS = ("CUDA_ERROR_NO_BINARY_FOR_GPU", "cudaErrorNoKernelImageForDevice", "CUDA_ERROR_INVALID_PTX",
          "CUDA_ERROR_INVALID_IMAGE")


def check(log, ctx):
    said = _a_tool_says(log, ctx)
    if said:
        return said
    jit = log.all("ptx_jit")[:1]
    errors = log.all("no_kernel_image")[:1] + [ev for ev in log.all("cuda_error") if ev.groups[0] in ERRORS][:1]
    errors += log.all("arch_not_built")[:1]  # PyTorch's capability check: the build has no code for this sm_XX
    built = log.first("arch_not_built")  # sm_89, sm_120: the GPU's compute capability in PyTorch's words
    cc = ctx.compute_capability.value or (compute_capability(built.groups[0]) if built else "")
    old_cuda = ctx.cuda_wanted.value.startswith("10.") and vkey(cc) >= (8, 0)
    if not (jit or errors or old_cuda):
        return None
    evidence = jit + errors
    program = other_program(log) if errors and not cc and not built else ""
    # a log with no sign of TF, or the error in a program's own check of its CUDA code (helper_cuda.h's "CUDA error at
    # kernels.cu:212 code=209(...)", a .cu file TF's messages never name): not TF's build
    own = any(_CU_SOURCE.search(log.line_text(ev.line)) for ev in errors)
    if program or (errors and not cc and not built and (own or not tf_log(log))):
        return _program_build(ctx, program, evidence)
    if old_cuda:
        evidence.append(log.first("device") or log.first("device_old"))
    # the GPUs no TF pip build has code for; not PyTorch's or another program's log, whose builds are their own
    first, tf_build = _tested.first_cuda_for_arch(ctx, cc), not built and not other_program(log)
    beyond = _beyond_tf(ctx) if tf_build else []
    cause = t("The GPU (compute capability {cc}) is newer than the code in this TF build.", cc=cc or "?")
    if jit and not errors and cc not in beyond:
        cause += " " + t("TF has no binaries for it and the driver compiles every kernel from PTX at the first "
                         "start: it works, slowly (minutes, up to 30).")
    cache = t("keep the JIT-compiled kernels between runs with a bigger cache: CUDA_CACHE_MAXSIZE=4294967296 (the "
              "default cache is too small); or use a TF build whose CUDA has code for this GPU")
    older = t("use a TF built with a newer CUDA: CUDA 10.x builds (TF <= 2.3) have no code for sm_80/sm_86 GPUs "
              "(RTX 30xx and newer), CUDA 11 builds (TF 2.4+) do")
    if first and cc in beyond:  # no TF line is built with a CUDA that knows it: compiling TF's PTX fails there too
        fix = _no_tf_build(ctx, cc, first)
    elif not (errors or old_cuda):
        fix = cache
    elif first and vkey(cc) > (8, 6):  # newer than Ampere: CUDA 11 is not enough either
        fix = t("use a build made with CUDA {first} or newer, the first CUDA with code for compute capability {cc}; "
                "{rest}", first=first, cc=cc, rest=cache)
    elif cc or not beyond:
        fix = older + "; " + cache
    elif ctx.tf and _newest_cuda_major(ctx):  # a TF of the newest CUDA major on a GPU the log does not name
        fix = _unknown_gpu(ctx, beyond)
    elif ctx.tf:
        fix = older + "; " + cache
    else:  # the log names neither the GPU nor the TF
        fix = older + "; " + _unknown_gpu(ctx, beyond)
    return Finding(ID, t("The GPU is newer than this TensorFlow build"), [ev.line for ev in evidence if ev], cause,
                   fix, tfenv_way(ctx) + "; " + t("a CUDA 11 environment (tf25 to tf29) runs Ampere and newer GPUs"),
                   rank=44)


def _program_build(ctx, program, evidence):
    """Another program's build without code for a GPU the log does not name (the GPU may be older than it, too), or
    a CUDA extension the project compiled itself for other GPUs; '' as the program: a log that names none."""
    if program:
        cause = t("This {program} build has no code for the GPU (\"no kernel image\"): the GPU is newer, or older, "
                  "than the GPUs its CUDA build was made for.", program=program)
        fix = t("install the {program} build for a CUDA that supports this GPU: for an older GPU (Pascal: GeForce "
                "10xx, compute capability 6.x) the build for an older CUDA (its CUDA 11.8 build), for a newer one the "
                "build for a newer CUDA{newest}", program=program, newest=_newest_generations(ctx))
        title = t("This {program} build has no code for the GPU", program=program)
    else:
        cause = t("The program's CUDA code was not compiled for this GPU (\"no kernel image\"): the GPU is newer, or "
                  "older, than the architectures it was built for.")
        fix = t("use a build of the program made for this GPU: for a newer GPU one built with a newer CUDA{newest}",
                newest=_newest_generations(ctx))
        title = t("The program has no code for this GPU")
    fix += t("; a CUDA extension the project compiles itself (its setup.py, CMake or Makefile) needs this GPU's "
             "compute capability among its targets: rebuild it with TORCH_CUDA_ARCH_LIST=\"<compute capability>\" "
             "for PyTorch extensions, or -gencode arch=compute_XY,code=sm_XY (CMAKE_CUDA_ARCHITECTURES) for nvcc; "
             "`nvidia-smi --query-gpu=name,compute_cap --format=csv` shows the GPU's compute capability")
    return Finding(ID, title, [ev.line for ev in evidence if ev], cause, fix, tfenv_way(ctx), rank=44)


def _ollama_not_built(log, ctx):
    """ollama's discovery skipping a GPU newer than every architecture its CUDA build was compiled for (its slog
    fields cc=120 archs="50;61;...;90"); an older one is gpu-too-old's."""
    skipped = ollama_skipped(log)
    if not skipped or vkey(skipped[1]) < vkey(skipped[2][-1]):
        return None
    said, cc, archs = skipped
    cause = t("This ollama build has no CUDA code for the GPU (compute capability {cc}): its CUDA libraries are built "
              "for compute capability {newest} and older, so it runs the model on the CPU.", cc=cc, newest=archs[-1])
    first = _tested.first_cuda_for_arch(ctx, cc)
    need = t(" (built with CUDA {first} or newer, the first CUDA with code for it)", first=first) if first else ""
    fix = t("update ollama to a release whose CUDA build includes compute capability {cc}{need}, or build it from "
            "source with -DCMAKE_CUDA_ARCHITECTURES={arch}", cc=cc, need=need, arch=cc.replace(".", ""))
    return Finding(ID, t("The GPU is newer than this ollama build"), [said.line], cause, fix, "", rank=44)


def _a_tool_says(log, ctx):
    """The GPU's target named by the tool that has no code for it: NVIDIA's image check, ollama's discovery, ptxas or
    nvcc."""
    ngc = log.first("ngc_sm_too_new")
    if ngc:
        return _ngc_image(log, ctx, ngc)
    ollama = _ollama_not_built(log, ctx)
    if ollama:
        return ollama
    arch = log.first("ptxas_arch")
    if arch:  # sm_86, gpu-name (ptxas) or gpu-architecture (nvcc)
        target, option = arch.groups
        return _old_ptxas(ctx, compute_capability(target), "ptxas" if option == "gpu-name" else "nvcc", arch.line)
    # only a target of compute capability 8.0 or newer is newer than that nvcc: no CUDA has dropped one yet, while an
    # older one may be a target a later CUDA dropped
    arch = next((ev for ev in log.all("nvcc_arch") if int(ev.groups[0]) >= 80), None)
    if arch:
        return _old_ptxas(ctx, compute_capability(arch.groups[0]), "nvcc", arch.line)
    said = log.first("ptxas_cc")
    if said:
        return _old_ptxas(ctx, said.groups[0], "ptxas", said.line)
    nvrtc = log.first("nvrtc_arch")
    return _old_nvrtc(log, ctx, nvrtc) if nvrtc else None


def _old_nvrtc(log, ctx, said):
    """NVRTC, the CUDA run-time compiler the program carries (PyTorch's JIT fusers, hashcat, Isaac Gym, CuPy), from
    a CUDA older than the GPU: it does not know the architecture it is asked to compile for."""
    cc = ctx.compute_capability.value
    first = _tested.first_cuda_for_arch(ctx, cc) if cc else ""
    gpu = t("compute capability {cc}", cc=cc) if cc else t("this GPU")
    cause = t("NVRTC, the CUDA run-time compiler the program uses, comes from a CUDA older than the GPU ({gpu}): it "
              "does not know the GPU's architecture, so it cannot compile the program's kernels for it.", gpu=gpu)
    need = t("CUDA {first} or newer", first=first) if first else t("a newer CUDA{newest}",
                                                                   newest=_newest_generations(ctx))
    fix = t("use a build of the program with {need}: PyTorch's wheels bring their own NVRTC, so reinstall torch "
            "built for it (its cuXYZ index); in a container, an image on a newer CUDA base; other programs take the "
            "CUDA toolkit's NVRTC ({nvrtc}) of that CUDA", need=need,
            nvrtc="nvrtc64_*.dll" if ctx.windows else "libnvrtc.so")
    if "hashcat" in log.text or "Hashcat" in log.text or log.has("hashcat_no_nvrtc"):
        fix += t("; hashcat runs the GPU through its OpenCL backend meanwhile (`--backend-ignore-cuda`, or `-d` with "
                 "the OpenCL device's number from `hashcat -I`)")
    return Finding(ID, t("The GPU is newer than the CUDA run-time compiler (NVRTC) in use"), [said.line], cause, fix,
                   tfenv_way(ctx), rank=44)


def _newest_generations(ctx):
    """' (compute capability 10.0 and 12.0: CUDA 12.8 or newer, a cu128 build; ...)' for the newest GPU generations
    (matrix.yaml nvidia.first_cuda_for_arch, CUDA 11.8 and later), newest first; '' without the table."""
    table = (ctx.facts or {}).get("first_cuda_for_arch") or {}
    by_cuda = {}
    for cc, first in sorted(table.items(), key=lambda kv: vkey(kv[0])):
        if vkey(first) >= (11, 8):
            by_cuda.setdefault(first, []).append(cc)
    said = [t("compute capability {ccs}: CUDA {first} or newer, a cu{digits} build", ccs=t(" and ").join(ccs),
              first=first, digits=first.replace(".", "")) for first, ccs in sorted(by_cuda.items(),
                                                                                  key=lambda kv: vkey(kv[0]),
                                                                                  reverse=True)]
    return " (" + "; ".join(said) + ")" if said else ""


def _beyond_tf(ctx):
    """The compute capabilities whose first CUDA is newer than the CUDA of every TF line the tables know."""
    newest = _tested.newest(ctx)
    cuda = _tested.cuda_of_tf(ctx, newest) if newest else ""
    table = (ctx.facts or {}).get("first_cuda_for_arch") or {}
    return sorted((cc for cc, first in table.items() if cuda and vkey(first) > vkey(cuda)), key=vkey)


def _unknown_gpu(ctx, beyond):
    """The GPUs no TF pip build has code for, when the log does not say which GPU it is."""
    first = _tested.first_cuda_for_arch(ctx, beyond[0])
    return t("if the GPU is of compute capability {ccs}, {no_tf}", ccs=t(" or ").join(beyond),
             no_tf=_no_tf_build(ctx, "", first))


def _newest_cuda_major(ctx):
    """The log's TF (when it says) is built with the CUDA major of the newest TF line."""
    newest = _tested.cuda_of_tf(ctx, _tested.newest(ctx))
    cuda = _tested.cuda_of_tf(ctx, ctx.tf.value) if ctx.tf else newest
    return bool(cuda) and vkey(cuda)[:1] == vkey(newest)[:1]


def _no_tf_build(ctx, cc, first):
    """No TF pip build has code for the GPU: NVIDIA's NGC TensorFlow container, or TF built from source."""
    newest = _tested.newest(ctx)
    said = t("no TF pip release has code for compute capability {cc}", cc=cc) if cc else t(
        "no TF pip release has code for it")
    return t("{said} (first in CUDA {first}; the newest, TF {tf}, is built with CUDA {cuda}): use NVIDIA's NGC "
             "TensorFlow container or build TF from source with CUDA {first} or newer", said=said, first=first,
             tf=newest, cuda=_tested.cuda_of_tf(ctx, newest))


def _old_ptxas(ctx, cc, tool, line):
    """ptxas or nvcc from a CUDA older than the GPU of compute capability `cc`."""
    target = "sm_" + cc.replace(".", "")
    first = _tested.first_cuda_for_arch(ctx, cc)
    need = t("CUDA {first} or newer", first=first) if first else t("a newer CUDA")
    if tool == "ptxas":
        cause = t("The GPU (compute capability {cc}, {arch}) is newer than the CUDA whose ptxas compiles TF's and "
                  "XLA's kernels: that ptxas does not know {arch}, so TF falls back to the driver's slower compilation "
                  "or fails.", cc=cc, arch=target)
    else:
        cause = t("The GPU (compute capability {cc}, {arch}) is newer than the CUDA toolkit whose nvcc compiles the "
                  "kernels: that nvcc does not know {arch}.", cc=cc, arch=target)
    fix = t("put the {tool} of {need} first on PATH (only {tool} needs to be newer; it is in the toolkit's bin folder, "
            "or `conda install -c nvidia cuda-nvcc`), or use a TF built for {need}", tool=tool, need=need)
    return Finding(ID, t("The GPU is newer than this TensorFlow build"), [line], cause, fix, tfenv_way(ctx), rank=44)


def _ngc_image(log, ctx, said):
    """NVIDIA's image checks the GPU at start (checkSMVER.sh, the SM version check of /opt/nvidia/entrypoint.d):
    "Detected %s GPU, which is not yet supported in this version of the container": the GPU's compute capability is
    of a major newer than the image's release was built for (its MAXSMVER), and "No supported GPU(s)" follows."""
    gpu = said.groups[0].strip().replace("NVIDIA NVIDIA ", "NVIDIA ")  # the script adds NVIDIA to the device's name
    cause = t("NVIDIA's image checked the GPU at start: {gpu} is newer than the GPUs this release of the image is "
              "built for (\"not yet supported in this version of the container\"), so its CUDA libraries have no code "
              "for it.", gpu=gpu)
    fix = t("use a newer release of the image: a later tag of the NGC image (the YY.MM tag in the `FROM` line "
            "of the Dockerfile), whose CUDA knows this GPU; NVIDIA's framework support matrix lists each release's "
            "CUDA and GPUs")
    evidence = [said.line] + [ev.line for ev in log.all("ngc_no_supported_gpu")[:1]]
    return Finding(ID, t("The GPU is newer than this container image"), evidence, cause, fix,
                   t("`tfenv run ENV` uses an image whose CUDA matches the TF it runs (`tfenv matrix` lists them)"),
                   rank=44)
