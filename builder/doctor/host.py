"""What doctor inspects: the host (this machine, or a fake tree in tests), its GPU and installed TensorFlow.

Standard library only, Python 3.6+ syntax (the standalone doctor runs on a bare machine's python3).
"""

import os
import re
import subprocess
import sys
from typing import Optional, Tuple

from builder.diagnose.versions import vkey  # noqa: F401  (one version compare, re-exported for the checks)

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "intel-tensorflow", "tf-nightly")


class DoctorError(Exception):
    """Bad input (unknown environment, unreadable facts): one line, exit code 2."""


class Check:
    def __init__(self, id, status, message, fix=""):
        self.id, self.status, self.message, self.fix = id, status, message, fix  # status: ok/warn/fail/skip

    def as_dict(self):
        return {"id": self.id, "status": self.status, "message": self.message, "fix": self.fix}

    def __eq__(self, other):
        return isinstance(other, Check) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return f"Check({self.id!r}, {self.status!r}, {self.message!r}, {self.fix!r})"


class Run:
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err


class Host:
    """What doctor inspects. Host.current() is this machine; tests build fake roots and PATHs.

    root: prefix for Linux paths (/usr/lib/wsl/lib, /usr/local/cuda*, /dev/dxg, /proc/version); platform:
    'linux' or 'windows'; site_dirs: where installed packages' metadata lives (None: this Python's);
    runner(args, env, timeout) -> Run replaces subprocess in tests.
    """

    def __init__(self, root="/", platform="linux", environ=None, python=(3, 8, 0), python_exe=sys.executable,
                 site_dirs=None, runner=None):
        self.root = root
        self.platform = platform
        self.environ = dict(environ or {})  # type: Dict[str, str]
        self.python = tuple(python)  # type: Tuple[int, ...]
        self.python_exe = python_exe
        self.site_dirs = site_dirs  # type: Optional[List[str]]
        self.runner = runner  # type: Optional[Callable]

    @classmethod
    def current(cls):
        return cls(platform="windows" if os.name == "nt" else "linux", environ=dict(os.environ),
                   python=tuple(sys.version_info[:3]), python_exe=sys.executable)

    @property
    def pathsep(self):
        return ";" if self.platform == "windows" else ":"

    def path(self, p):
        """A Linux host path as seen from here (under root); Windows paths are used as given."""
        if self.platform == "windows" or self.root in ("", "/"):
            return p
        return os.path.join(self.root, p.lstrip("/"))

    def exists(self, p):
        return os.path.exists(self.path(p))

    def read(self, p):
        try:
            with open(self.path(p), encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def env_list(self, name):
        return [d for d in self.environ.get(name, "").split(self.pathsep) if d]

    def which(self, name):
        exts = [""] + [".exe", ".bat", ".cmd"] if self.platform == "windows" else [""]
        for folder in self.env_list("PATH"):
            for ext in exts:
                candidate = os.path.join(self.path(folder), name + ext)
                if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                    return candidate
        return None

    def run(self, args, timeout=30, extra_env=None):
        """Run a program with this host's environment; None when it cannot start or times out."""
        env = dict(self.environ, **(extra_env or {}))
        if self.runner:
            return self.runner(args, env, timeout)
        try:
            p = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                               universal_newlines=True, errors="replace", stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return Run(p.returncode, p.stdout, p.stderr)


class Gpu:
    def __init__(self, name, driver, compute_cap=""):
        self.name, self.driver, self.compute_cap = name, driver, compute_cap

    def as_dict(self):
        return {"name": self.name, "driver": self.driver, "compute_cap": self.compute_cap}


class GpuInfo:
    """cuda_max: the "CUDA Version" in nvidia-smi's header, the newest CUDA the driver supports."""

    def __init__(self, gpus, cuda_max="", smi="", error=""):
        self.gpus, self.cuda_max, self.smi, self.error = gpus, cuda_max, smi, error


def wsl_fact(facts: Optional[dict], key: str) -> Optional[str]:
    """A fact of matrix.yaml's wsl: section (None: no facts, or a matrix without one). Doctor keeps no copy of
    them: `tfenv doctor` passes the facts and the standalone doctor bundles them, so only a bare module run lacks
    them, and then the checks that need them say nothing (the facts check warns that only the host was checked)."""
    return ((facts or {}).get("wsl") or {}).get(key)


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



def nvidia_smi(host: Host, wsl_lib: Optional[str] = None) -> Optional[str]:
    """wsl_lib: the facts' WSL library folder, where the Windows driver's nvidia-smi is (often not on PATH)."""
    candidates = []
    if wsl_lib and wsl_version(host):
        candidates.append(host.path(wsl_lib + "/nvidia-smi"))
    if host.platform == "windows":
        for var, sub in (("SystemRoot", ("System32",)), ("ProgramFiles", ("NVIDIA Corporation", "NVSMI"))):
            if host.environ.get(var):
                candidates.append(os.path.join(host.environ[var], *sub, "nvidia-smi.exe"))
    found = host.which("nvidia-smi")
    candidates.append(found or "")
    return next((c for c in candidates if c and os.path.isfile(c)), None)


def query_gpus(host: Host, wsl_lib: Optional[str] = None) -> GpuInfo:
    smi = nvidia_smi(host, wsl_lib)
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


def installed_tensorflow(host: Host) -> Optional[Tuple[str, str]]:
    """(distribution, version) of the installed TensorFlow, read from package metadata without importing it.

    The *.dist-info folders are read directly: importlib.metadata needs Python 3.8, the standalone runs on 3.6."""
    paths = host.site_dirs if host.site_dirs is not None else sys.path
    for folder in paths:
        try:
            entries = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for entry in entries:
            m = _DIST_INFO.match(entry)
            if m and m.group(1).lower().replace("_", "-") in TF_DISTRIBUTIONS:
                meta = _metadata(os.path.join(folder, entry, "METADATA"))
                name = (meta.get("Name") or m.group(1)).lower().replace("_", "-")
                return name, meta.get("Version") or m.group(2)
    return None


_DIST_INFO = re.compile(r"^([A-Za-z0-9_.-]+?)-([0-9][^-]*)\.dist-info$")


def _metadata(path):
    out = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                out.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return out
