"""TF could not load one of the CUDA runtime libraries it was built against (cudart, cuBLAS, cuFFT, ...)."""

from builder.diagnose.finding import Finding
from builder.diagnose.parse import split_dlerror
from builder.diagnose.rules._common import cuda_for_tf, cudnn_for_tf, tfenv_way, windows_cuda_install
from builder.diagnose.rules._gpu import gpu_expected
from builder.diagnose.versions import family, vkey

ID = "missing-cuda-runtime"
FAMILIES = ("cudart", "cublas", "cublaslt", "cufft", "curand", "cusolver", "cusparse", "nvrtc", "nvjitlink")


def missing(log):
    return [(n, ev) for n, ev in log.failed_libraries() if family(n) in FAMILIES]


def check(log, ctx):
    found = missing(log)
    if not found:
        return _unnamed(log, ctx)
    names = [n for n, _ in found]
    cuda = cuda_for_tf(ctx)
    tf = f"TF {ctx.tf.value}" if ctx.tf else "This TensorFlow"
    cause = ("{} was built against CUDA {} and loads its libraries by exact name; {} not installed, or not where "
             "the loader looks.".format(tf, cuda or "(see the names)", "it is" if len(names) == 1 else "they are"))
    present = ctx.cuda_present.value
    if present and cuda and not cuda.startswith(present) and not present.startswith(cuda.rstrip("x")):
        cause += f" CUDA {present} is there, but no other release provides the names TF asks for."
    if ctx.windows:
        fix = windows_cuda_install(cuda, names)
        cudnn = cudnn_for_tf(ctx)
        fix += "; cuDNN{} goes with it (its bin folder on PATH too)".format(" " + cudnn if cudnn else "")
    else:
        fix = _linux_fix(found, ctx, cuda)
    return Finding(ID, "TensorFlow cannot load the CUDA {} libraries: {}".format(cuda or "runtime", ", ".join(names)),
                   [ev.line for _, ev in found], cause, fix, tfenv_way(ctx), rank=32)


def _linux_fix(found, ctx, cuda):
    name, ev = found[0]
    why, _ = split_dlerror(ev.groups[1] if ev.kind == "load_fail" and len(ev.groups) > 1 else None)
    needed = why.split(":", 1)[0].strip() if why else ""
    if needed and needed != name and ".so" in needed and not needed.startswith("/"):
        return (f"{name} was found but needs {needed}, which is not on the loader path: install the library that "
                f"provides {needed} "
                f"(or remove the mismatched {name} that wants it)")
    release = cuda if cuda and "x" not in cuda else "11.2"
    fix = ("install the CUDA {0} runtime libraries (NVIDIA's cuda-cudart-{1}, cuda-libraries-{1} packages, or the "
           "toolkit) and put their folder on the loader path: export LD_LIBRARY_PATH=/usr/local/cuda-{0}/lib64"
           "${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}} or list it in /etc/ld.so.conf.d/ and run sudo ldconfig (the "
           "loader does not read PATH); in a conda env: export LD_LIBRARY_PATH=$CONDA_PREFIX/lib".format(
               release, release.replace(".", "-")))
    if cuda and vkey(cuda.replace("x", "0"))[:1] == (11,):
        fix += ("; CUDA 11 also comes as pip wheels (nvidia-cuda-runtime-cu11, nvidia-cublas-cu11, ...: add each "
                "site-packages/nvidia/*/lib to LD_LIBRARY_PATH)")
    for env in (ctx.facts or {}).get("envs", {}).values():
        for shim in env.get("shims", []):
            if any(n == shim["link"] for n, _ in found):
                fix += ("; with CUDA {} installed instead, the link `ln -s {} {}` in its lib folder is what tfenv's "
                        "image "
                        "uses".format(shim["to"].rsplit(".so.", 1)[-1], shim["to"], shim["link"]))
                return fix
    if ctx.container:
        fix += f"; in a container, build the image on one that has CUDA {release} and cuDNN"
    return fix


def _unnamed(log, ctx):
    """TF 2.12+ says "Cannot dlopen some GPU libraries" without naming them at the default log level; TF 2.14+
    says "Could not find cuda drivers" when its CUDA runtime is missing (where a GPU is expected)."""
    ev = log.first("cannot_dlopen") or (log.first("no_cuda_drivers") if gpu_expected(log, ctx) else None)
    if not ev or log.failed_libraries():
        return None
    cause = ("TF found the GPU but could not load some of its CUDA or cuDNN libraries; from TF 2.12 it no longer names "
             "them unless asked (TF_CPP_MAX_VLOG_LEVEL=3 or TF_CPP_MIN_LOG_LEVEL=0 shows the names).")
    if ctx.windows:
        fix = ("native Windows GPU support ends with TF 2.10: for TF 2.5-2.10 " + windows_cuda_install("11.2", []) +
               "; cuDNN 8.1's bin folder goes on PATH too")
    else:
        fix = ("for TF 2.14 and later: pip install 'tensorflow[and-cuda]' (the CUDA and cuDNN wheels it was built "
               "with); older TF: install the CUDA and cuDNN of TF's tested configuration and put their lib folder on "
               "LD_LIBRARY_PATH")
    return Finding(ID, "TensorFlow cannot load some CUDA libraries (unnamed)", [ev.line], cause, fix, tfenv_way(ctx),
                   rank=32)
