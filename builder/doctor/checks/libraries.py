"""The library checks: every library the target environment's TF loads, where the loader finds it or what to
do; without a target environment, a skip that says how to name one."""

from typing import List, Optional

from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, SKIP, WARN, Check, Host, in_container, wsl_fact, wsl_version
from builder.doctor.libraries import DRIVER_LIBS, PROFILER_ONLY, _shim_for, fitting_envs, known_shims, wanted_libs
from builder.doctor.libsearch import (
    Found,
    LibSearch,
    _basename,
    _dirname,
    _join,
    find_lib,
    linux_search,
    windows_search,
)

ID = "libraries"


def check(ctx) -> List[Check]:
    if ctx.env:
        return check_libraries(ctx.facts, ctx.env, ctx.host)
    if ctx.facts:
        return [Check(ID, SKIP, t("no target environment: pass --env ENV (or install TensorFlow)"))]
    return []


def check_libraries(facts: dict, env: str, host: Host) -> List[Check]:
    search = windows_search(host) if host.platform == "windows" else linux_search(host, facts)
    shims, win = known_shims(facts), host.platform == "windows"
    e = facts["envs"][env]
    checks, ok, optional_missing, absent = [], 0, [], []
    for name, required in wanted_libs(facts, env, host):
        f = find_lib(name, search, host)
        if f.loadable:
            ok += 1
        elif not required:
            optional_missing.append(name)
        elif not (f.elsewhere or f.instead or _shim_for(name, shims, win)) and name not in DRIVER_LIBS:
            absent.append(name)  # nothing of it anywhere: one line for all of them
        else:
            check = _library_check(f, host, search, shims, win, e, wsl_fact(facts, "lib_dir"))
            if name.lower().startswith(PROFILER_ONLY):
                check.status, check.message = WARN, t("{message} (only the profiler loads it)", message=check.message)
                check.fix = t("to profile, install CUDA {cuda}'s CUPTI (TensorFlow runs without it)",
                              cuda=e["cuda_full"])
            checks.append(check)
    if absent:
        checks.append(Check("lib:missing", FAIL, t("not found anywhere: {names}", names=", ".join(absent)),
                            t("install CUDA {cuda}'s libraries and cuDNN {cudnn}, or use the Docker image {image}",
                              cuda=e["cuda_full"], cudnn=e["cudnn"], image="tfenv/tensorflow:" + env)))
    fits = [n for n in fitting_envs(facts, host, search) if n != env] if checks else []
    for check in checks:
        if fits and check.status == FAIL and check.id != "lib:driver":
            check.fix = t("{fix}; or use {env}, which fits the installed CUDA libraries", fix=check.fix, env=fits[0])
    total = len([1 for _, r in wanted_libs(facts, env, host) if r])
    status = FAIL if any(c.status == FAIL for c in checks) else OK
    fields = {"ok": ok, "total": total, "env": env, "how": search.how, "optional": ", ".join(optional_missing)}
    message = (t("{ok} of {total} libraries {env} loads are where the loader looks ({how}); optional, not found: "
                 "{optional}", **fields) if optional_missing
               else t("{ok} of {total} libraries {env} loads are where the loader looks ({how})", **fields))
    checks.insert(0, Check(ID, status, message))
    return checks


def _library_check(f: Found, host: Host, search: LibSearch, shims, win: bool, e: dict, wsl_lib: Optional[str]) -> Check:
    name = f.name
    driver = name in DRIVER_LIBS
    cid = "lib:driver" if driver else f"lib:{name}"
    if f.elsewhere:
        folder = _dirname(f.elsewhere[0])
        fix = (f"set PATH={folder};%PATH%" if win
               else f"export LD_LIBRARY_PATH={folder}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}")  # commands: no words
        return Check(cid, FAIL, t("{name} is in {folder}, where the loader does not look", name=name, folder=folder),
                     fix)
    shim = _shim_for(name, shims, win)
    if shim:
        stand_in = next((p for p in f.instead if _basename(p).lower() == shim[0].lower()), None)
        if stand_in:
            folder = _dirname(stand_in)
            fix = (f'copy "{stand_in}" "{_join(host, folder, name)}"' if win
                   else f"ln -s {_basename(stand_in)} {_join(host, folder, name)}")
            return Check(cid, FAIL, t("{name} not found; found {found} instead", name=name, found=_basename(stand_in)),
                         t("{command} (the link tfenv's {env} image tests)", command=fix, env=shim[1]))
    fields = {"name": name, "cuda": e["cuda_full"], "cudnn": e["cudnn"]}
    if f.instead:
        names = ", ".join(sorted({_basename(p) for p in f.instead}))
        return Check(cid, FAIL, t("{name} not found; found {found} instead (another CUDA version)", found=names,
                                  **fields),
                     t("install CUDA {cuda}'s libraries and cuDNN {cudnn} (they can live beside the other CUDA), or "
                       "use the Docker image", **fields))
    if driver:
        in_wsl = wsl_lib and wsl_version(host)
        fix = (t("start the container with --gpus all") if in_container(host)
               else f"export LD_LIBRARY_PATH={wsl_lib}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" if in_wsl
               else t("install the NVIDIA driver"))
        return Check(cid, FAIL, t("{name} (the NVIDIA driver) not found", name=name), fix)
    return Check(cid, FAIL, t("{name} not found", name=name),
                 t("install CUDA {cuda}'s libraries and cuDNN {cudnn}, or use the Docker image", **fields))
