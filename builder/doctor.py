#!/usr/bin/env python3
"""tfenv doctor: why TensorFlow does not see the GPU, as one short report with a fix per line.

Standard library only, Python >= 3.8, Linux, WSL2 and native Windows: this file also runs on its own
(`python doctor.py --env tf29`) before anything else is installed. The matrix facts it needs (sonames,
driver minimums, Python ranges) come from `tfenv doctor`, which derives them from matrix.yaml; a copy
written by `tfenv doctor --write-standalone FILE` carries them inline; else --facts FILE or a
doctor-facts.json next to this file.
"""

from __future__ import annotations

import argparse
import glob
import http.client
import json
import os
import re
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Tuple

EMBEDDED_FACTS_JSON = None  # tfenv doctor --write-standalone replaces this line with the matrix facts

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
TF_MIN_COMPUTE_CAPABILITY = (3, 5)  # no TF 2.x GPU wheel has code for older GPUs
# The loader's built-in folders after LD_LIBRARY_PATH and the ld.so cache (x86_64 glibc, Debian multiarch).
# TF loads CUPTI only when the profiler runs: missing, it is a warning, not a failure.
PROFILER_ONLY = ("libcupti.so.", "cupti64_")
LINUX_DEFAULT_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
WSL_LIB = "/usr/lib/wsl/lib"
DRIVER_LIBS = ("libcuda.so.1", "nvcuda.dll")  # what the driver installs, never part of CUDA or an image
TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "intel-tensorflow", "tf-nightly")
# Linux driver packages that must not be installed inside WSL (the Windows driver provides libcuda there).
WSL_FORBIDDEN_PACKAGES = re.compile(r"^(nvidia-driver-\S+|cuda-drivers\S*|libnvidia-compute-\S+|nvidia-dkms-\S+)$")


class DoctorError(Exception):
    """Bad input (unknown environment, unreadable facts): one line, exit code 2."""


@dataclass
class Check:
    id: str
    status: str  # ok / warn / fail / skip
    message: str
    fix: str = ""


@dataclass
class Run:
    rc: int
    out: str
    err: str


@dataclass
class Host:
    """What doctor inspects. Host.current() is this machine; tests build fake roots and PATHs."""

    root: str = "/"  # prefix for Linux paths: /usr/lib/wsl/lib, /usr/local/cuda*, /dev/dxg, /proc/version
    platform: str = "linux"  # 'linux' or 'windows'
    environ: Dict[str, str] = field(default_factory=dict)
    python: Tuple[int, int, int] = (3, 8, 0)
    python_exe: str = sys.executable
    site_dirs: List[str] | None = None  # where installed packages' metadata lives; None: this Python's
    runner: Callable[[List[str], Dict[str, str], int], Run] | None = None

    @classmethod
    def current(cls) -> Host:
        return cls(platform="windows" if os.name == "nt" else "linux", environ=dict(os.environ),
                   python=tuple(sys.version_info[:3]), python_exe=sys.executable)

    @property
    def pathsep(self) -> str:
        return ";" if self.platform == "windows" else ":"

    def path(self, p: str) -> str:
        """A Linux host path as seen from here (under root); Windows paths are used as given."""
        if self.platform == "windows" or self.root in ("", "/"):
            return p
        return os.path.join(self.root, p.lstrip("/"))

    def exists(self, p: str) -> bool:
        return os.path.exists(self.path(p))

    def read(self, p: str) -> str:
        try:
            with open(self.path(p), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def env_list(self, name: str) -> List[str]:
        return [d for d in self.environ.get(name, "").split(self.pathsep) if d]

    def which(self, name: str) -> str | None:
        exts = [""] + [".exe", ".bat", ".cmd"] if self.platform == "windows" else [""]
        for folder in self.env_list("PATH"):
            for ext in exts:
                candidate = os.path.join(self.path(folder), name + ext)
                if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                    return candidate
        return None

    def run(self, args: List[str], timeout: int = 30, extra_env: Dict[str, str] | None = None) -> Run | None:
        """Run a program with this host's environment; None when it cannot start or times out."""
        env = dict(self.environ, **(extra_env or {}))
        if self.runner:
            return self.runner(args, env, timeout)
        try:
            p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout,
                               errors="replace", stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return Run(p.returncode, p.stdout, p.stderr)


def vkey(version: str) -> Tuple[int, ...]:
    """'470.82.01' -> (470, 82, 1); stops at the first part that is not a number."""
    parts = []
    for part in str(version).split("."):
        m = re.match(r"\d+", part)
        if not m:
            break
        parts.append(int(m.group()))
    return tuple(parts)


# --- facts -----------------------------------------------------------------------------------------


FACTS_MAX = 1 << 20  # bytes; the facts of every environment are ~10 KiB
_ENV_FACTS = {"tensorflow": str, "python_min": str, "python_max": str, "cuda": str, "cuda_full": str,
              "cudnn": str, "sonames": list, "optional_sonames": list, "shims": list, "lib_dirs": list}


def load_facts(path: str | None = None) -> dict | None:
    """--facts FILE, else the facts inlined by --write-standalone, else doctor-facts.json beside this file."""
    if path:
        try:
            if not os.path.isfile(path):  # a folder, fifo or /dev/zero: refused before reading
                raise DoctorError(f"cannot read facts file {path}: not a regular file")
            with open(path, encoding="utf-8-sig") as f:
                text = f.read(FACTS_MAX + 1)
            if len(text) > FACTS_MAX:
                raise DoctorError(f"cannot read facts file {path}: larger than {FACTS_MAX // 1024} KiB")
            return check_facts(json.loads(text), path)
        except (OSError, ValueError, RecursionError) as exc:
            raise DoctorError(f"cannot read facts file {path}: {exc}") from None
    if EMBEDDED_FACTS_JSON:
        return check_facts(json.loads(EMBEDDED_FACTS_JSON), "the embedded facts")
    beside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "doctor-facts.json")
    return load_facts(beside) if os.path.isfile(beside) else None


def check_facts(facts, source: str) -> dict:
    """The facts schema doctor reads (what `tfenv doctor --write-facts` writes); one line naming the key."""

    def fail(where: str, what: str):
        raise DoctorError(f"{source}: {where}: {what} (write it again with `tfenv doctor --write-facts`)")

    if not isinstance(facts, dict):
        fail("top level", "expected a JSON object")
    if facts.get("schema") != 1:
        fail("schema", f"expected 1, got {facts.get('schema')!r}")
    for key in ("envs", "cuda"):
        if not isinstance(facts.get(key), dict) or not facts[key]:
            fail(key, "missing, or not a non-empty object")
    for version, stack in facts["cuda"].items():
        mins = stack.get("driver_min") if isinstance(stack, dict) else None
        if not isinstance(mins, dict) or not all(isinstance(mins.get(k), str) for k in ("linux", "windows")):
            fail(f"cuda.{version}.driver_min", "expected an object with 'linux' and 'windows' versions")
        if not isinstance(stack.get("full"), str):
            fail(f"cuda.{version}.full", "expected a version string")
    for name, env in facts["envs"].items():
        if not isinstance(env, dict):
            fail(f"envs.{name}", "expected an object")
        for key, kind in _ENV_FACTS.items():
            if not isinstance(env.get(key), kind):
                fail(f"envs.{name}.{key}", "missing" if key not in env else f"expected a {kind.__name__}")
        if env["cuda"] not in facts["cuda"]:
            fail(f"envs.{name}.cuda", f"CUDA {env['cuda']} is not under 'cuda'")
        for i, shim in enumerate(env["shims"]):
            if not isinstance(shim, dict) or not all(isinstance(shim.get(k), str) for k in ("link", "to")):
                fail(f"envs.{name}.shims[{i}]", "expected an object with 'link' and 'to'")
    return facts


def env_order(facts: dict) -> List[str]:
    """Environment names, newest TensorFlow (then newest CUDA) first."""
    envs = facts["envs"]
    return sorted(envs, key=lambda n: (vkey(envs[n]["tensorflow"]), vkey(envs[n]["cuda"])), reverse=True)


def check_env_name(facts: dict, name: str) -> None:
    if name not in facts["envs"]:
        raise DoctorError(f"unknown environment {name!r} (known: {', '.join(facts['envs'])})")


# --- host facts: platform, GPU ---------------------------------------------------------------------


def wsl_version(host: Host) -> int:
    """2 for WSL2, 1 for WSL1, 0 when not in WSL."""
    if host.platform != "linux":
        return 0
    version = host.read("/proc/version")
    if "microsoft-standard" in version.lower() or "wsl2" in version.lower():
        return 2
    if "microsoft" in version.lower():
        return 1
    return 2 if host.environ.get("WSL_DISTRO_NAME") and host.exists("/dev/dxg") else 0


def in_container(host: Host) -> bool:
    return host.platform == "linux" and (host.exists("/.dockerenv") or host.exists("/run/.containerenv"))


def driver_key(host: Host) -> str:
    """Which driver table applies: WSL2 runs the Windows driver."""
    return "windows" if host.platform == "windows" or wsl_version(host) else "linux"


@dataclass
class Gpu:
    name: str
    driver: str
    compute_cap: str = ""


@dataclass
class GpuInfo:
    gpus: List[Gpu]
    cuda_max: str = ""  # the "CUDA Version" in nvidia-smi's header: the newest CUDA the driver supports
    smi: str = ""
    error: str = ""


def nvidia_smi(host: Host) -> str | None:
    candidates = []
    if wsl_version(host):  # the Windows driver's nvidia-smi, often not on PATH
        candidates.append(host.path(WSL_LIB + "/nvidia-smi"))
    if host.platform == "windows":
        for var, sub in (("SystemRoot", ("System32",)), ("ProgramFiles", ("NVIDIA Corporation", "NVSMI"))):
            if host.environ.get(var):
                candidates.append(os.path.join(host.environ[var], *sub, "nvidia-smi.exe"))
    found = host.which("nvidia-smi")
    candidates.append(found or "")
    return next((c for c in candidates if c and os.path.isfile(c)), None)


def query_gpus(host: Host) -> GpuInfo:
    smi = nvidia_smi(host)
    if not smi:
        return GpuInfo([], error="nvidia-smi not found")
    fields = "name,driver_version,compute_cap"
    r = host.run([smi, f"--query-gpu={fields}", "--format=csv,noheader"])
    if r and r.rc != 0 and "compute_cap" in r.out + r.err:  # drivers before ~510 do not know the field
        fields = "name,driver_version"
        r = host.run([smi, f"--query-gpu={fields}", "--format=csv,noheader"])
    if r is None or r.rc != 0:
        text = ((r.out + r.err) if r else "did not answer").strip().splitlines()
        return GpuInfo([], smi=smi, error=text[0] if text else f"exit status {r.rc}")
    gpus = []
    for line in r.out.strip().splitlines():
        parts = [p.strip() for p in line.rsplit(",", fields.count(","))]
        gpus.append(Gpu(*parts))
    header = host.run([smi])
    m = re.search(r"CUDA Version:\s*([\d.]+)", header.out if header else "")
    return GpuInfo(gpus, cuda_max=m.group(1) if m else "", smi=smi)


# --- the library search: where the loader looks, and what else is on disk --------------------------


def dll_name(soname: str) -> str:
    """The Windows name of a Linux soname: lib<stem>.so.<version> -> <stem>64_<version digits>.dll.

    libcudart.so.10.1 -> cudart64_101.dll, libcudart.so.11.0 -> cudart64_110.dll,
    libcublas.so.11 -> cublas64_11.dll, libcudnn.so.8 -> cudnn64_8.dll, libcupti.so.11.2 -> cupti64_112.dll.
    The driver is the exception: libcuda.so.1 is nvcuda.dll.
    """
    if soname == "libcuda.so.1":
        return "nvcuda.dll"
    m = re.match(r"lib(\w+)\.so\.([\d.]+)$", soname)
    return f"{m.group(1)}64_{m.group(2).replace('.', '')}.dll" if m else soname


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


@dataclass
class LibSearch:
    """Folders the loader searches (in order), the ld.so cache, and folders that hold CUDA but are not searched."""

    loader_dirs: List[str]
    cache: Dict[str, str]
    other_dirs: List[str]
    how: str
    _listing: Dict[str, List[str]] = field(default_factory=dict)

    def names(self, folder: str, host: Host) -> List[str]:
        if folder not in self._listing:
            try:
                self._listing[folder] = os.listdir(host.path(folder))
            except OSError:
                self._listing[folder] = []
        return self._listing[folder]


def linux_search(host: Host, facts: dict) -> LibSearch:
    cache: Dict[str, str] = {}
    how = "LD_LIBRARY_PATH, the ld.so cache and the default folders"
    ldconfig = host.which("ldconfig") or next(
        (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if host.root in ("", "/") and os.path.isfile(p)), None)
    r = host.run([ldconfig, "-p"]) if ldconfig else None
    conf_dirs: List[str] = []
    if r and r.rc == 0:
        cache = parse_ldconfig(r.out)
    else:
        conf_dirs = ld_conf_dirs(host)
        how = "LD_LIBRARY_PATH, the ld.so.conf folders and the default folders"
    loader = host.env_list("LD_LIBRARY_PATH") + conf_dirs + list(LINUX_DEFAULT_DIRS)
    other = [WSL_LIB, "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib"]
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
    return LibSearch(_unique(loader), cache, _unique(d for d in other if d not in loader), how)


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
    norm = {os.path.normcase(d) for d in loader}
    other = _unique(d for d in other if os.path.normcase(d) not in norm)
    return LibSearch(_unique(loader), {}, other, "System32 and PATH")


def site_dirs(host: Host) -> List[str]:
    if host.site_dirs is not None:
        return host.site_dirs
    return [p for p in sys.path if p.endswith("site-packages") or p.endswith("dist-packages")]


def _unique(items) -> List[str]:
    seen, out = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


@dataclass
class Found:
    name: str
    loadable: str = ""  # where the loader finds it
    elsewhere: List[str] = field(default_factory=list)  # on disk, but not where the loader looks
    instead: List[str] = field(default_factory=list)  # other versions of the same library (full paths)


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
    found.instead = _sonames_only(p for p in _unique(found.instead) if not _unversioned(p))
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


def check_platform(host: Host) -> Check:
    py = ".".join(map(str, host.python))
    if host.platform == "windows":
        where = "Windows"
    else:
        wsl = wsl_version(host)
        where = {2: "Linux (WSL2)", 1: "Linux (WSL1)"}.get(wsl, "Linux")
        if in_container(host):
            where += ", inside a container"
    if wsl_version(host) == 1:
        return Check("platform", FAIL, f"{where}, Python {py}: WSL 1 has no GPU support",
                     "wsl --set-version <distro> 2 (in Windows PowerShell), then wsl --shutdown")
    return Check("platform", OK, f"{where}, Python {py}")


def check_gpu(host: Host, info: GpuInfo) -> Check:
    if not info.gpus:
        if info.error == "nvidia-smi not found":
            fix = ("start the container with --gpus all (NVIDIA container toolkit on the host)" if in_container(host)
                   else "install the NVIDIA driver on Windows (R495+) and run wsl --shutdown" if wsl_version(host)
                   else "install the NVIDIA driver (it brings nvidia-smi); TensorFlow runs on the CPU only")
            return Check("gpu", FAIL, "no NVIDIA GPU visible: nvidia-smi not found", fix)
        return Check("gpu", FAIL, f"nvidia-smi failed: {info.error}",
                     "the driver is not loaded: reboot after installing it; check Secure Boot and "
                     "`dmesg | grep -i nvrm`")
    gpu = info.gpus[0]
    more = f" (+{len(info.gpus) - 1} more)" if len(info.gpus) > 1 else ""
    if not gpu.compute_cap:
        return Check("gpu", OK, f"{gpu.name}{more}; compute capability not reported by this driver")
    if vkey(gpu.compute_cap) < TF_MIN_COMPUTE_CAPABILITY:
        return Check("gpu", FAIL, f"{gpu.name}{more}, compute capability {gpu.compute_cap}: TensorFlow 2 needs 3.5+",
                     "use a newer GPU, or run TensorFlow on the CPU")
    return Check("gpu", OK, f"{gpu.name}{more}, compute capability {gpu.compute_cap}")


def supported_cuda(facts: dict, driver: str, key: str) -> List[Tuple[str, bool]]:
    """Matrix CUDA versions this driver runs, newest first, each with 'only through minor-version compatibility'."""
    out = []
    for version, stack in sorted(facts["cuda"].items(), key=lambda kv: vkey(kv[0]), reverse=True):
        mins = stack["driver_min"]
        if vkey(driver) >= vkey(mins[key]):
            out.append((version, False))
        elif mins.get(f"compat_{key}") and vkey(driver) >= vkey(mins[f"compat_{key}"]):
            out.append((version, True))
    return out


def check_cuda_max(facts: dict, info: GpuInfo, key: str) -> Check:
    driver = info.gpus[0].driver
    ok = supported_cuda(facts, driver, key)
    matrix = f"; of the matrix's CUDA versions it runs {', '.join(v for v, _ in ok)}" if ok else ""
    if info.cuda_max:
        return Check("cuda-max", OK, f"driver {driver} supports CUDA up to {info.cuda_max}{matrix}")
    if ok:
        return Check("cuda-max", OK, f"driver {driver} supports at least CUDA {ok[0][0]}{matrix}")
    oldest = min(facts["cuda"], key=vkey)
    return Check("cuda-max", FAIL, f"driver {driver} is older than every CUDA in the matrix",
                 f"update the driver to >= {facts['cuda'][oldest]['driver_min'][key]} (CUDA {oldest})")


def check_driver(facts: dict, env: str, info: GpuInfo, key: str) -> Check:
    e = facts["envs"][env]
    mins = facts["cuda"][e["cuda"]]["driver_min"]
    driver, table = info.gpus[0].driver, "Windows" if key == "windows" else "Linux"
    need, compat = mins[key], mins.get(f"compat_{key}")
    if vkey(driver) >= vkey(need):
        return Check("driver", OK, f"driver {driver} >= {need}, the {table} minimum for CUDA {e['cuda_full']}")
    best = recommend(facts, driver, key)
    other = f", or use {best[0]} (the newest environment this driver runs)" if best and best[0] != env else ""
    if compat and vkey(driver) >= vkey(compat):
        return Check("driver", WARN,
                     f"driver {driver} < {need} ({table}, CUDA {e['cuda_full']}) but >= {compat}: runs through CUDA 11 "
                     "minor-version compatibility, without PTX JIT for newer PTX",
                     f"update the driver to >= {need} for full support")
    return Check("driver", FAIL, f"driver {driver} is too old for CUDA {e['cuda_full']} ({table} minimum {need}"
                 + (f", {compat} with minor-version compatibility" if compat else "") + ")",
                 f"update the driver to >= {compat or need}{other}")


def recommend(facts: dict, driver: str, key: str) -> Tuple[str, bool] | None:
    """The newest environment whose CUDA this driver runs; True when only through minor-version compatibility."""
    runs = dict(supported_cuda(facts, driver, key))
    for name in env_order(facts):
        cuda = facts["envs"][name]["cuda"]
        if cuda in runs:
            return name, runs[cuda]
    return None


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


def _shim_for(name: str, shims, windows: bool) -> Tuple[str, str] | None:
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
                check.status, check.message = WARN, check.message + " (only the profiler loads it)"
                check.fix = f"to profile, install CUDA {e['cuda_full']}'s CUPTI (TensorFlow runs without it)"
            checks.append(check)
    if absent:
        checks.append(Check("lib:missing", FAIL, f"not found anywhere: {', '.join(absent)}",
                            f"install CUDA {e['cuda_full']}'s libraries and cuDNN {e['cudnn']}, "
                            f"or use the Docker image tfenv/tensorflow:{env}"))
    fits = [n for n in fitting_envs(facts, host, search) if n != env] if checks else []
    for check in checks:
        if fits and check.status == FAIL and check.id != "lib:driver":
            check.fix += f"; or use {fits[0]}, which fits the installed CUDA libraries"
    note = f"; optional, not found: {', '.join(optional_missing)}" if optional_missing else ""
    total = len([1 for _, r in wanted_libs(facts, env, host) if r])
    status = FAIL if any(c.status == FAIL for c in checks) else OK
    checks.insert(0, Check("libraries", status, f"{ok} of {total} libraries {env} loads are where the loader "
                                                 f"looks ({search.how}){note}"))
    return checks


def _library_check(f: Found, host: Host, search: LibSearch, shims, win: bool, e: dict) -> Check:
    name = f.name
    driver = name in DRIVER_LIBS
    cid = "lib:driver" if driver else f"lib:{name}"
    if f.elsewhere:
        folder = _dirname(f.elsewhere[0])
        fix = (f"set PATH={folder};%PATH%" if win
               else f"export LD_LIBRARY_PATH={folder}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}")
        return Check(cid, FAIL, f"{name} is in {folder}, where the loader does not look", fix)
    shim = _shim_for(name, shims, win)
    if shim:
        stand_in = next((p for p in f.instead if _basename(p).lower() == shim[0].lower()), None)
        if stand_in:
            folder = _dirname(stand_in)
            fix = (f'copy "{stand_in}" "{_join(host, folder, name)}"' if win
                   else f"ln -s {_basename(stand_in)} {_join(host, folder, name)}")
            return Check(cid, FAIL, f"{name} not found; found {_basename(stand_in)} instead",
                         f"{fix} (the link tfenv's {shim[1]} image tests)")
    if f.instead:
        names = ", ".join(sorted({_basename(p) for p in f.instead}))
        return Check(cid, FAIL, f"{name} not found; found {names} instead (another CUDA version)",
                     f"install CUDA {e['cuda_full']}'s libraries and cuDNN {e['cudnn']} (they can live beside "
                     "the other CUDA), or use the Docker image")
    if driver:
        fix = ("start the container with --gpus all" if in_container(host)
               else f"export LD_LIBRARY_PATH={WSL_LIB}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" if wsl_version(host)
               else "install the NVIDIA driver")
        return Check(cid, FAIL, f"{name} (the NVIDIA driver) not found", fix)
    return Check(cid, FAIL, f"{name} not found",
                 f"install CUDA {e['cuda_full']}'s libraries and cuDNN {e['cudnn']}, or use the Docker image")


def installed_tensorflow(host: Host) -> Tuple[str, str] | None:
    """(distribution, version) of the installed TensorFlow, read from package metadata without importing it."""
    from importlib import metadata

    for dist in metadata.distributions(path=host.site_dirs if host.site_dirs is not None else sys.path):
        name = (dist.metadata["Name"] or "").lower().replace("_", "-")
        if name in TF_DISTRIBUTIONS:
            return name, dist.version
    return None


def env_for_tensorflow(facts: dict, version: str) -> List[str]:
    return [n for n in env_order(facts) if vkey(facts["envs"][n]["tensorflow"])[:2] == vkey(version)[:2]]


def check_tensorflow(facts: dict, env: str | None, tf: Tuple[str, str] | None) -> Check | None:
    if not tf:
        return None
    dist, version = tf
    if dist == "tensorflow-cpu":
        return Check("tensorflow", FAIL, f"{dist} {version} is installed: a build without GPU support",
                     "pip uninstall tensorflow-cpu, then install tensorflow (or tensorflow-gpu for 2.2-2.3)")
    if env and vkey(facts["envs"][env]["tensorflow"])[:2] != vkey(version)[:2]:
        return Check("tensorflow", WARN, f"{dist} {version} is installed, {env} is TensorFlow "
                     f"{facts['envs'][env]['tensorflow']}", f"check with --env for {version}'s line, or install "
                     f"tensorflow=={facts['envs'][env]['tensorflow']}")
    if not env_for_tensorflow(facts, version):
        return Check("tensorflow", WARN, f"{dist} {version} is installed; the matrix has no environment for it",
                     "use one of the matrix environments (tfenv matrix)")
    return Check("tensorflow", OK, f"{dist} {version} installed")


def check_python(facts: dict, env: str, host: Host) -> Check:
    e = facts["envs"][env]
    py = ".".join(map(str, host.python[:2]))
    if vkey(e["python_min"]) <= host.python[:2] <= vkey(e["python_max"]):
        return Check("python", OK, f"Python {py} is in TensorFlow {e['tensorflow']}'s "
                     f"{e['python_min']}-{e['python_max']}")
    return Check("python", WARN, f"Python {py} is outside TensorFlow {e['tensorflow']}'s "
                 f"{e['python_min']}-{e['python_max']}: pip cannot install it here",
                 f"use Python {e['python_min']}-{e['python_max']} in a venv, or the Docker image")


def check_wsl(host: Host) -> List[Check]:
    if wsl_version(host) != 2:
        return []
    checks = []
    if host.exists("/dev/dxg"):
        checks.append(Check("wsl:dxg", OK, "/dev/dxg present (GPU paravirtualization)"))
    else:
        checks.append(Check("wsl:dxg", FAIL, "/dev/dxg missing: this WSL has no GPU",
                            "Windows 11 or 10 21H2+, the NVIDIA Windows driver R495+, then wsl --update and "
                            "wsl --shutdown"))
    if host.exists(WSL_LIB + "/libcuda.so.1"):
        checks.append(Check("wsl:libcuda", OK, f"{WSL_LIB}/libcuda.so.1 present (from the Windows driver)"))
    else:
        checks.append(Check("wsl:libcuda", FAIL, f"{WSL_LIB}/libcuda.so.1 missing",
                            "install the NVIDIA Windows driver R495+ (on Windows, not in WSL), then wsl --shutdown"))
    inside = _linux_driver_in_wsl(host)
    if inside:
        pkgs = [p for p in inside if not p.startswith("/")]
        fix = (f"sudo apt-get purge {' '.join(pkgs)}; " if pkgs else "remove the Linux NVIDIA driver; ")
        checks.append(Check("wsl:linux-driver", FAIL, f"a Linux NVIDIA driver is installed inside WSL: "
                            f"{', '.join(inside)}", fix + "install only cuda-toolkit-X-Y or runtime libraries "
                            "(never cuda, cuda-X-Y or cuda-drivers), then wsl --shutdown"))
    else:
        checks.append(Check("wsl:linux-driver", OK, "no Linux NVIDIA driver inside WSL"))
    return checks


def _linux_driver_in_wsl(host: Host) -> List[str]:
    found = []
    status = host.read("/var/lib/dpkg/status")
    for block in status.split("\n\n"):
        name = re.search(r"^Package: (\S+)", block, re.M)
        if name and WSL_FORBIDDEN_PACKAGES.match(name.group(1)) and "install ok installed" in block:
            found.append(name.group(1))
    for pattern in ("/usr/lib/x86_64-linux-gnu/libcuda.so.*", "/usr/lib64/libcuda.so.*", "/usr/bin/nvidia-smi"):
        for p in sorted(glob.glob(host.path(pattern))):
            found.append(pattern.rsplit("/", 1)[0] + "/" + os.path.basename(p))
    return found


# --- Docker: can `tfenv run --gpus` work? ---------------------------------------------------------


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self._path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def docker_info(host: Host) -> Tuple[dict | None, str]:
    """The daemon's /info, through its Unix socket or else the docker CLI; (None, why) when unreachable."""
    docker_host = host.environ.get("DOCKER_HOST", "")
    sock = docker_host[len("unix://"):] if docker_host.startswith("unix://") else (
        host.path("/var/run/docker.sock") if not docker_host and host.platform == "linux" else "")
    why = "no Docker daemon socket" if host.platform == "linux" else "docker CLI not found"
    if sock and hasattr(socket, "AF_UNIX") and os.path.exists(sock):
        conn = _UnixHTTPConnection(sock, timeout=5)
        try:
            conn.request("GET", "/info")
            resp = conn.getresponse()
            if resp.status == 200:
                return json.loads(resp.read().decode("utf-8")), ""
            why = f"daemon answered HTTP {resp.status}"
        except PermissionError:
            why = f"permission denied on {sock}"
        except (OSError, ValueError, http.client.HTTPException) as exc:
            why = f"{sock}: {exc}"
        finally:
            conn.close()
    cli = host.which("docker")
    if cli:
        r = host.run([cli, "info", "--format", "{{json .}}"], timeout=15)
        if r and r.rc == 0:
            try:
                return json.loads(r.out), ""
            except ValueError:
                pass
        why = ((r.err or r.out).strip().splitlines() or ["docker info failed"])[-1] if r else "docker info timed out"
    return None, why


def check_docker(host: Host, have_gpu: bool) -> Check:
    info, why = docker_info(host)
    if info is None and in_container(host):
        return Check("docker", SKIP, "inside a container without a Docker socket: run doctor on the host for Docker")
    if info is None:
        fix = ("sudo usermod -aG docker $USER, then log in again" if "permission denied" in why.lower()
               else "start Docker (Docker Desktop with the WSL2 backend on Windows) to use tfenv run")
        return Check("docker", WARN, f"Docker daemon not reachable ({why})", fix)
    runtimes = sorted(info.get("Runtimes") or {})
    system = info.get("OperatingSystem", "")
    version = info.get("ServerVersion", "?")
    if "nvidia" in runtimes:
        return Check("docker", OK, f"Docker {version} with the nvidia runtime: tfenv run --gpus can work")
    if "Docker Desktop" in system:
        return Check("docker", OK, f"Docker {version} ({system}): --gpus works with the WSL2 backend")
    hook = host.which("nvidia-container-runtime-hook") or (
        host.exists("/usr/bin/nvidia-container-runtime-hook") and "/usr/bin/nvidia-container-runtime-hook")
    if hook:
        return Check("docker", OK, f"Docker {version}, NVIDIA container toolkit hook {hook}: --gpus can work")
    return Check("docker", WARN, f"Docker {version} has no NVIDIA runtime (runtimes: {', '.join(runtimes) or 'none'})"
                 + ("" if have_gpu else "; this host has no GPU anyway"),
                 "install nvidia-container-toolkit, then sudo nvidia-ctk runtime configure --runtime=docker and "
                 "restart Docker, so that tfenv run --gpus works")


# --- --import: TensorFlow's own view --------------------------------------------------------------

IMPORT_CODE = ("import tensorflow as tf; print('TFENV_TF=' + tf.__version__); "
               "print('TFENV_GPUS=%d' % len(tf.config.list_physical_devices('GPU')))")
_DLERROR = re.compile(r"Could not load dynamic library '([^']+)'; dlerror: (.*?)(?:; LD_LIBRARY_PATH: .*)?$")


def parse_tf_log(text: str) -> dict:
    """What TensorFlow's loader said: libraries it could not load (with dlerror), the GPU count, cuInit errors."""
    result = {"missing": {}, "gpus": None, "version": None, "cuinit": None, "error": None}
    for line in text.splitlines():
        m = _DLERROR.search(line)
        if m:
            result["missing"].setdefault(m.group(1), m.group(2).strip())
        m = re.search(r"cuInit: (.+)$", line)
        if m:
            result["cuinit"] = m.group(1).strip()
        m = re.match(r"TFENV_GPUS=(\d+)$", line.strip())
        if m:
            result["gpus"] = int(m.group(1))
        m = re.match(r"TFENV_TF=(\S+)$", line.strip())
        if m:
            result["version"] = m.group(1)
        if re.match(r"\w*(Error|Exception): ", line):
            result["error"] = line.strip()
    return result


def check_import(host: Host) -> List[Check]:
    r = host.run([host.python_exe, "-c", IMPORT_CODE], timeout=600, extra_env={"TF_CPP_MIN_LOG_LEVEL": "0"})
    if r is None:
        return [Check("import", FAIL, f"{host.python_exe} did not finish importing TensorFlow", "")]
    log = parse_tf_log(r.out + "\n" + r.err)
    if r.rc != 0 or log["version"] is None:
        return [Check("import", FAIL, f"import tensorflow failed: {log['error'] or f'exit status {r.rc}'}",
                      "install TensorFlow in this Python, or use the Docker image")]
    checks = [Check("import:lib", FAIL, f"TensorFlow could not load {lib}: {why}", "see the library checks above")
              for lib, why in log["missing"].items()]
    if log["gpus"]:
        checks.append(Check("import", OK, f"TensorFlow {log['version']} sees {log['gpus']} GPU(s)"))
    else:
        why = f"; cuInit: {log['cuinit']}" if log["cuinit"] else ""
        checks.append(Check("import", FAIL, f"TensorFlow {log['version']} sees no GPU{why}",
                            "fix the failures above" if checks or why else "check the driver and libraries above"))
    return checks


# --- the report -----------------------------------------------------------------------------------


@dataclass
class Report:
    env: str | None
    env_reason: str
    host: dict
    checks: List[Check]
    recommendation: dict | None

    @property
    def failed(self) -> List[Check]:
        return [c for c in self.checks if c.status == FAIL]


def diagnose(facts: dict | None, host: Host, env: str | None = None, do_import: bool = False) -> Report:
    if env and not facts:
        raise DoctorError("no matrix facts: use `tfenv doctor`, pass --facts FILE, or a copy from "
                          "`tfenv doctor --write-standalone FILE`")
    if env:
        check_env_name(facts, env)
    checks = [check_platform(host)]
    tf = installed_tensorflow(host)
    reason = "--env" if env else ""
    if not env and tf and facts:
        env = _env_for_installed(facts, host, tf[1])
        reason = f"installed {tf[0]} {tf[1]}" if env else ""
    info = query_gpus(host)
    key = driver_key(host)
    checks.append(check_gpu(host, info))
    if info.gpus and facts:
        checks.append(check_cuda_max(facts, info, key))
        if env:
            checks.append(check_driver(facts, env, info, key))
    if facts:
        tf_check = check_tensorflow(facts, env, tf)
        if tf_check:
            checks.append(tf_check)
    if env:
        checks.append(check_python(facts, env, host))
        checks += check_libraries(facts, env, host)
    elif facts:
        checks.append(Check("libraries", SKIP, "no target environment: pass --env ENV (or install TensorFlow)"))
    else:
        checks.append(Check("facts", WARN, "no matrix facts: only the host was checked",
                            "use `tfenv doctor`, or a copy from `tfenv doctor --write-standalone FILE`"))
    checks += check_wsl(host)
    checks.append(check_docker(host, bool(info.gpus)))
    if do_import:
        checks += check_import(host)
    rec = None
    if facts and info.gpus:
        best = recommend(facts, info.gpus[0].driver, key)
        if best:
            e = facts["envs"][best[0]]
            rec = {"env": best[0], "tensorflow": e["tensorflow"], "cuda": e["cuda_full"], "driver": info.gpus[0].driver,
                   "note": "through CUDA 11 minor-version compatibility (no PTX JIT for newer PTX)" if best[1] else ""}
    host_info = {"platform": host.platform, "wsl": wsl_version(host), "container": in_container(host),
                 "python": ".".join(map(str, host.python)), "gpus": [asdict(g) for g in info.gpus],
                 "cuda_max": info.cuda_max, "tensorflow": list(tf) if tf else None}
    return Report(env, reason, host_info, checks, rec)


def _env_for_installed(facts: dict, host: Host, version: str) -> str | None:
    """The matrix environment of the installed TF line; with two (tf22 on CUDA 10.2 or 10.1), the one installed."""
    candidates = env_for_tensorflow(facts, version)
    if len(candidates) > 1:
        search = windows_search(host) if host.platform == "windows" else linux_search(host, facts)
        fits = [n for n in fitting_envs(facts, host, search) if n in candidates]
        return (fits or candidates)[0]
    return candidates[0] if candidates else None


def format_text(report: Report, facts: dict | None) -> str:
    lines = []
    if report.env:
        e = facts["envs"][report.env]
        why = f", from the {report.env_reason}" if report.env_reason and report.env_reason != "--env" else ""
        lines.append(f"tfenv doctor: {report.env} (TensorFlow {e['tensorflow']}, CUDA {e['cuda_full']}, "
                     f"cuDNN {e['cudnn']}{why})")
    else:
        lines.append("tfenv doctor: host only (no target environment)")
    width = max(len(c.id) for c in report.checks)
    for c in report.checks:
        lines.append(f"  {c.status.upper() if c.status == FAIL else c.status:<4}  {c.id:<{width}}  {c.message}")
        if c.fix and c.status in (WARN, FAIL):
            lines.append(f"        {'':<{width}}  fix: {c.fix}")
    rec = report.recommendation
    if rec:
        note = f" {rec['note']}" if rec["note"] else ""
        lines.append(f"recommended: {rec['env']} (TensorFlow {rec['tensorflow']}, CUDA {rec['cuda']}) is the newest "
                     f"environment driver {rec['driver']} runs{note}")
    n = len(report.failed)
    lines.append(f"{n} check(s) failed" if n else "no check failed")
    return "\n".join(lines) + "\n"


def format_json(report: Report) -> str:
    data = {"env": report.env, "env_reason": report.env_reason, "ok": not report.failed, "host": report.host,
            "checks": [asdict(c) for c in report.checks], "recommendation": report.recommendation}
    return json.dumps(data, indent=2) + "\n"


def standalone_source(facts: dict) -> str:
    """This file with the facts inlined, for a machine with nothing but Python."""
    with open(os.path.abspath(__file__), encoding="utf-8") as f:
        source = f.read()
    marker = "EMBEDDED_FACTS_JSON = None"
    line = next(ln for ln in source.splitlines() if ln.startswith(marker))
    return source.replace(line, "EMBEDDED_FACTS_JSON = " + repr(json.dumps(facts, sort_keys=True)), 1)


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="doctor.py", description="Why TensorFlow does not see your GPU.")
    parser.add_argument("--env", help="the tfenv environment to check for (default: the installed TensorFlow's)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--import", dest="do_import", action="store_true", help="also import TensorFlow once")
    parser.add_argument("--facts", help="matrix facts JSON (from tfenv doctor --write-facts FILE)")
    args = parser.parse_args(argv)
    try:
        if args.env is not None and not args.env.strip():
            raise DoctorError("--env '': name an environment, or leave --env out")
        facts = load_facts(args.facts)
        report = diagnose(facts, Host.current(), args.env, args.do_import)
    except DoctorError as exc:
        print(f"doctor: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: one line and 70 (as tfenv), not a traceback a user must read
        print(f"doctor: internal error: {type(exc).__name__}: {exc} (please report it)", file=sys.stderr)
        return 70
    sys.stdout.write(format_json(report) if args.json else format_text(report, facts))
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
