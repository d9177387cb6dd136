"""The NVIDIA driver is older than the CUDA runtime needs: directly (cudaErrorInsufficientDriver), through a
forward-compatibility libcuda (error 804 on a GPU without forward compatibility, a container's compat libcuda newer
than the host's kernel module), or as NGC images' start-up driver check says. Error 804 reads as an old driver on a
host too: cuda-compat is on the loader path only to stand in for a driver older than the CUDA in use (threads:
a host whose driver was older than the CUDA asked; containers started on an older host driver)."""

from builder.diagnose.context import DRIVER_KINDS
from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import _tested
from builder.diagnose.rules._common import cuda_for_tf, lines, tfenv_way
from builder.diagnose.versions import vkey

ID = "driver-too-old"
# cuDNN's or cuBLAS's start failing under a driver older than its CUDA's minimum is that driver's doing (TF 1.x's
# cuda_dnn.cc follows CUDNN_STATUS_NOT_INITIALIZED with "possibly insufficient driver version")
DOWNSTREAM = ("cudnn-init-failed", "cublas-init-failed")


def check(log, ctx):
    # PTX newer than the driver's JIT knows is the same story: the driver is older than the toolkit.
    evidence = log.all("insufficient_driver")[:2] + log.all("driver_older")[:1] + [
        ev for ev in log.all("cuda_error") if ev.groups[0] == "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"][:1]
    nvenc = _nvenc(log, ctx)
    if nvenc:
        return nvenc
    ollama = log.first("ollama_driver_old")  # its own floor for its CUDA build: (driver major, required major)
    ngc = log.first("ngc_driver")
    mismatch = log.first("kernel_dso_mismatch")
    compat = _compat_refused(log, ctx, mismatch)
    evidence += compat
    cuda = _asked(log, ctx)
    minimum, driver = _tested.driver_min(ctx, cuda) if cuda else "", ctx.driver.value
    if ngc:  # "This container was built for NVIDIA Driver Release X or later, but version Y was detected"
        evidence, minimum, driver = [ngc] + evidence, ngc.groups[0], ngc.groups[1]
    elif ollama:
        evidence, minimum, driver = [ollama] + evidence, ollama.groups[1], driver or ollama.groups[0]
    elif compat and mismatch and not minimum:  # the image's compat libcuda is the driver its CUDA was built for
        minimum = mismatch.groups[1]
    below = bool(driver and minimum and vkey(driver) < vkey(minimum))
    if below:  # the log's own line stating the driver's version is then the finding on its own
        evidence = evidence + [ev for kind in DRIVER_KINDS for ev in log.all(kind) if ev.line == ctx.driver.line][:1]
    if not evidence:
        return None
    what = t("CUDA {cuda}", cuda=cuda) if cuda and not ngc else t("this CUDA runtime")
    cause = t("The NVIDIA driver {driver} is older than {what} needs (minimum {minimum}).", driver=driver or "",
              what=what, minimum=minimum) if minimum else t("The NVIDIA driver is older than {what} needs.", what=what)
    host_compat = bool(compat) and not ctx.container
    cause += _compat_cause(host_compat, compat or (ngc and _forward_compat_refused(log)))
    fix = _fix(ctx, minimum, cuda, "" if ollama else driver, bool(compat or ngc) and not host_compat, host_compat)
    isa = log.first("ptx_isa")
    runs = _tested.cuda_for_ptx_isa(ctx, isa.groups[1]) if isa else ""
    if runs and evidence:  # the driver's JIT knows PTX up to its own CUDA's ISA
        evidence.append(isa)
        fix += t("; or build with a CUDA toolkit of {runs} (PTX ISA {current}, the newest this driver takes) instead "
                 "of {cuda} (PTX ISA {asked})", runs=runs, current=isa.groups[1], cuda=cuda or "?",
                 asked=isa.groups[0])
    if ollama:  # its docs/gpu.md: driver 550 and newer; GPUs of compute capability 5.0-6.2 need 570 and newer
        fix += t("; ollama's CUDA build needs driver {minimum} or newer on this GPU, or an ollama release from before "
                 "that floor", minimum=minimum)
    found = log.first("driver_cuda_found")
    if found:  # PyTorch's "found version 11040", ethminer's "Insufficient CUDA driver: 9020": the driver's own CUDA
        number = int(found.groups[0])
        runs = f"{number // 1000}.{number % 1000 // 10}"
        if "found version" in log.line_text(found.line):
            build = t("a PyTorch built for CUDA {major}.x (CUDA {major} builds run on any driver of CUDA {major})",
                      major=number // 1000) if number >= 11000 else t("a PyTorch built for CUDA {cuda} or older",
                                                                      cuda=runs)
            fix += "; " + t("this driver's CUDA is {cuda} (PyTorch's \"found version {found}\" is the driver's CUDA "
                            "version): keep it with {build}", cuda=runs, found=found.groups[0], build=build)
        else:
            fix += "; " + t("this driver's CUDA is {cuda} (the {found} in the message is the driver's CUDA version): "
                            "keep it with a build of the program made for CUDA {cuda} or older", cuda=runs,
                            found=found.groups[0])
    return Finding(ID, t("The NVIDIA driver is too old for {what}", what=what), lines(evidence), cause, fix,
                   tfenv_way(ctx) + t(" (or pick an environment whose CUDA this driver runs: `tfenv doctor` says "
                                      "which)"),
                   rank=24, supersedes=("driver-dso-mismatch", "no-gpu-visible", "cuinit-error") + (
                       DOWNSTREAM if below else ()))


def _nvenc(log, ctx):
    """FFmpeg's NVENC encoders (and OBS, which uses them) asking the driver for a newer NVENC API than it offers: the
    driver floor of that API (matrix.yaml nvidia.nvenc_driver_min, FFmpeg's own table) where FFmpeg prints none."""
    api, said = log.first("nvenc_api"), log.first("nvenc_driver_min")
    if not (api or said) or (not api and log.has("nvenc_lib_missing")):  # the library missing: libcuda-missing's
        return None
    printed = said.groups[0] if said and said.groups[0] != "(unknown)" else ""
    minimum = printed or (_tested.nvenc_driver_min(ctx, api.groups[0]) if api else "")
    needs = t("NVENC API {required}, the driver offers {found}", required=api.groups[0], found=api.groups[1]) if api \
        else t("a newer NVENC API than the driver offers")
    cause = t("This FFmpeg build (FFmpeg itself, or the one inside OBS or another program) was compiled for a newer "
              "NVENC than the NVIDIA driver has: it needs {needs}.", needs=needs)
    update = t("update the NVIDIA driver to {minimum} or newer", minimum=minimum) if minimum else t(
        "update the NVIDIA driver to a current one")
    older = t(" (NVENC API {found})", found=api.groups[1]) if api else ""
    fix = t("{update} (NVENC's API comes with the driver; no CUDA install changes it); or use an FFmpeg built "
            "with older nv-codec-headers{older}, the release of the program from before it moved to the newer API",
            update=update, older=older)
    evidence = [ev for ev in (api, said) if ev]
    return Finding(ID, t("The NVIDIA driver is too old for this FFmpeg's NVENC"), lines(evidence), cause, fix, "",
                   rank=24)


def _compat_refused(log, ctx, mismatch):
    """The events that show a container's forward-compatibility libcuda standing in for a host driver older than the
    image's CUDA: the compat libcuda newer than the host's kernel module, or its refusal on a GPU without forward
    compatibility (error 804)."""
    if ctx.container and mismatch and vkey(mismatch.groups[1]) > vkey(mismatch.groups[0]):
        return [mismatch] + log.all("libcuda_version")[:1] + log.all("kernel_version")[:1]
    # on a host too, cuda-compat standing in for a driver older than the CUDA in use; but a host whose libcuda is
    # newer than its kernel module is a driver update awaiting a reboot (driver-dso-mismatch)
    return [] if mismatch and not ctx.container else log.all("compat_not_supported")[:1]


def _compat_cause(host_compat, refused):
    """Why a forward-compatibility libcuda does not help: on a host it is cuda-compat standing in for the driver."""
    if host_compat:
        return " " + t("CUDA's forward-compatibility libcuda (the cuda-compat package) was loaded to stand in for it, "
                       "and forward compatibility works only on data-center GPUs.")
    return " " + t("The container's CUDA forward-compatibility libraries work only on data-center GPUs with a "
                   "supported driver branch; elsewhere the host driver must be new enough itself.") if refused else ""


def _forward_compat_refused(log):
    """The NGC driver check's status line says forward compatibility was tried and refused (error 804 on a GPU
    without it), or the log says so elsewhere; without it the check says only that the driver is older."""
    statuses = [ev.groups[0] for ev in log.all("ngc_compat_status")]
    return log.has("compat_not_supported") or any("804" in s or "orward compat" in s for s in statuses)


def _asked(log, ctx):
    """The CUDA release the log asks the driver for: its libraries' or TF's (the environment's, else TensorFlow's
    tested configuration), XLA's ptxas version, or a toolkit folder on a path."""
    e = ctx.env_facts()
    known = (e["cuda"] if e else "") or (_tested.cuda_of_tf(ctx, ctx.tf.value) if ctx.tf else "")
    cuda = cuda_for_tf(ctx) or known
    if cuda.endswith("x") and vkey(known)[:1] == vkey(cuda)[:1]:  # libcudart.so.11.0 is every 11.x: TF's own release
        cuda = known
    ptxas = [ev.groups[1] for ev in log.all("driver_older") if len(ev.groups) > 1 and ev.groups[1]]
    if not cuda and ptxas:
        cuda = ".".join(str(p) for p in vkey(ptxas[0])[:2])
    isa = log.first("ptx_isa")  # the PTX's ISA against the driver JIT's: their CUDA releases
    if not cuda and isa:
        cuda = _tested.cuda_for_ptx_isa(ctx, isa.groups[0])
    if not cuda and ctx.cuda_present.how in ("path", "nvcc --version"):  # the toolkit a local build was made with
        cuda = ctx.cuda_present.value
    return cuda


def _fix(ctx, minimum, cuda, driver, host, cuda_compat=False):
    """Update to the minimum of the CUDA asked for (the host's driver in a container), or keep this driver with a TF
    built for a CUDA it runs (matrix.yaml: NVIDIA's driver table and TensorFlow's tested configurations); a host's
    cuda-compat comes off the loader path either way."""
    runs = _tested.cuda_for_driver(ctx, driver) if driver else ""
    older_tf = _tested.newest_tf_for_cuda(ctx, runs) if runs else ""
    of = t(", the minimum of CUDA {cuda}", cuda=cuda) if minimum and cuda else ""
    if ctx.windows or ctx.wsl:
        fix = t("install a current NVIDIA driver on Windows (WSL2 uses the Windows driver), at least {minimum}{of}",
                minimum=minimum, of=of) if minimum else t("install a current NVIDIA driver on Windows (WSL2 uses the "
                                                          "Windows driver)")
    elif ctx.container or host:
        fix = t("update the NVIDIA driver on the host to {minimum} or newer{of} (the host driver is the one the "
                "container uses), then reboot", minimum=minimum, of=of) if minimum else t(
            "update the NVIDIA driver on the host to the version the image's CUDA needs (the host driver is the one "
            "the container uses; nvidia-smi's header shows the newest CUDA a driver supports), then reboot")
    else:
        fix = t("update the NVIDIA driver to {minimum} or newer{of} (e.g. your distribution's nvidia-driver package), "
                "then reboot", minimum=minimum, of=of) if minimum else t(
            "update the NVIDIA driver to the version this CUDA needs (e.g. your distribution's nvidia-driver "
            "package), then reboot")
        if cuda_compat:
            fix += t(", and remove cuda-compat, CUDA's forward-compatibility package (or take its folder, such as "
                     "/usr/local/cuda/compat, off LD_LIBRARY_PATH), so the driver's own libcuda loads")
    if ctx.container or host:
        return fix + (t("; or use an older image whose CUDA this driver runs (CUDA {runs} or older)", runs=runs) if runs
                      else t("; or use an older image whose CUDA this driver runs"))
    if older_tf:
        return fix + t("; or keep driver {driver}, which runs CUDA {runs} and older: TF {tf} and older are built for "
                       "such a CUDA", driver=driver, runs=runs, tf=older_tf)
    if cuda:
        fix += t("; or use a build (of TF or the program) made for an older CUDA that this driver runs")
    return fix + t("; nvidia-smi's header shows the newest CUDA a driver supports")
