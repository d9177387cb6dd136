"""The library search: the folders the loader looks in, the ld.so cache, and where else CUDA lies on disk."""

import glob
import os
import re
import sys
from typing import Dict, List

from builder.diagnose.i18n import t
from builder.diagnose.versions import dll_name  # noqa: F401  (the one soname -> DLL rule, re-exported)
from builder.doctor.host import Host, wsl_fact

# The loader's built-in folders after LD_LIBRARY_PATH and the ld.so cache (x86_64 glibc, Debian multiarch).
LINUX_DEFAULT_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")


def lib_family(name: str) -> str:
    """The prefix all versions of a library share: libcudart.so.10.1 -> libcudart.so., cudart64_101.dll -> cudart64_."""
    if name.endswith(".dll"):
        return name[: name.rindex("_") + 1] if "_" in name else name
    return name[: name.index(".so.") + 4] if ".so." in name else name


def parse_ldconfig(text: str) -> Dict[str, str]:
    """`ldconfig -p` lines like '\tlibcudart.so.11.0 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudart.so.11.0'."""
    cache: Dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s+(\S+) \(([^)]*)\) => (\S+)", line)
        if m and ("x86-64" in m.group(2) or "64bit" in m.group(2) or "," not in m.group(2)):
            cache.setdefault(m.group(1), m.group(3))
    return cache


def ld_conf_dirs(host: Host, conf: str = "/etc/ld.so.conf", depth: int = 0) -> List[str]:
    """The folders ldconfig caches, read from ld.so.conf (used when `ldconfig -p` cannot run)."""
    dirs: List[str] = []
    for line in host.read(conf).splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("include ") and depth < 3:
            for inc in sorted(glob.glob(host.path(line.split(None, 1)[1]))):
                rel = "/" + os.path.relpath(inc, host.path("/")) if host.root not in ("", "/") else inc
                dirs += ld_conf_dirs(host, rel, depth + 1)
        elif line.startswith("/"):
            dirs.append(line)
    return dirs


class LibSearch:
    """Folders the loader searches (in order), the ld.so cache, and folders that hold CUDA but are not searched."""

    def __init__(self, loader_dirs, cache, other_dirs, how):
        self.loader_dirs, self.cache, self.other_dirs, self.how = loader_dirs, cache, other_dirs, how
        self._listing = {}  # type: Dict[str, List[str]]

    def names(self, folder: str, host: Host) -> List[str]:
        if folder not in self._listing:
            try:
                self._listing[folder] = os.listdir(host.path(folder))
            except OSError:
                self._listing[folder] = []
        return self._listing[folder]


def linux_search(host: Host, facts: dict) -> LibSearch:
    cache: Dict[str, str] = {}
    how = t("LD_LIBRARY_PATH, the ld.so cache and the default folders")
    ldconfig = host.which("ldconfig") or next(
        (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if host.root in ("", "/") and os.path.isfile(p)), None)
    r = host.run([ldconfig, "-p"]) if ldconfig else None
    conf_dirs: List[str] = []
    if r and r.rc == 0:
        cache = parse_ldconfig(r.out)
    else:
        conf_dirs = ld_conf_dirs(host)
        how = t("LD_LIBRARY_PATH, the ld.so.conf folders and the default folders")
    loader = host.env_list("LD_LIBRARY_PATH") + conf_dirs + list(LINUX_DEFAULT_DIRS)
    other = [d for d in (wsl_fact(facts, "lib_dir"), "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib") if d]
    for pattern in ("/usr/local/cuda*/lib64", "/usr/local/cuda*/lib", "/usr/local/cuda*/targets/*/lib",
                    "/usr/local/cuda*/extras/CUPTI/lib64",
                    "/opt/conda/lib", "/opt/venv/lib/python3*/site-packages/nvidia/*/lib"):
        other += sorted("/" + os.path.relpath(p, host.path("/")) if host.root not in ("", "/") else p
                        for p in glob.glob(host.path(pattern)))
    for env in facts.get("envs", {}).values():
        other += env.get("lib_dirs", [])
    if host.environ.get("CONDA_PREFIX"):
        other.append(host.environ["CONDA_PREFIX"] + "/lib")
    for site in site_dirs(host):  # NVIDIA's pip wheels: site-packages/nvidia/*/lib
        other += sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib")))
    return LibSearch(list(dict.fromkeys(loader)), cache, list(dict.fromkeys(d for d in other if d not in loader)), how)


def windows_search(host: Host) -> LibSearch:
    # LoadLibrary without flags, as TF's loader calls it, searches System32 and PATH.
    loader = [os.path.join(host.environ.get("SystemRoot", r"C:\Windows"), "System32")] + host.env_list("PATH")
    other = [os.path.join(v, "bin") for k, v in sorted(host.environ.items()) if k.upper().startswith("CUDA_PATH")]
    program_files = host.environ.get("ProgramFiles", r"C:\Program Files")
    toolkits = os.path.join(program_files, "NVIDIA GPU Computing Toolkit", "CUDA")
    other += sorted(glob.glob(os.path.join(toolkits, "v*", "bin")))
    other += sorted(glob.glob(os.path.join(toolkits, "v*", "extras", "CUPTI", "lib64")))
    cudnn = os.path.join(program_files, "NVIDIA", "CUDNN")
    other += sorted(glob.glob(os.path.join(cudnn, "v*", "bin")))
    for site in site_dirs(host):  # NVIDIA's pip wheels on Windows: site-packages\nvidia\<pkg>\bin (the venv hook's)
        other += sorted(glob.glob(os.path.join(site, "nvidia", "*", "bin")))
    norm = {os.path.normcase(d) for d in loader}
    other = list(dict.fromkeys(d for d in other if os.path.normcase(d) not in norm))  # in order, once each
    return LibSearch(list(dict.fromkeys(loader)), {}, other, t("System32 and PATH"))


def site_dirs(host: Host) -> List[str]:
    if host.site_dirs is not None:
        return host.site_dirs
    return [p for p in sys.path if p.endswith("site-packages") or p.endswith("dist-packages")]


class Found:
    """loadable: where the loader finds it; elsewhere: on disk, not where the loader looks; instead: other
    versions of the same library (full paths)."""

    def __init__(self, name, loadable=""):
        self.name, self.loadable = name, loadable
        self.elsewhere = []  # type: List[str]
        self.instead = []  # type: List[str]


def find_lib(name: str, search: LibSearch, host: Host) -> Found:
    windows = host.platform == "windows"
    want = name.lower() if windows else name
    family = lib_family(want)
    found = Found(name)

    def scan(folder: str):
        hits, alts = False, []
        for entry in search.names(folder, host):
            e = entry.lower() if windows else entry
            if e == want:
                hits = True
            elif e.startswith(family) and e != family and (not windows or e.endswith(".dll")):
                alts.append(_join(host, folder, entry))
        return hits, alts

    if name in search.cache:
        found.loadable = search.cache[name]
    for folder in search.loader_dirs:
        hit, alts = scan(folder)
        if hit and not found.loadable:
            found.loadable = _join(host, folder, name)
        found.instead += alts
    found.instead += [p for n, p in sorted(search.cache.items()) if n.startswith(family) and n != name]
    for folder in search.other_dirs:
        hit, alts = scan(folder)
        if hit:
            found.elsewhere.append(_join(host, folder, name))
        found.instead += alts
    found.instead = _sonames_only(p for p in dict.fromkeys(found.instead) if not _unversioned(p))
    return found


def _sonames_only(paths) -> List[str]:
    """Drop libcudart.so.10.2.89 when libcudart.so.10.2 (the name a loader asks for) is there too."""
    paths = list(paths)
    names = {_basename(p) for p in paths}
    return [p for p in paths if not any(_basename(p).startswith(n + ".") for n in names)]


def _join(host: Host, folder: str, name: str) -> str:
    sep = "\\" if host.platform == "windows" and "\\" in folder else "/"
    return folder.rstrip("/\\") + sep + name


def _unversioned(path: str) -> bool:
    """The development link libcudart.so is not what TF loads, nor is a .so.10.1.243 behind a .so.10.1 link."""
    return path.endswith(".so")


def _basename(path: str) -> str:
    return re.split(r"[\\/]", path)[-1]


def _dirname(path: str) -> str:
    return path[: len(path) - len(_basename(path))].rstrip("/\\")


# --- the checks ------------------------------------------------------------------------------------
