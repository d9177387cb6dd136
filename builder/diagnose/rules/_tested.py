"""The version facts a fix names, read from matrix.yaml's tables as the facts carry them: TensorFlow's tested
configuration of every release line (`tf_tested`: Python ranges, CUDA, cuDNN) and NVIDIA's driver minimums
(`cuda_drivers`) and first CUDA per GPU generation (`first_cuda_for_arch`). Without facts every answer is empty and
the rules fall back to words without numbers."""

from builder.diagnose.rules._common import LAST_WINDOWS_GPU_TF
from builder.diagnose.versions import line_of, vkey


def _facts(ctx):
    return ctx.facts or {}


def _oldest_first(table):
    """A {version: ...} table in version order: facts read back from JSON written with sorted keys (the standalone
    doctor's, the web page's) have '2.10' before '2.9'."""
    return dict(sorted(table.items(), key=lambda kv: vkey(kv[0])))


def lines(ctx):
    """{TF line: its tested configuration}, oldest first."""
    return _oldest_first(_facts(ctx).get("tf_tested") or {})


def python_range(ctx, tf):
    """(min, max) Python of TF line `tf`'s wheels on the log's platform, or None when the table lacks the line."""
    row = lines(ctx).get(line_of(tf))
    if not row:
        return None
    return tuple(row["windows_python" if ctx.windows else "python"])


def fits(python, pythons):
    return vkey(pythons[0]) <= vkey(python)[:2] <= vkey(pythons[1])


def tf_for_python(ctx, python):
    """(first, last) TF line with wheels for `python` on the log's platform, or None when none has."""
    found = [tf for tf in lines(ctx) if fits(python, python_range(ctx, tf))]
    return (found[0], found[-1]) if found else None


def newest(ctx):
    """The newest TF line the table knows, '' without facts."""
    return next(reversed(list(lines(ctx))), "")


def cuda_of_tf(ctx, tf):
    row = lines(ctx).get(line_of(tf))
    return row["cuda"] if row else ""


def cudnn_of_tf(ctx, tf):
    row = lines(ctx).get(line_of(tf))
    return str(row["cudnn"]) if row else ""


def lines_of_cudnn(ctx, cudnn):
    """(first, last) TF line built with cuDNN `cudnn` (its major.minor), or None."""
    found = [tf for tf, row in lines(ctx).items() if str(row["cudnn"]) == cudnn]
    return (found[0], found[-1]) if found else None


def cudnn_release(ctx, major):
    """(cuDNN, CUDA) of the newest TF line built with cuDNN `major` (a string: '5' -> ('5.1', '8')), or None."""
    found = [(row["cudnn"], row["cuda"]) for row in lines(ctx).values() if str(row["cudnn"]).split(".")[0] == major]
    return found[-1] if found else None


def tf_for_cuda_major(ctx, major):
    """(first, last) TF line whose GPU build is made with CUDA `major` (an int), or None; on Windows only the lines
    with a native GPU build."""
    found = [tf for tf, row in lines(ctx).items() if vkey(row["cuda"])[:1] == (major,)
             and not (ctx.windows and vkey(tf) > vkey(LAST_WINDOWS_GPU_TF))]
    return (found[0], found[-1]) if found else None


def _platform(ctx):
    return "windows" if ctx.windows or ctx.wsl else "linux"


def driver_min(ctx, cuda):
    """The minimum NVIDIA driver of a CUDA release on the log's platform ('10.0' -> 410.48 on Linux); for a major
    only ('12.x'), the minimum of CUDA minor-version compatibility (the stack's compat_ value, else the major's
    first release); '' when the table does not know it."""
    known = _oldest_first(_facts(ctx).get("cuda_drivers") or {v: s.get("driver_min") or {}
                                                               for v, s in (_facts(ctx).get("cuda") or {}).items()})
    platform = _platform(ctx)
    if not cuda.endswith("x"):
        return (known.get(line_of(cuda)) or {}).get(platform, "")
    major = vkey(cuda)[:1]
    stacks = [s.get("driver_min") or {} for v, s in _oldest_first(_facts(ctx).get("cuda") or {}).items()
              if vkey(v)[:1] == major]
    compat = [s["compat_" + platform] for s in stacks if s.get("compat_" + platform)]
    if compat:
        return compat[0]
    first = [mins for v, mins in known.items() if vkey(v)[:1] == major]
    return first[0].get(platform, "") if first else ""


def cuda_for_driver(ctx, driver):
    """The newest CUDA release whose minimum driver `driver` meets on the log's platform, '' if none or unknown."""
    known = _facts(ctx).get("cuda_drivers") or {}
    platform = _platform(ctx)
    fit = [v for v, mins in known.items() if mins.get(platform) and vkey(mins[platform]) <= vkey(driver)]
    return max(fit, key=vkey) if fit else ""


def newest_tf_for_cuda(ctx, cuda):
    """The newest TF line whose GPU build's CUDA is no newer than `cuda`, '' if none."""
    fit = [tf for tf, row in lines(ctx).items() if vkey(row["cuda"]) <= vkey(cuda)]
    return fit[-1] if fit else ""


def first_cuda_for_arch(ctx, cc):
    return (_facts(ctx).get("first_cuda_for_arch") or {}).get(cc, "")


def last_cuda_for_arch(ctx, cc):
    return (_facts(ctx).get("last_cuda_for_arch") or {}).get(cc, "")


def cuda_for_ptx_isa(ctx, isa):
    return (_facts(ctx).get("cuda_for_ptx_isa") or {}).get(isa, "")


def nvenc_driver_min(ctx, api):
    """The first driver of an NVENC API on the log's platform ('12.1' -> 530.41.03 on Linux), '' when unknown."""
    return ((_facts(ctx).get("nvenc_driver_min") or {}).get(api) or {}).get(_platform(ctx), "")
