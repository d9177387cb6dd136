"""Parse TensorFlow's library-loader messages (stream_executor's dso_loader.cc and friends).

TF says which CUDA library it could not dlopen, and why, in one log line; everything else in its log is
noise for this purpose. The line format has been stable from TF 2.2 to 2.10 (only the source line number
moves: dso_loader.cc:55 in 2.2, :60 in 2.4, :64 in 2.9 and 2.10), so one pattern per message kind suffices.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

# "... W tensorflow/.../dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: <why>"
# then optionally "; LD_LIBRARY_PATH: <dirs>" (TF adds it only when the variable is set).
# Windows names the DLL the same way ('cudart64_110.dll'), so the library is any quoted name.
_COULD_NOT_LOAD = re.compile(
    r"Could not (?:load dynamic library|dlopen library) '(?P<lib>[^']+)'"
    r"(?:; dlerror: (?P<dlerror>.*?))?"
    r"(?:; LD_LIBRARY_PATH: (?P<ldpath>.*?))?\s*$"
)
# TF <= 2.4 also logs each library it did open, at INFO level.
_OPENED = re.compile(r"Successfully opened dynamic library (?P<lib>\S+)")
_CANNOT_DLOPEN = re.compile(r"Cannot dlopen some GPU libraries")
_SKIPPING = re.compile(r"Skipping registering GPU devices")
# "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected" / "UNKNOWN ERROR (303)"
_CUINIT = re.compile(r"failed call to cuInit: (?P<error>.*?)\s*$")

DRIVER_LIBRARY = "libcuda.so.1"  # the driver: never in an image, mounted by the NVIDIA runtime at start


@dataclass(frozen=True)
class LoadFailure:
    """One library TF asked for by name and could not dlopen."""

    library: str
    dlerror: str | None
    ld_library_path: str | None
    line: str

    @property
    def missing_dependency(self) -> str | None:
        """The library dlerror names when it is not the one asked for (the asked one was found but needs it)."""
        if not self.dlerror:
            return None
        named = self.dlerror.split(":", 1)[0].strip()
        if named and named != self.library and not named.startswith("/") and ".so" in named:
            return named
        return None


@dataclass
class LoaderLog:
    """What a TF log says about loading the GPU libraries."""

    failures: list[LoadFailure] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    cannot_dlopen: bool = False  # "Cannot dlopen some GPU libraries ..."
    skipped_gpu_registration: bool = False  # "Skipping registering GPU devices..."
    cuinit_error: str | None = None

    def failed_libraries(self) -> list[str]:
        seen: list[str] = []
        for f in self.failures:
            if f.library not in seen:
                seen.append(f.library)
        return seen

    def failures_except(self, ignore: Iterable[str]) -> list[LoadFailure]:
        """Failures for libraries not in `ignore`, one per library (TF repeats itself per device)."""
        ignored = set(ignore)
        out: dict[str, LoadFailure] = {}
        for f in self.failures:
            if f.library not in ignored and f.library not in out:
                out[f.library] = f
        return list(out.values())


def parse(text: str) -> LoaderLog:
    """Every loader message in a TF log (stderr of `import tensorflow` and device listing)."""
    log = LoaderLog()
    for line in text.splitlines():
        m = _COULD_NOT_LOAD.search(line)
        if m:
            log.failures.append(
                LoadFailure(m.group("lib"), _clean(m.group("dlerror")), _clean(m.group("ldpath")), line.strip())
            )
            continue
        m = _OPENED.search(line)
        if m:
            log.opened.append(m.group("lib"))
            continue
        if _CANNOT_DLOPEN.search(line):
            log.cannot_dlopen = True
        if _SKIPPING.search(line):
            log.skipped_gpu_registration = True
        m = _CUINIT.search(line)
        if m:
            log.cuinit_error = m.group("error")
    return log


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip()
    return value or None


# --- fixes: what to try for each failure --------------------------------------------------------

WSL_LIB = "/usr/lib/wsl/lib"


def fix_hint(failure: LoadFailure, present: Iterable[str] = (), shims: Iterable[tuple[str, str]] = ()) -> str:
    """The fix to try for one failure.

    present: sonames known to be loadable (e.g. the 10.2 runtime), shims: (link, to) pairs the matrix
    prescribes; both let the hint name the exact link to add.
    """
    lib = failure.library
    present = set(present)
    dependency = failure.missing_dependency
    if dependency:
        return (f"{lib} was found but needs {dependency}, which is not on the loader path: install the library "
                f"that provides {dependency} (or remove the mismatched {lib} that wants it)")
    if lib == DRIVER_LIBRARY:
        return driver_hint()
    for link, to in shims:
        if link == lib:
            return (f"{lib} is a compatibility link to {to}: create it next to {to} "
                    f"(ln -s {to} {lib}) and run ldconfig")
    family, version = _split_soname(lib)
    if family == "libcudart" and version == "10.1":
        if "libcudart.so.10.2" in present:
            return ("TF 2.2/2.3 ask for libcudart.so.10.1 but CUDA 10.2 ships libcudart.so.10.2: add the link "
                    "libcudart.so.10.1 -> libcudart.so.10.2 and run ldconfig (tfenv's tf22 image has it), "
                    "or install CUDA 10.1")
        return "install the CUDA 10.1 runtime (cuda-cudart-10-1), or CUDA 10.2 plus the libcudart.so.10.1 link"
    if family == "libcusolver" and version == "10" and any(s.startswith("libcudart.so.11") for s in present):
        return ("TF 2.4 wants CUDA 11.0's libcusolver.so.10; CUDA 11.1 and later ship only libcusolver.so.11: "
                "use CUDA 11.0 with TF 2.4, or TF 2.5 or later with CUDA 11.2")
    if family == "libcudnn":
        return (f"cuDNN is not part of the CUDA toolkit: install cuDNN {version} (libcudnn{version} from NVIDIA's "
                f"repository, or the nvidia-cudnn-cu11 wheel) and add its lib folder to /etc/ld.so.conf.d")
    if family in ("libnvinfer", "libnvinfer_plugin"):
        return "TensorRT is optional: install TensorRT " + version + " only if you use TF-TRT; TF works without it"
    where = f" (LD_LIBRARY_PATH is {failure.ld_library_path})" if failure.ld_library_path else ""
    return (f"install the CUDA library that provides {lib}, or add the folder that holds it to LD_LIBRARY_PATH "
            f"or /etc/ld.so.conf.d and run ldconfig{where}")


def driver_hint() -> str:
    return (f"{DRIVER_LIBRARY} is the NVIDIA driver, never part of an image: in Docker start the container with "
            f"--gpus all (needs the NVIDIA container toolkit); in WSL2 run export LD_LIBRARY_PATH={WSL_LIB}; "
            f"on a Linux host install the NVIDIA driver")


def cuinit_hint(error: str) -> str:
    if "NO_DEVICE" in error:
        return ("the driver loaded but sees no GPU: check `nvidia-smi`, CUDA_VISIBLE_DEVICES, and that the "
                "container was started with --gpus")
    if "303" in error:
        return f"cuInit failed because the driver library did not load: {driver_hint()}"
    if "INSUFFICIENT_DRIVER" in error or "insufficient" in error.lower():
        return "the NVIDIA driver is older than this CUDA runtime needs: update the driver"
    return "check the NVIDIA driver with `nvidia-smi`"


def _split_soname(lib: str) -> tuple[str, str]:
    """('libcudart', '10.1') for libcudart.so.10.1; ('cudart64', '110') style names come back whole."""
    if ".so." in lib:
        family, _, version = lib.partition(".so.")
        return family, version
    return lib, ""
