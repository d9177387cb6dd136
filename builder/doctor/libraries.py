"""What the library checks share with the report: the libraries an environment's TF loads, the links that
stand in for one, and the environments whose libraries are all on this disk."""

from typing import Dict, List, Optional, Tuple

from builder.doctor.facts import env_order
from builder.doctor.host import Host
from builder.doctor.libsearch import LibSearch, dll_name, find_lib

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
