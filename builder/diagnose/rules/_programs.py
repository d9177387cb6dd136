"""Programs other than TF that load NVIDIA's libraries by name (ONNX Runtime, CTranslate2, JAX, PaddlePaddle,
PyTorch, libgpuarray, NVRTC's users, CuPy): which one a log comes from, and their advice when a CUDA library or
cuDNN did not load. Their fix is the program's own (its build for the CUDA and cuDNN installed first, then the CUDA
and cuDNN it was built for), never TF's tested configuration or tensorflow[and-cuda]. The rule ids stay
missing-cuda-runtime and missing-cudnn: the cause is the same. The builds each program publishes per CUDA / cuDNN
major are its own documentation's (docs/sources.md §1, "Other programs' builds")."""

import re

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.versions import compute_capability, cuda_of_library, family, vkey

# the words of the "program" events (builder.diagnose.patterns_loader) -> the program they belong to
_PROGRAMS = (("onnx", "ONNX Runtime"), ("cudaexecutionprovider", "ONNX Runtime"), ("ctranslate2", "CTranslate2"),
             ("whisper", "CTranslate2"), ("is not found", "CTranslate2"), ("paddle", "PaddlePaddle"),
             ("copy cudnn into cuda", "PaddlePaddle"), ("please note: device", "PaddlePaddle"),
             ("cannot load cudnn shared", "PaddlePaddle"), ("pygpu", "libgpuarray"),
             ("gpuarray", "libgpuarray"), ("nvrtc", "NVRTC"), ("cupy", "CuPy"),
             ("jax", "JAX"), ("is it installed", "JAX"), ("torch", "PyTorch"), ("system path", "PyTorch"),
             ("asynchronously", "PyTorch"))
RUNTIME, CUDNN = "missing-cuda-runtime", "missing-cudnn"


def other_program(log, failures=()):
    """The program other than TF whose loader failed, as the log names it; '' when the log is TF's or names none.
    A program's own words on the line of a failure (CTranslate2's "Library %s is not found", ONNX Runtime's
    provider bridge) win over a TF import elsewhere in the paste."""
    lines = {ev.line for _, ev in failures}
    own = [ev for ev in log.all("program") if ev.line in lines]
    if not own and tf_log(log):
        return ""
    for ev in own + log.all("program"):
        for key, program in _PROGRAMS:
            if key in ev.groups[0].lower():
                return program
    return ""


def required_cuda(log):
    """The CUDA major ONNX Runtime's bindings say the provider needs ("Require cuDNN 9.* and CUDA 13.*"), else ''."""
    return next((ev.groups[1] for ev in log.all("ort_cuda_provider") if ev.groups[1]), "")


def tf_log(log):
    """The log is TensorFlow's: its name, its version, its loader's paths (dso_loader.cc) or its loader's words."""
    return ("tensorflow" in [ev.groups[0].lower() for ev in log.all("program")]
            or log.has("dso_loader", "tf_version", "native_runtime", "cannot_dlopen")
            or any("Could not load dynamic library" in log.line_text(ev.line) for ev in log.all("load_fail")))


def tf_module(name):
    """A Python extension module of TF's own (_pywrap_tensorflow_internal, _pywrap_tfe, _pywrap_tf_session, ...), as
    "DLL load failed while importing <name>" names it."""
    return "tensorflow" in name or name.startswith("_pywrap_tf")


def cuda_of(names):
    """The CUDA release the names pin down ('12.x', '11.8'), '' when none does."""
    return next(filter(None, map(cuda_of_library, names)), "")


def runtime_fix(ctx, program, names, cuda):
    """The program's build for the CUDA installed, else the CUDA release it was built for, where its loader looks."""
    if program == "libgpuarray":
        return _gpuarray_fix(ctx)
    major = cuda.split(".")[0] if cuda else ""
    release = t("CUDA {cuda}", cuda=cuda) if cuda else t("the CUDA release it was built for")
    if ctx.windows:
        fix = t("install {release} (the toolkit, or NVIDIA's pip wheels for it) so that {names} is on PATH: add the "
                "folder that holds it to PATH, open a new terminal and check with `where {first}`", release=release,
                names=", ".join(names), first=names[0])
    else:
        fix = t("install {release} ({names}) in that environment, as NVIDIA's pip wheels (nvidia-*-cu{major}, e.g. "
                "`pip install nvidia-cublas-cu{major}`) or the toolkit, and put the folder that holds it on the loader "
                "path: `export LD_LIBRARY_PATH=<that folder>${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}`; a CUDA of "
                "another major version does not help", release=release, names=", ".join(names), major=major or "12")
    build = build_note(program, ctx)
    if build:
        return build + "; " + t("or {fix}", fix=fix)
    extra = _program_note(program, ctx)
    return fix + ("; " + extra if extra else "")


def build_note(program, ctx):
    """The program's own builds per CUDA / cuDNN major, as its documentation lists them: the first choice when it
    asks for another major's libraries than the ones installed. '' for a program that publishes none here."""
    if program == "PaddlePaddle":
        return t("first choice, the paddlepaddle-gpu build for the CUDA you have: Paddle publishes one per CUDA, "
                 "`paddlepaddle-gpu==<version>.post<CUDA digits>` on its wheel page (2.4: post112, post116, post117 "
                 "for CUDA 11.2, 11.6, 11.7; 2.5 adds post120), while the plain version on PyPI (2.x up to 2.4) is "
                 "the CUDA 10.2 / cuDNN 7 build that asks for {cudnn7}",
                 cudnn7="cudnn64_7.dll" if ctx.windows else "libcudnn.so.7")
    if program == "CTranslate2":
        return t("first choice, the ctranslate2 release built for the CUDA and cuDNN you have: 4.5 and later for "
                 "CUDA 12 with cuDNN 9, 4.0 to 4.4 for CUDA 12 with cuDNN 8 (`pip install ctranslate2==4.4.0`), 3.x "
                 "for CUDA 11 with cuDNN 8 (`pip install ctranslate2==3.24.0`)")
    if program == "ONNX Runtime":
        return t("first choice, the onnxruntime-gpu build for the CUDA and cuDNN you have: {table}",
                 table=ort_requirements())
    return ""


def _program_note(program, ctx):
    if program == "PyTorch":
        return t("PyTorch's pip wheels bring these libraries along: reinstall torch with pip in that environment "
                 "(`pip install --force-reinstall torch`, the index URL of the CUDA build you want) rather than "
                 "adding a system CUDA")
    if program == "JAX":
        return t("`pip install -U \"jax[cuda12]\"` installs a CUDA-enabled jaxlib with the CUDA and cuDNN libraries "
                 "it was built with as pip wheels (a plain `pip install jax` is CPU-only); an LD_LIBRARY_PATH that "
                 "points at another CUDA shadows them: unset it")
    return ""


def _gpuarray_fix(ctx):
    """libgpuarray (src/gpuarray_buffer_cuda.c) asks for the NVRTC of the driver's CUDA version (GPUARRAY_CUDA_VERSION,
    two digits, overrides it), later releases then older ones down to 7.0, by name (nvrtc64_<major><minor>.dll;
    libnvrtc.so on Linux): the name in the message is the last one it tried, not a CUDA to install."""
    if ctx.windows:
        return t("libgpuarray (pygpu) loads NVRTC from the CUDA toolkit as nvrtc64_<major><minor>.dll of the driver's "
                 "CUDA version, then older ones (the name shown is the last it tried): add the installed toolkit's "
                 "bin folder (CUDA_PATH\\bin) to PATH and open a new terminal; when the driver's CUDA is newer than "
                 "the toolkit, `set GPUARRAY_CUDA_VERSION=80` for CUDA 8.0 (the toolkit's two digits); these names "
                 "fit CUDA 7.0 to 9.2 only (CUDA 10 and later name it nvrtc64_<3 digits>_0.dll)")
    return t("libgpuarray (pygpu) loads the CUDA toolkit's libnvrtc.so by that plain name: put the toolkit's lib64 "
             "folder on the loader path (`export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:"
             "$LD_LIBRARY_PATH}`); the unversioned link comes with the toolkit itself")


def ort_requirements():
    return t("1.19 and later on PyPI are CUDA 12.x / cuDNN 9 builds, 1.18 and earlier CUDA 11.8 / cuDNN 8 ones, and "
             "builds for cuDNN 8 and 9 do not mix (ONNX Runtime's CUDA requirements table)")


def finding(log, ctx):
    """ONNX Runtime's CUDA provider or JAX's CUDA plugin failing without naming the library, or a CPU-only PyTorch
    asked for the GPU (a missing-cuda-runtime or missing-cudnn Finding), else None."""
    provider = [ev for ev in log.all("loadlibrary_failed") if "providers_cuda" in ev.groups[2].lower()]
    ort = provider[:1] + log.all("ort_cuda_provider")[:1]
    # a cuDNN library named as the provider's missing dependency is missing-cudnn's to read
    if ort and not any(family(n).startswith("cudnn") for n, _ in log.failed_libraries()):
        if any("CUDA_PATH is set" in log.line_text(ev.line) for ev in log.all("ort_cuda_provider")):
            return _ort_cuda_path(ctx, ort)
        versions = [ev.groups for ev in log.all("ort_cuda_provider") if ev.groups[0]]
        cuda, cudnn = (versions[0][1], versions[0][0]) if versions else ("", "")
        need = (t("CUDA {cuda}.x and cuDNN {cudnn}.x", cuda=cuda, cudnn=cudnn) if cuda else
                t("the CUDA and cuDNN it was built for"))
        cause = t("ONNX Runtime's CUDA provider (onnxruntime_providers_cuda) did not load: it needs {need}, and one "
                  "of their libraries is not installed or not where the loader looks (error 126 is a missing "
                  "dependency of the provider, not the provider itself).", need=need)
        where = (t("add both bin folders to PATH and open a new terminal") if ctx.windows else
                 t("put their lib folders on LD_LIBRARY_PATH (the nvidia-cudnn-cu12 and nvidia-cublas-cu12 wheels' "
                   "site-packages/nvidia/*/lib, or the toolkit's lib64)"))
        fix = t("install {need} and {where}; onnxruntime-gpu {table}", need=need, where=where,
                table=ort_requirements())
        return Finding(RUNTIME, t("ONNX Runtime cannot load its CUDA provider"), [ev.line for ev in ort], cause, fix,
                       "", rank=32)
    jax = log.all("jax_load")[:1]
    if jax:
        lib = jax[0].groups[0]
        cause = t("JAX's CUDA plugin checks the versions of the CUDA libraries it was built with and could not load "
                  "{lib}: the NVIDIA pip wheels are missing, or an LD_LIBRARY_PATH points at another CUDA.", lib=lib)
        return Finding(CUDNN if lib == "cuDNN" else RUNTIME, t("JAX cannot load {lib}", lib=lib), [jax[0].line],
                       cause, _program_note("JAX", ctx), "", rank=32)
    fallback = log.all("jax_no_gpu")[:1]
    if fallback:
        cause = t("JAX came up without its CUDA backend and runs on the CPU: the jaxlib installed is CPU-only, or its "
                  "CUDA backend could not load the CUDA and cuDNN libraries it was built with (missing, or older "
                  "ones found first).")
        return Finding(RUNTIME, t("JAX runs on the CPU: no CUDA backend"), [fallback[0].line], cause,
                       _program_note("JAX", ctx), "", rank=32)
    cpu_torch = log.first("torch_cpu_build")
    if cpu_torch:
        return _torch_cpu_build(ctx, cpu_torch)
    hashcat = log.all("hashcat_no_nvrtc")[:2]
    if hashcat:
        return _hashcat_nvrtc(ctx, hashcat)
    return None


def _hashcat_nvrtc(ctx, evidence):
    """hashcat compiles its CUDA kernels at run time with NVRTC, which the driver does not bring: without it hashcat
    uses the GPU through OpenCL (src/backend.c)."""
    cause = t("hashcat's CUDA backend compiles its kernels with NVRTC, the CUDA toolkit's run-time compiler, which "
              "the NVIDIA driver does not include; it could not load it, so hashcat falls back to OpenCL.")
    if ctx.windows:
        fix = t("install the CUDA toolkit (its bin folder on PATH, which the installer sets), or copy its "
                "nvrtc64_<version>_0.dll and nvrtc-builtins64_<version>.dll into the hashcat folder; then start "
                "hashcat again")
    else:
        fix = t("install the CUDA toolkit (or just NVRTC: the distribution's libnvrtc package, or `pip install "
                "nvidia-cuda-nvrtc-cu12` with its lib folder on LD_LIBRARY_PATH) so that libnvrtc.so loads; then "
                "start hashcat again")
    return Finding(RUNTIME, t("hashcat cannot load NVRTC (CUDA's run-time compiler)"), [ev.line for ev in evidence],
                   cause, fix, "", rank=32)


def _ort_cuda_path(ctx, ort):
    """ONNX Runtime's bindings when the provider did not load and CUDA_PATH is set (onnxruntime_pybind_state.cc):
    CUDA_PATH is the CUDA toolkit installer's, so a toolkit is there; what is missing is then cuDNN, which the toolkit
    does not bring, or the toolkit of the other CUDA major than the build's."""
    cause = t("ONNX Runtime's CUDA provider did not load although CUDA_PATH is set: the CUDA toolkit's installer sets "
              "it, so a toolkit is there. What the provider lacks is then cuDNN, which comes apart from the toolkit, "
              "or a toolkit of the CUDA major the build needs.")
    where = (t("put cuDNN's bin folder on PATH (or copy its DLLs into CUDA_PATH\\bin) and open a new terminal")
             if ctx.windows else t("put cuDNN's lib folder on LD_LIBRARY_PATH"))
    fix = t("install the cuDNN the onnxruntime-gpu build needs, cuDNN 8 (cudnn64_8.dll) for 1.18 and earlier, cuDNN 9 "
            "(cudnn64_9.dll) for 1.19 and later, and {where}; check that the CUDA toolkit is of the build's major "
            "too: {table}", where=where, table=ort_requirements())
    return Finding(CUDNN, t("ONNX Runtime cannot load its CUDA provider: cuDNN"), [ev.line for ev in ort], cause, fix,
                   "", rank=32)


def _torch_cpu_build(ctx, ev):
    """PyTorch's _lazy_init when torch._C has no CUDA in it (torch/cuda/__init__.py): the build installed is the
    CPU-only one, which no CUDA, cuDNN or driver install changes; pip's default torch on Windows is that build."""
    cause = t("The PyTorch installed is a CPU-only build (`torch.version.cuda` prints None): it has no CUDA code, so "
              "no CUDA, cuDNN or driver install makes it use the GPU.")
    if ctx.windows:
        cause += " " + t("On Windows a plain `pip install torch` installs that build.")
    fix = t("reinstall torch with CUDA: in that environment `pip uninstall torch` (and torchvision, torchaudio), then "
            "install a CUDA build, the `pip install torch --index-url <PyTorch's wheel index>/whl/cu121` command that "
            "pytorch.org's selector gives for a CUDA your driver runs (cu117, cu118, cu121, ...), or with conda "
            "`conda install pytorch pytorch-cuda=12.1 -c pytorch -c nvidia`; check with `python -c \"import torch; "
            "print(torch.version.cuda, torch.cuda.is_available())\"`")
    return Finding(RUNTIME, t("PyTorch is a CPU-only build"), [ev.line], cause, fix, "", rank=32)


def numba_finding(log, ctx):
    """numba's library self-test (numba -s, numba.cuda.cudadrv.libs.test(), numba/cuda/cudadrv/libs.py) that did not
    find or could not open a CUDA toolkit library: a missing-cuda-runtime Finding with numba's own way of finding the
    toolkit (its docs, docs/source/cuda/overview.rst "Setting CUDA Installation Path"), else None. "Finding %s"
    without " from %s" is numba 0.43 or older, which read the NUMBAPRO_* variables (removed in 0.46); later ones name
    where they looked."""
    events = log.all("numba_lib")
    if not events:
        return None
    names = list(dict.fromkeys(ev.groups[0] for ev in events))
    where = next((ev.groups[1] for ev in events if ev.groups[1]), "")
    cause = t("numba's library test did not find or could not open the CUDA toolkit's {names}: the toolkit numba "
              "uses is not installed where numba looks for it.", names=", ".join(names))
    if not where:
        folder = (t("the toolkit's bin folder, e.g. C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.0\\bin")
                  if ctx.windows else t("the toolkit's lib64 folder, e.g. /usr/local/cuda/lib64"))
        fix = t("numba 0.43 and older find the toolkit in the conda environment (`conda install cudatoolkit`) or "
                "through environment variables: set NUMBAPRO_CUDALIB to the folder that holds the CUDA libraries "
                "({folder}), NUMBAPRO_NVVM to the NVVM library file and NUMBAPRO_LIBDEVICE to NVVM's libdevice folder, "
                "then open a new terminal and run `numba -s` again (numba 0.44 and later read CUDA_HOME instead)",
                folder=folder)
    else:
        cause += " " + t("It looked in: {where}.", where=where)
        loader = (t("a folder on PATH that holds them serves too") if ctx.windows else
                  t("a folder on LD_LIBRARY_PATH that holds them serves too"))
        fix = t("numba looks for the toolkit in the conda environment first (`conda install -c conda-forge cuda-nvcc "
                "cuda-nvrtc \"cuda-version>=12.0\"` for CUDA 12, `conda install -c conda-forge cudatoolkit` for CUDA "
                "11), then in CUDA_HOME: install it that way, or set CUDA_HOME to the toolkit's root folder (one path, "
                "not a list), then run `numba -s` again; numba also asks the system loader, so {loader}",
                loader=loader)
    return Finding(RUNTIME, t("numba cannot find the CUDA toolkit's libraries: {names}", names=", ".join(names)),
                   [ev.line for ev in events], cause, fix, "", rank=32)


def ollama_skipped(log):
    """(the event, the GPU's compute capability, the build's compute capabilities oldest first) of ollama's "skipping
    CUDA device — compute capability not in compiled architectures" (its cc=61 and archs="50;61;..." fields), else
    None."""
    said = log.first("ollama_not_built")
    archs = sorted((compute_capability(a) for a in re.split(r"[;, ]+", said.groups[1]) if a), key=vkey) if said \
        else []
    return (said, compute_capability(said.groups[0]), archs) if archs else None
