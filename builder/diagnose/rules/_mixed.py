"""Two copies of CUDA (or cuDNN) mixed in one process, as glibc reports it: `undefined symbol: %s` (a library, or
a dlsym into it, missing a symbol the other copy has) and `version `%s' not found (required by %s)`. The finding is
missing-cudnn when cuDNN's libraries are involved, missing-cuda-runtime for the CUDA libraries (the cause the
corpus labels: the right CUDA library is not where the loader looks first); Linux only."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way
from builder.diagnose.versions import family

_CUDA = ("cudart", "cublas", "cublaslt", "cufft", "curand", "cusolver", "cusparse", "nvrtc", "nvjitlink", "nccl")


def _involved(name):
    fam = family(name) if name else ""
    return "cudnn" if fam.startswith("cudnn") else ("cuda" if fam in _CUDA else "")


def mixed_copies(log, ctx):
    """The finding for the first symbol or version error between CUDA/cuDNN libraries, else None."""
    pairs = [(ev, ev.groups[0], ev.groups[2] or "", ev.groups[1]) for ev in log.all("undefined_symbol")]
    pairs += [(ev, ev.groups[1], ev.groups[0], "") for ev in log.all("symbol_version")]
    hit = [p for p in pairs if _involved(p[1]) or _involved(p[2])]
    if not hit or ctx.windows:
        return None
    ev, lib, other, symbol = hit[0]
    rule = "missing-cudnn" if "cudnn" in (_involved(lib), _involved(other)) else "missing-cuda-runtime"
    mixed = t("two CUDA installations are mixed, usually a system CUDA on LD_LIBRARY_PATH ahead of the environment's "
              "own NVIDIA libraries")
    if symbol and other:
        cause = t("The loader could not resolve {symbol} between {lib} and {other}: {mixed}.", lib=lib,
                  symbol=symbol, other=other, mixed=mixed)
    elif symbol:
        cause = t("The loader could not resolve {symbol} for {lib}: {mixed}.", lib=lib, symbol=symbol, mixed=mixed)
    else:
        cause = t("{lib} needs a newer {other} than the one it found: {mixed}.", lib=lib, other=other, mixed=mixed)
    fix = t("let the loader find one CUDA: remove the other CUDA's folder from LD_LIBRARY_PATH (or `unset "
            "LD_LIBRARY_PATH`) so that {lib} and what it links come from one release (the same nvidia-*-cu wheels or "
            "the same toolkit); `pip install -U` the wheel that provides the older one", lib=lib)
    return Finding(rule, t("Two CUDA copies are mixed ({lib})", lib=lib), [ev.line], cause, fix, tfenv_way(ctx),
                   rank=31)
