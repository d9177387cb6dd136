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
    cause = (f"TF was compiled with cuDNN {built} and accepts the same major version with an equal or higher minor; "
             f"the "
             f"cuDNN it loaded is {loaded}.")
    if not major_differs:
        cause += " If you installed a newer cuDNN, an older copy comes first on the library path."
    want = "{}.{}".format(*vkey(built)[:2]) if len(vkey(built)) > 1 else built
    if ctx.windows:
        where = (f"`where cudnn64_{vkey(built)[0]}.dll` lists the copies in PATH order: remove the older one or put "
                 f"the bin folder of "
                 f"cuDNN {want}+ first on PATH")
    elif ctx.linux_like:
        where = ("find the older copy with `ldconfig -p | grep cudnn` and in LD_LIBRARY_PATH (another CUDA tree, a "
                 "conda "
                 f"cudnn package, a torch wheel's nvidia-cudnn) and remove it or put cuDNN {want}+ first")
    else:
        where = (f"find the older copy (Linux: `ldconfig -p | grep cudnn`; Windows: `where "
                 f"cudnn64_{vkey(built)[0]}.dll`) and remove "
                 f"it or put cuDNN {want}+ first")
    fix = f"install cuDNN {want} or newer with the same major version; {where}"
    if vkey(built) >= (8, 6):
        fix += "; for TF 2.14+ `pip install tensorflow[and-cuda]` brings the cuDNN wheel it was built with"
    return Finding(ID, f"cuDNN {loaded} was loaded; TF was compiled with {built}", [ev.line], cause, fix,
                   tfenv_way(ctx), rank=42, supersedes=("cudnn-init-failed",))
