"""TF loaded a cuDNN older than the one it was compiled with (often an older copy first on the path)."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import vkey

ID = "cudnn-version-mismatch"


def check(log, ctx):
    ev = log.first("cudnn_mismatch")
    if not ev:
        return None
    loaded, built = ev.groups[0], ev.groups[1]
    major_differs = vkey(loaded)[:1] != vkey(built)[:1]
    cause = ("TF was compiled with cuDNN {} and accepts the same major version with an equal or higher minor; the "
             "cuDNN it loaded is {}.".format(built, loaded))
    if not major_differs:
        cause += " If you installed a newer cuDNN, an older copy comes first on the library path."
    want = "{}.{}".format(*vkey(built)[:2]) if len(vkey(built)) > 1 else built
    if ctx.windows:
        where = ("`where cudnn64_{}.dll` lists the copies in PATH order: remove the older one or put the bin folder of "
                 "cuDNN {}+ first on PATH".format(vkey(built)[0], want))
    elif ctx.linux_like:
        where = ("find the older copy with `ldconfig -p | grep cudnn` and in LD_LIBRARY_PATH (another CUDA tree, a conda "
                 "cudnn package, a torch wheel's nvidia-cudnn) and remove it or put cuDNN {}+ first".format(want))
    else:
        where = ("find the older copy (Linux: `ldconfig -p | grep cudnn`; Windows: `where cudnn64_{}.dll`) and remove "
                 "it or put cuDNN {}+ first".format(vkey(built)[0], want))
    fix = "install cuDNN {} or newer with the same major version; {}".format(want, where)
    if vkey(built) >= (8, 6):
        fix += "; for TF 2.14+ `pip install tensorflow[and-cuda]` brings the cuDNN wheel it was built with"
    return Finding(ID, "cuDNN {} was loaded; TF was compiled with {}".format(loaded, built), [ev.line], cause, fix,
                   tfenv_way(ctx), rank=42, supersedes=("cudnn-init-failed",))
