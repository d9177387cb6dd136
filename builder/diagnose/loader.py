"""TF's library-loader messages as the image checks (builder/verify/suites, `tfenv test`) read them: which library
TF asked for by name and could not load, why, and the fix for one failure given what the image carries.

Built on the one parser (builder.diagnose.parse); this module only shapes its events for the suites."""

from builder.diagnose.parse import parse, split_dlerror

DRIVER_LIBRARY = "libcuda.so.1"  # the driver: never in an image, mounted by the NVIDIA runtime at start


class LoadFailure:
    """One library TF asked for by name and could not dlopen."""

    def __init__(self, library, dlerror, ld_library_path, line):
        self.library, self.dlerror, self.ld_library_path, self.line = library, dlerror, ld_library_path, line

    def __eq__(self, other):
        return isinstance(other, LoadFailure) and vars(self) == vars(other)

    def __repr__(self):
        return f"LoadFailure({self.library!r}, {self.dlerror!r})"

    @property
    def missing_dependency(self):
        """The library dlerror names when it is not the one asked for (the asked one was found but needs it)."""
        if not self.dlerror:
            return None
        named = self.dlerror.split(":", 1)[0].strip()
        if named and named != self.library and not named.startswith("/") and ".so" in named:
            return named
        return None


class LoaderLog:
    """What a TF log says about loading the GPU libraries: every failure in order, and cuInit's error."""

    def __init__(self, failures, cuinit_error):
        self.failures, self.cuinit_error = failures, cuinit_error

    def failures_except(self, ignore):
        """Failures for libraries not in `ignore`, one per library (TF repeats itself per device)."""
        ignored, out = set(ignore), {}
        for f in self.failures:
            if f.library not in ignored and f.library not in out:
                out[f.library] = f
        return list(out.values())


def loader_log(text, log=None):
    """The loader messages of a TF log (stderr of `import tensorflow` and device listing)."""
    log = log or parse(text)
    failures = []
    for ev in log.all("load_fail"):
        why, ldpath = split_dlerror(ev.groups[1] if len(ev.groups) > 1 else None)
        failures.append(LoadFailure(ev.groups[0], why, ldpath, log.line_text(ev.line)))
    cuinit = log.first("cuinit")
    return LoaderLog(failures, cuinit.groups[0] if cuinit else None)


# --- fixes: what to try for each failure --------------------------------------------------------


def fix_hint(failure, present=(), shims=(), wsl_lib=None):
    """The fix to try for one failure.

    present: sonames known to be loadable (e.g. the 10.2 runtime), shims: (link, to) pairs the matrix
    prescribes; both let the hint name the exact link to add. wsl_lib: matrix.yaml's wsl.lib_dir (the suites'
    expectations carry it); without it the driver hint says nothing about WSL2.
    """
    lib = failure.library
    present = set(present)
    dependency = failure.missing_dependency
    if dependency:
        return (f"{lib} was found but needs {dependency}, which is not on the loader path: install the library "
                f"that provides {dependency} (or remove the mismatched {lib} that wants it)")
    if lib == DRIVER_LIBRARY:
        return driver_hint(wsl_lib)
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


def driver_hint(wsl_lib=None):
    wsl = f"in WSL2 run export LD_LIBRARY_PATH={wsl_lib}; " if wsl_lib else ""
    return (f"{DRIVER_LIBRARY} is the NVIDIA driver, never part of an image: in Docker start the container with "
            f"--gpus all (needs the NVIDIA container toolkit); {wsl}on a Linux host install the NVIDIA driver")


def cuinit_hint(error, wsl_lib=None):
    if "NO_DEVICE" in error:
        return ("the driver loaded but sees no GPU: check `nvidia-smi`, CUDA_VISIBLE_DEVICES, and that the "
                "container was started with --gpus")
    if "303" in error:
        return f"cuInit failed because the driver library did not load: {driver_hint(wsl_lib)}"
    if "INSUFFICIENT_DRIVER" in error or "insufficient" in error.lower():
        return "the NVIDIA driver is older than this CUDA runtime needs: update the driver"
    return "check the NVIDIA driver with `nvidia-smi`"


def _split_soname(lib):
    """('libcudart', '10.1') for libcudart.so.10.1; ('cudart64_110.dll', '') style names come back whole."""
    if ".so." in lib:
        family, _, version = lib.partition(".so.")
        return family, version
    return lib, ""
