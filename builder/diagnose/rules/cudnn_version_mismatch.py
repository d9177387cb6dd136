"""TF loaded a cuDNN other than the one it was compiled with (cuda_dnn.cc "Loaded runtime CuDNN library: X but
source was compiled with: Y"): an older copy first on the path, or, for TF 1.x, any other minor version.

Which cause wins: the mismatch line is why cuDNN then fails, so it ranks above what follows from it: cuDNN's
init failures (cudnn-init-failed) and TF's "DNN library is not found" (missing-cudnn, which this finding replaces
unless a cuDNN library also failed to load, a finding of its own ranked after this one). "DNN library is not found"
without the mismatch line, with no cuDNN library failing to load, is read as the same refusal (_unusable)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import _tested, missing_cudnn
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import vkey

ID = "cudnn-version-mismatch"


def dotted(version):
    """cuDNN as TF 1.x prints it (7102, compatibility 7100) in the dotted form: 7.1.2."""
    if "." in version or len(version) != 4:
        return version
    return f"{version[0]}.{version[1]}.{int(version[2:])}"


def _version(text):
    """PyTorch's cuDNN version as printed: a tuple "(8, 9, 2)" (2.x) or an int "7102" / "8200" (1.x) -> "8.9.2"."""
    parts = [p for p in text.strip("() .").replace(",", " ").split() if p.isdigit()]
    return ".".join(parts) if len(parts) > 1 else dotted(text.strip(" ."))


def _pytorch(ctx, ev):
    """PyTorch's pip wheels bring the cuDNN they were built with (nvidia-cudnn-cu*, or in torch's own lib folder on
    Windows): a cuDNN of another version found first on the library path is loaded instead."""
    built, loaded = _version(ev.groups[0]), _version(ev.groups[1])
    cause = t("PyTorch was built with cuDNN {built} and ships it with its wheels, but the cuDNN found first on the "
              "library path is {loaded}: another copy (a system cuDNN, another CUDA tree, a conda package) shadows "
              "the bundled one.", built=built, loaded=loaded)
    major = vkey(loaded)[0] if vkey(loaded) else 8
    if ctx.windows:
        where = t("remove the folder of the other cuDNN from PATH (`where cudnn64_{major}.dll` lists the copies in "
                  "PATH order) and open a new terminal", major=major)
    elif ctx.linux_like:
        where = t("take the folder of the other cuDNN off LD_LIBRARY_PATH (`echo $LD_LIBRARY_PATH`; `unset "
                  "LD_LIBRARY_PATH` to test) so the cuDNN PyTorch bundles loads")
    else:
        where = t("take the folder of the other cuDNN off the library path (Linux: LD_LIBRARY_PATH, `unset "
                  "LD_LIBRARY_PATH` to test; Windows: PATH, `where cudnn64_{major}.dll` lists the copies) so the cuDNN "
                  "PyTorch bundles loads", major=major)
    fix = t("{where}; or install cuDNN {built} in its place", where=where, built=built)
    return Finding(ID, t("cuDNN {loaded} was loaded; PyTorch was compiled with {built}", loaded=loaded, built=built),
                   [ev.line], cause, fix, "", rank=35, supersedes=("cudnn-init-failed", "missing-cudnn"))


def check(log, ctx):
    ev = log.first("cudnn_mismatch")
    if not ev:
        torch = log.first("torch_cudnn_mismatch")
        return _pytorch(ctx, torch) if torch else _unusable(log, ctx)
    loaded, built = dotted(ev.groups[0]), dotted(ev.groups[1])
    want = "{}.{}".format(*vkey(built)[:2]) if len(vkey(built)) > 1 else built
    major = vkey(built)[0]
    newer = vkey(loaded) > vkey(built)  # TF 1.x: the minor must match too, a newer cuDNN fails as well
    if newer:
        cause = t("TF was compiled with cuDNN {built} and this build needs that same minor version; it loaded the "
                  "newer cuDNN {loaded}.", built=built, loaded=loaded)
    else:
        cause = t("TF was compiled with cuDNN {built} and accepts the same major version with an equal or higher "
                  "minor; the cuDNN it loaded is {loaded}.", built=built, loaded=loaded)
        if vkey(loaded)[:1] == vkey(built)[:1]:
            cause += " " + t("If you installed a newer cuDNN, an older copy comes first on the library path.")
    if ctx.windows:
        where = t("`where cudnn64_{major}.dll` lists the copies in PATH order: remove the other one or put the bin "
                  "folder of cuDNN {want} first on PATH", major=major, want=want)
    elif ctx.linux_like and newer:
        where = t("install exactly that minor, e.g. `sudo apt-get install --allow-downgrades libcudnn{major}={built}*` "
                  "(pin it in a Dockerfile)", major=major, built=built)
    elif ctx.linux_like:
        where = t("find the older copy with `ldconfig -p | grep cudnn` and in LD_LIBRARY_PATH (another CUDA tree, a "
                  "conda cudnn package, a torch wheel's nvidia-cudnn) and remove it or put cuDNN {want}+ first",
                  want=want)
    else:
        where = t("find the other copy (Linux: `ldconfig -p | grep cudnn`; Windows: `where cudnn64_{major}.dll`) and "
                  "remove it or put cuDNN {want} first", major=major, want=want)
    fix = (t("install cuDNN {built}, the version TF was compiled with (its minor {want} must match); {where}",
             built=built, want=want, where=where) if newer else
           t("install cuDNN {want} or newer with the same major version; {where}", want=want, where=where))
    if vkey(built) >= (8, 6):
        fix += t("; for TF 2.14+ `pip install tensorflow[and-cuda]` brings the cuDNN wheel it was built with")
    # TF's message itself names the other way, for a TF built from source on this machine
    fix += t("; a TF you built from source: rebuild it against the cuDNN {loaded} that is installed (its configure "
             "script asks for the cuDNN version)", loaded=loaded)
    # "DNN library is not found" follows from the mismatch; a cuDNN that did not load at all is a finding of its own
    explained = ("cudnn-init-failed",) if missing_cudnn.not_loaded(log, ctx) else ("cudnn-init-failed", "missing-cudnn")
    return Finding(ID, t("cuDNN {loaded} was loaded; TF was compiled with {built}", loaded=loaded, built=built),
                   [ev.line], cause, fix, tfenv_way(ctx), rank=35, supersedes=explained)


def _unusable(log, ctx):
    """TF's "DNN library is not found" where no cuDNN library failed to load and cuDNN's handle did not fail: TF
    registers a GPU only once its libraries open, so a cuDNN loaded and TF's cuDNN plugin then refused it, which is
    the version check (the mismatch line above it, when the paste has it: Colab's runtime with TF 2.9, a conda or
    system copy older than TF's own first on the path)."""
    # (TF's own words; the kind also holds other programs' "cuDNN not found" and TF 0.x's "Unable to load cuDNN DSO")
    ev = next((e for e in log.all("dnn_not_found") if "DNN library is not found" in log.line_text(e.line)), None)
    if not ev or missing_cudnn.not_loaded(log, ctx) or log.has("cudnn_status"):
        return None
    want = _tested.cudnn_of_tf(ctx, ctx.tf.value) if ctx.tf else ""
    # (the message is TF 2.x's, and most of its lines, 2.5 to 2.11, share cuDNN 8.1; TF 1.x's cuDNN 7 is not its)
    span = None if want else _tested.lines_of_cudnn(ctx, "8.1")
    which = t("cuDNN {want}, the one TF {tf} was built with", want=want, tf=ctx.tf.value) if want else t(
        "the cuDNN this TF release was built with (TF {first} to {last}: cuDNN 8.1; `pip show tensorflow` gives the "
        "release)", first=span[0], last=span[1]) if span else t("the cuDNN this TF release was built with")
    cause = t("TF found a cuDNN but could not use it (TF opens the GPU only when cuDNN loads, so it loaded): most "
              "often a cuDNN older than the one TF was built with comes first, and TF's cuDNN version line, when "
              "printed, says which.")
    if ctx.windows:
        where = t("`where cudnn64_8.dll` lists the copies in PATH order")
    elif ctx.linux_like:
        where = t("`ldconfig -p | grep cudnn` and LD_LIBRARY_PATH list the copies (a system libcudnn package, a conda "
                  "cudnn, a torch wheel's nvidia-cudnn)")
    else:  # a notebook's traceback alone (Colab's) says nothing of the platform
        where = t("Linux: `ldconfig -p | grep cudnn` and LD_LIBRARY_PATH list the copies; Windows: `where "
                  "cudnn64_8.dll`")
    fix = t("install {which} and make it the copy that loads: {where}; or install the TF release built for the cuDNN "
            "you have", which=which, where=where)
    return Finding(ID, t("TF loaded a cuDNN it cannot use"), [ev.line], cause, fix, tfenv_way(ctx), rank=35,
                   supersedes=("missing-cudnn",))
