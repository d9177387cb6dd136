"""TF could not load one of the CUDA runtime libraries it was built against (cudart, cuBLAS, cuFFT, ...)."""

from builder.diagnose.context import tf_lines_of_path
from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.parse import split_dlerror
from builder.diagnose.rules import _programs, _tested
from builder.diagnose.rules._common import (
    WIN_TOOLKIT,
    cuda_for_tf,
    cudnn_for_tf,
    stand_ins,
    tfenv_way,
    windows_cuda_install,
    wsl_lib,
)
from builder.diagnose.rules._gpu import fatal, gpu_expected, libcuda_failures, libcuda_loaded
from builder.diagnose.rules._mixed import mixed_copies
from builder.diagnose.rules._programs import build_note, cuda_of, other_program, runtime_fix
from builder.diagnose.versions import family, vkey

ID = "missing-cuda-runtime"
FAMILIES = ("cudart", "cublas", "cublaslt", "cufft", "curand", "cusolver", "cusparse", "nvrtc", "nvrtc-builtins",
            "nvjitlink", "nccl")


def missing(log):
    return [(n, ev) for n, ev in log.failed_libraries() if family(n) in FAMILIES]


def check(log, ctx):
    mixed = mixed_copies(log, ctx)
    if mixed and mixed.id == ID:
        return mixed
    numba = _programs.numba_finding(log, ctx)
    if numba:
        return numba
    found = missing(log)
    if not found:
        named = _programs.finding(log, ctx)
        return (named if named and named.id == ID else None) or _unnamed(log, ctx) or _bitsandbytes(log, ctx)
    names = [n for n, _ in found]
    program = other_program(log, found)
    if program:
        return _of_program(program, found, ctx)
    other = _other_major(ctx, cuda_for_tf(ctx) or cuda_of(names), names, "TF")
    cuda = cuda_for_tf(ctx)
    tf = t("TF {tf}", tf=ctx.tf.value) if ctx.tf else t("This TensorFlow")
    if len(names) == 1:
        cause = t("{tf} was built against CUDA {cuda} and loads its libraries by exact name; it is not installed, or "
                  "not where the loader looks.", tf=tf, cuda=cuda or t("(see the names)"))
    else:
        cause = t("{tf} was built against CUDA {cuda} and loads its libraries by exact name; they are not installed, "
                  "or not where the loader looks.", tf=tf, cuda=cuda or t("(see the names)"))
    present, stand = ctx.cuda_present.value, stand_ins(ctx, names)
    if not stand and present and cuda and not cuda.startswith(present) and not present.startswith(cuda.rstrip("x")):
        cause += " " + t("CUDA {present} is there, but no other release provides the names TF asks for.",
                         present=present)
    if ctx.windows:  # one answer: the copy of the installed CUDA when matrix.yaml knows one, else the install
        fix = _stand_in_fix(ctx, present, stand) if stand else _windows_fix(ctx, cuda, names)
    else:
        fix = _linux_fix(found, ctx, cuda) + ("; " + _stand_in_fix(ctx, present, stand) if stand else "")
        fix += _wsl_toolkit_note(ctx)
    if other and not stand:  # the versions decide: one fix that names both majors (and, on Windows, the PATH)
        fix = other + ("; " + windows_cuda_install(cuda, names) if ctx.windows else _wsl_toolkit_note(ctx))
    if _cpu_machine_possible(log, ctx, found):
        fix += "; " + t("if this machine has no NVIDIA GPU there is nothing to fix: TF says to ignore this line and "
                        "runs on the CPU")
    return Finding(ID, t("TensorFlow cannot load the CUDA {cuda} libraries: {names}", cuda=cuda or t("runtime"),
                         names=", ".join(names)), [ev.line for _, ev in found], cause, fix, tfenv_way(ctx), rank=32)


def _cpu_machine_possible(log, ctx, found):
    """Only cudart failed, the import-time probe (tsl/stream_executor cudart_stub.cc: "Ignore above cudart dlerror if
    you do not have a GPU set up on your machine"), and nothing shows a GPU or a driver: the same lines come from a
    machine without an NVIDIA GPU, where they are harmless. The GPU libraries TF loads once it has found a device
    (cuBLAS, cuFFT, cuDNN ...), a device line or a loaded libcuda say a GPU is there."""
    return (all(family(n) == "cudart" for n, _ in found) and not fatal(log, found[0][1])
            and not gpu_expected(log, ctx) and not libcuda_loaded(log))


def _of_program(program, found, ctx):
    names = [n for n, _ in found]
    cuda = ctx.cuda_wanted.value or cuda_of(names)
    cause = t("{program} loads the CUDA libraries it was built with by exact name ({names}); they are not installed, "
              "or not where the loader looks.", program=program, names=", ".join(names))
    other = _other_major(ctx, cuda, names, program)
    fix = runtime_fix(ctx, program, names, cuda)
    if other:  # both majors named; the program's own build for the installed one, where it publishes one
        build = build_note(program, ctx)
        fix = other + ("; " + build if build else "") + _wsl_toolkit_note(ctx)
    return Finding(ID, t("{program} cannot load CUDA libraries: {names}", program=program, names=", ".join(names)),
                   [ev.line for _, ev in found], cause, fix, "", rank=32)


def _other_major(ctx, cuda, names, program):
    """The libraries asked for belong to another CUDA major than the one installed (libcublas.so.12 with CUDA 11.7):
    name both, and the TF lines built for the installed one (TensorFlow's tested configurations)."""
    present = ctx.cuda_present
    want, have = vkey(cuda)[:1], vkey(present.value)[:1]
    if not (want and have) or want == have or present.how.startswith("the driver"):
        return ""
    tfs = _tested.tf_for_cuda_major(ctx, have[0]) if program == "TF" else None
    wanted = cuda if not cuda.endswith("x") else str(want[0])
    # NVIDIA's pip wheels of the CUDA libraries (nvidia-*-cu11, -cu12) begin with CUDA 11
    where = t("its toolkit, or NVIDIA's nvidia-*-cu{want} pip wheels", want=want[0]) if want >= (11,) else t(
        "its toolkit")
    text = t("the names asked for are CUDA {wanted}'s ({names}) and the CUDA here is {present} (CUDA {have}), whose "
             "libraries do not serve another major: add CUDA {wanted}'s ({where})", wanted=wanted,
             names=", ".join(names), present=present.value, have=have[0], where=where)
    if program == "TF" and not tfs:  # no TF line is built for the installed CUDA here (Windows after TF 2.10)
        return text
    build = t("TF {first} to {last}", first=tfs[0], last=tfs[1]) if tfs else t("a build")
    return text + t(" or use {build}, made for CUDA {have}", build=build, have=have[0])


def _stand_in_fix(ctx, present, stand):
    pairs = ", ".join(f"`{src}` as `{dst}`" for src, dst in stand)
    if ctx.windows:
        return t("keep CUDA {present}: copy {pairs} in its bin folder ({folder}), the copy tfenv's windows setup "
                 "script makes; CUDA {present} has the other DLLs under the names TF asks for. Then open a new "
                 "terminal", present=present, pairs=pairs,
                 folder=WIN_TOOLKIT.format(present))
    links = "; ".join(f"`ln -s {src} {dst}`" for src, dst in stand)
    return t("with CUDA {present} installed instead, the link {links} in its lib folder (then `sudo ldconfig`) is "
             "what tfenv's image uses", present=present or t("of the environment"), links=links)


def _windows_fix(ctx, cuda, names):
    cudnn = cudnn_for_tf(ctx)
    fix = windows_cuda_install(cuda, names)
    if cudnn:
        return fix + "; " + t("cuDNN {cudnn} goes with it (its bin folder on PATH too)", cudnn=cudnn)
    return fix + "; " + t("cuDNN goes with it (its bin folder on PATH too)")


def _wsl_toolkit_note(ctx):
    """NVIDIA's CUDA on WSL guide: in WSL 2 the driver is the Windows one; the toolkit comes from the WSL-Ubuntu
    repository as cuda-toolkit-X-Y (the cuda / cuda-drivers meta packages would install a Linux driver)."""
    if ctx.platform.value != "wsl2":
        return ""
    return "; " + t("in WSL 2 the driver is the Windows one: install only the toolkit, from NVIDIA's WSL-Ubuntu "
                    "repository as cuda-toolkit-X-Y (never the cuda or cuda-drivers meta packages, which bring a Linux "
                    "driver), or NVIDIA's pip CUDA wheels")


def _linux_fix(found, ctx, cuda):
    name, ev = found[0]
    why, _ = split_dlerror(ev.groups[1] if ev.kind == "load_fail" and len(ev.groups) > 1 else None)
    needed = why.split(":", 1)[0].strip() if why else ""
    if needed and needed != name and ".so" in needed and not needed.startswith("/"):
        return t("{name} was found but needs {needed}, which is not on the loader path: install the library that "
                 "provides {needed} (or remove the mismatched {name} that wants it)", name=name, needed=needed)
    if (ctx.tf and vkey(ctx.tf.value) >= (2, 14)) or cuda.startswith("12"):
        return t("`pip install 'tensorflow[and-cuda]'` in that environment (same TF version): TF 2.14 and later get "
                 "the CUDA and cuDNN they were built with as NVIDIA's pip wheels; a system CUDA toolkit is not needed, "
                 "and another major version of it does not help")
    release = cuda if cuda and "x" not in cuda else "11.2"
    fix = t("install the CUDA {release} runtime libraries that provide {names} (NVIDIA's cuda-cudart-{dashed}, "
            "cuda-libraries-{dashed} packages, or the toolkit) and put their folder on the loader path: `export "
            "LD_LIBRARY_PATH=/usr/local/cuda-{release}/lib64${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}` or list it in "
            "/etc/ld.so.conf.d/ and run `sudo ldconfig` (the loader does not read PATH); in a conda env: `export "
            "LD_LIBRARY_PATH=$CONDA_PREFIX/lib`", release=release, dashed=release.replace(".", "-"),
            names=", ".join(n for n, _ in found))
    if cuda and vkey(cuda.replace("x", "0"))[:1] == (11,):
        fix += "; " + t("CUDA 11 also comes as pip wheels (nvidia-cuda-runtime-cu11, nvidia-cublas-cu11, ...: add "
                        "each site-packages/nvidia/*/lib to LD_LIBRARY_PATH)")
    if ctx.container:
        fix += "; " + t("in a container, build the image on one that has CUDA {release} and cuDNN", release=release)
    return fix


def _unnamed(log, ctx):
    """TF 2.12+ says "Cannot dlopen some GPU libraries" without naming them at the default log level; TF 2.14+
    says "Could not find cuda drivers" when its CUDA runtime is missing (where a GPU is expected, a container started
    with --gpus included); under an NVIDIA CUDA image of another CUDA major the image is the cause."""
    ev = log.first("cannot_dlopen") or (log.first("no_cuda_drivers") if gpu_expected(log, ctx) else None)
    if not ev or log.failed_libraries():
        return None
    image = _image_cuda_mismatch(log, ctx, ev)
    if image:
        return image
    cause = t("TF found the GPU but could not load some of its CUDA or cuDNN libraries; from TF 2.12 it no longer "
              "names them unless asked (TF_CPP_MAX_VLOG_LEVEL=3 or TF_CPP_MIN_LOG_LEVEL=0 shows the names).")
    if ctx.windows:
        fix = t("native Windows GPU support ends with TF 2.10: for TF 2.5-2.10 {install}; cuDNN 8.1's bin folder "
                "goes on PATH too", install=windows_cuda_install("11.2", []))
    else:
        fix = t("for TF 2.14 and later: `pip install 'tensorflow[and-cuda]'` (the CUDA and cuDNN wheels it was "
                "built with; TF 2.15+ needs CUDA 12); older TF: install the CUDA and cuDNN of TF's tested "
                "configuration and put their lib folder on LD_LIBRARY_PATH")
        fix += _wsl_toolkit_note(ctx)
    return Finding(ID, t("TensorFlow cannot load some CUDA libraries (unnamed)"), [ev.line], cause, fix,
                   tfenv_way(ctx), rank=32)


def _image_cuda_mismatch(log, ctx, ev):
    """An NVIDIA CUDA image (its start banner names the release) under a TF built with another CUDA major: the
    TF line comes from the log's TF version or the source path of the line that failed (tensorflow/tsl: 2.12-2.14),
    its CUDA from TF's tested configurations (matrix.yaml tensorflow:)."""
    banner = log.first("cuda_image_banner")
    lines = [ctx.tf.value] if ctx.tf else list(tf_lines_of_path(log.line_text(ev.line)))
    wanted = sorted(filter(None, {_tested.cuda_of_tf(ctx, line) for line in lines}), key=vkey)
    if not banner or not wanted or len({w.split(".")[0] for w in wanted}) > 1:
        return None
    image, cuda = banner.groups[0], wanted[-1]
    if image.split(".")[0] == cuda.split(".")[0]:
        return None
    tf = "TF " + (lines[0] if len(lines) == 1 else lines[0] + "-" + lines[-1])
    cause = t("The image is built on CUDA {image} (its start banner), but {tf} was built with CUDA {cuda} and loads "
              "that major's libraries by exact name (libcudart.so.{major}.0 and the rest); CUDA {image} does not "
              "provide them, so TF skips the GPU.", image=image, tf=tf, cuda=cuda, major=cuda.split(".")[0])
    fix = t("build the image on CUDA {cuda} (a CUDA {major} base image with its cuDNN), or install a TF built with "
            "CUDA {image_major} in it (TF 2.15 and later use CUDA 12: `pip install 'tensorflow[and-cuda]'`)",
            cuda=cuda, major=cuda.split(".")[0], image_major=image.split(".")[0])
    return Finding(ID, t("TensorFlow cannot load the CUDA {cuda} libraries: the image has CUDA {image}", cuda=cuda,
                         image=image), [ev.line, banner.line], cause, fix, tfenv_way(ctx), rank=32)


def _bitsandbytes(log, ctx):
    """bitsandbytes found no libcudart.so in the environment's paths nor in its backup folder, or fell back to its
    CPU library (a libcuda failure, in WSL 2 above all, is another rule's)."""
    ev = log.first("bnb_runtime_missing")
    if ev and log.has("bnb_runtime_found"):
        return None
    if not ev and not libcuda_failures(log):
        ev = log.first("bnb_cpu_fallback")
    if not ev:
        return None
    cause = t("bitsandbytes looks for the CUDA runtime (libcudart.so) in the folders of LD_LIBRARY_PATH and the other "
              "environment paths, then in /usr/local/cuda/lib64, and found it in none of them.")
    fix = t("put the lib64 folder of the installed CUDA toolkit on the loader path: `export "
            "LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}` (or the folder it was "
            "installed to; in a conda env $CONDA_PREFIX/lib), or install the CUDA runtime that matches PyTorch's CUDA")
    if ctx.platform.value == "wsl2":
        fix += "; " + t("in WSL 2 add {wsl_lib} (the Windows driver's libcuda) to LD_LIBRARY_PATH too, and "
                        "install only the CUDA toolkit (cuda-toolkit-X-Y), never a Linux driver", wsl_lib=wsl_lib(ctx))
    return Finding(ID, t("bitsandbytes cannot find the CUDA runtime (libcudart.so)"), [ev.line], cause, fix,
                   tfenv_way(ctx), rank=32)
