"""Version numbers and library names: compare versions, spell a Linux soname the Windows way, and read
which CUDA a library name belongs to. Rules, not tables: the tables live in matrix.yaml."""

import re

_NUMBER = re.compile(r"\d+")
_SONAME = re.compile(r"lib(\w+?)\.so\.([\d.]+)$")
_DLL = re.compile(r"([A-Za-z]+?)64_(\d+)\.dll$", re.IGNORECASE)


def vkey(version):
    """'470.82.01' -> (470, 82, 1); stops at the first part that is not a number."""
    parts = []
    for part in str(version or "").split("."):
        m = _NUMBER.match(part)
        if not m:
            break
        parts.append(int(m.group()))
    return tuple(parts)


def line_of(version):
    """'2.9.3' -> '2.9' (a TensorFlow or CUDA release line)."""
    return ".".join(str(p) for p in vkey(version)[:2])


def dll_name(soname):
    """The Windows name of a Linux soname: lib<stem>.so.<version> -> <stem>64_<version digits>.dll.

    libcudart.so.10.1 -> cudart64_101.dll, libcudart.so.11.0 -> cudart64_110.dll,
    libcublas.so.11 -> cublas64_11.dll, libcudnn.so.8 -> cudnn64_8.dll, libcupti.so.11.2 -> cupti64_112.dll.
    The driver is the exception: libcuda.so.1 is nvcuda.dll.
    """
    if soname == "libcuda.so.1":
        return "nvcuda.dll"
    m = _SONAME.match(soname)
    return "{}64_{}.dll".format(m.group(1), m.group(2).replace(".", "")) if m else soname


def family(name):
    """What every version of a library shares: 'cudart' for libcudart.so.10.1 and cudart64_110.dll."""
    base = name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    m = _SONAME.match(base)
    if m:
        return m.group(1).lower()
    m = _DLL.match(base)
    if m:
        return m.group(1).lower()
    if base.lower() == "nvcuda.dll":
        return "cuda"
    stem = base.split(".", 1)[0].lower()
    return stem[3:] if stem.startswith("lib") else stem


def version_suffix(name):
    """'10.1' for libcudart.so.10.1, '101' for cudart64_101.dll, '' when the name carries none."""
    base = name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    m = _SONAME.match(base) or _DLL.match(base)
    return m.group(2) if m else ""


def cuda_of_runtime(name):
    """The CUDA release a cudart name belongs to: cudart64_101.dll and libcudart.so.10.1 are '10.1';
    CUDA 11 and 12 keep one runtime soname for the whole major release, so cudart64_110.dll is '11.x'."""
    if family(name) != "cudart":
        return ""
    digits = version_suffix(name).replace(".", "")
    if not digits:
        return ""
    major = int(digits[:2]) if digits.startswith(("10", "11", "12", "13")) else int(digits[0])
    minor = digits[len(str(major)):]
    if major >= 11:
        return f"{major}.x"
    return "{}.{}".format(major, minor or "0")


def cuda_of_library(name):
    """The CUDA release a library name pins down: every cudart name, and the other CUDA libraries of CUDA <= 10.0,
    which carried the toolkit version (libcublas.so.10.0, cufft64_100.dll, libcusolver.so.9.0). Names like
    libcublas.so.10 or cufft64_10.dll fit several releases: ''."""
    if family(name) == "cudart":
        return cuda_of_runtime(name)
    if family(name) not in _CUDA_FAMILIES:
        return ""
    suffix = version_suffix(name)
    if "." in suffix and len(vkey(suffix)) == 2 and vkey(suffix) <= (10, 0):
        return "{}.{}".format(*vkey(suffix))
    if suffix.isdigit() and len(suffix) >= 2 and suffix.endswith("0") and int(suffix) <= 100:
        return f"{suffix[:-1]}.0"
    return ""


_CUDA_FAMILIES = ("cublas", "cufft", "curand", "cusolver", "cusparse", "nvrtc")


def same_library(a, b):
    """One library spelt two ways (libcudnn.so.8 and cudnn64_8.dll)."""
    return a.lower() == b.lower() or dll_name(a).lower() == b.lower() or dll_name(b).lower() == a.lower()
