"""The library checks: every library an environment's TF loads, where the loader finds it or what to do."""

from typing import Dict, List, Optional, Tuple

from builder.diagnose.i18n import t
from builder.doctor.facts import env_order
from builder.doctor.host import FAIL, OK, WARN, WSL_LIB, Check, Host, in_container, wsl_version
from builder.doctor.libsearch import (
    Found,
    LibSearch,
    _basename,
    _dirname,
    _join,
    dll_name,
    find_lib,
    linux_search,
    windows_search,
)

# TF loads CUPTI only when the profiler runs: missing, it is a warning, not a failure.
PROFILER_ONLY = ("libcupti.so.", "cupti64_")
DRIVER_LIBS = ("libcuda.so.1", "nvcuda.dll")  # what the driver installs, never part of CUDA or an image


def known_shims(facts: dict) -> Dict[str, Tuple[str, str]]:
    """(wanted soname) -> (soname that can stand in for it, env whose image tests that link)."""
    shims = {}
    for name, env in facts["envs"].items():
        for s in env.get("shims", []):
            shims.setdefault(s["link"], (s["to"], name))
    return shims


def wanted_libs(facts: dict, env: str, host: Host) -> List[Tuple[str, bool]]:
    """(library name as this platform spells it, required) for every library TF loads, the driver's included."""
    e = facts["envs"][env]
    names = [(n, True) for n in list(e["sonames"]) + ["libcuda.so.1"]]
    if host.platform == "windows":
        if e.get("windows_sonames"):  # the matrix's own Windows list, when it has one
            return [(n, True) for n in list(e["windows_sonames"]) + ["nvcuda.dll"]] + [
                (n, False) for n in e.get("windows_optional", [])]
        return [(dll_name(n), r) for n, r in names]  # TF on Windows never loaded TensorRT
    return names + [(n, False) for n in e.get("optional_sonames", [])]


def fitting_envs(facts: dict, host: Host, search: LibSearch) -> List[str]:
    """Environments whose every required library is on disk (their own shims count), newest first."""
    cache: Dict[str, bool] = {}

    def on_disk(name: str) -> bool:
        if name not in cache:
            f = find_lib(name, search, host)
            cache[name] = bool(f.loadable or f.elsewhere)
        return cache[name]

    fits = []
    for name in env_order(facts):
        shims = {s["link"]: (s["to"], name) for s in facts["envs"][name].get("shims", [])}
        libs = [n for n, req in wanted_libs(facts, name, host)
                if req and n not in DRIVER_LIBS and not n.lower().startswith(PROFILER_ONLY)]
        win = host.platform == "windows"
        if all(on_disk(n) or (_shim_for(n, shims, win) and on_disk(_shim_for(n, shims, win)[0])) for n in libs):
            fits.append(name)
    return fits


def _shim_for(name: str, shims, windows: bool) -> Optional[Tuple[str, str]]:
    if windows:
        for link, (to, env) in shims.items():
            if dll_name(link).lower() == name.lower():
                return dll_name(to), env
        return None
    return shims.get(name)


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
            check = _library_check(f, host, search, shims, win, e)
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
    checks.insert(0, Check("libraries", status, message))
    return checks


def _library_check(f: Found, host: Host, search: LibSearch, shims, win: bool, e: dict) -> Check:
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
        fix = (t("start the container with --gpus all") if in_container(host)
               else f"export LD_LIBRARY_PATH={WSL_LIB}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" if wsl_version(host)
               else t("install the NVIDIA driver"))
        return Check(cid, FAIL, t("{name} (the NVIDIA driver) not found", name=name), fix)
    return Check(cid, FAIL, t("{name} not found", name=name),
                 t("install CUDA {cuda}'s libraries and cuDNN {cudnn}, or use the Docker image", **fields))
