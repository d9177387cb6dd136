"""Version numbers and library names: compare versions, spell a Linux soname the Windows way, and read
which CUDA a library name belongs to. Rules, not tables: the tables live in matrix.yaml."""

import re

_NUMBER = re.compile(r"\d+")
# lib<family>.so.<version>; families may carry '_' and '-' (libcudnn_ops.so.9, libnvrtc-builtins.so.11.8)
_SONAME = re.compile(r"lib([\w-]+?)\.so\.([\d.]+)$")
# <family>64_<version>.dll: cudart64_110.dll, cudnn_ops64_9.dll, cudnn_cnn_infer64_8.dll, nvrtc-builtins64_121.dll;
# NVRTC's own DLL adds "_0" (nvrtc64_112_0.dll, nvrtc64_120_0.dll)
_DLL = re.compile(r"([A-Za-z][\w-]*?)64_(\d+(?:\.\d+)*)(?:_0)?\.dll$", re.IGNORECASE)


def vkey(version):
    """'470.82.01' -> (470, 82, 1); stops at the first part that is not a number."""
    parts = []
    for part in str(version or "").split("."):
        m = _NUMBER.match(part)
        if not m:
            break
        parts.append(int(m.group()))
    return tuple(parts)


def as_printed(version):
    """The numeric parts of a version as the program printed them: '580.173.02)' -> '580.173.02' (driver versions
    keep their zero: 580.173.2 is another number to a user who compares it with nvidia-smi)."""
    parts = []
    for part in str(version or "").split("."):
        m = _NUMBER.match(part)
        if not m:
            break
        parts.append(m.group())
        if m.end() < len(part):
            break
    return ".".join(parts)


def line_of(version):
    """'2.9.3' -> '2.9' (a TensorFlow or CUDA release line)."""
    return ".".join(str(p) for p in vkey(version)[:2])


def compute_capability(target):
    """A GPU target as CUDA's tools name it, with or without its prefix ('sm_86', '86', 'compute_120') -> '8.6',
    '12.0'."""
    digits = target.rsplit("_", 1)[-1]
    return f"{digits[:-1]}.{digits[-1]}"


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


def _toolkit_of_suffix(suffix):
    """The (major, minor) of a CUDA toolkit a name's version suffix spells, else None.

    Linux names of CUDA <= 10.0 carry the toolkit (libcublas.so.10.0, libcudart.so.9.2) and so do every cudart
    and CUPTI name (libcudart.so.10.1, libcupti.so.11.2); a one-part suffix (libcublas.so.10, .so.11) is the
    library's own major version. Windows DLL names run the digits together: three digits are a toolkit of 10.0
    and later (cufft64_100.dll, cudart64_110.dll), two digits from 70 to 99 one of CUDA 7-9 (cublas64_92.dll);
    any other two digits (cublas64_10.dll, cusolver64_11.dll) are again the library's major version.
    """
    if "." in suffix:
        parts = vkey(suffix)
        return parts[:2] if len(parts) == 2 else None
    if not suffix.isdigit():
        return None
    if len(suffix) == 3:
        return int(suffix[:2]), int(suffix[2])
    if len(suffix) == 2 and int(suffix) >= 70:
        return int(suffix[0]), int(suffix[1])
    return None


def cuda_of_runtime(name):
    """The CUDA release a cudart name belongs to: cudart64_101.dll and libcudart.so.10.1 are '10.1';
    CUDA 11 and 12 keep one runtime soname for the whole major release, so cudart64_110.dll is '11.x'."""
    if family(name) != "cudart":
        return ""
    suffix = version_suffix(name)
    toolkit = _toolkit_of_suffix(suffix)
    major = toolkit[0] if toolkit else (int(suffix) if suffix.isdigit() and len(suffix) <= 2 else 0)
    if major >= 11:
        return f"{major}.x"
    return "{}.{}".format(*toolkit) if toolkit else ""


def cuda_of_library(name):
    """The CUDA release a library name pins down, '' when it fits several: every cudart name, every CUPTI name
    (libcupti.so.11.2 is 11.2), and the other CUDA libraries while their names still carried the toolkit
    (CUDA <= 10.0: libcublas.so.10.0, cufft64_100.dll); NVRTC's builtins name their toolkit too
    (libnvrtc-builtins.so.11.8, nvrtc-builtins64_121.dll). libcublas.so.10 or cusolver64_10.dll (CUDA 10.1 and
    10.2) and libcufft.so.10 (CUDA 10.1 to 11.x) say no release; cuBLAS 11 and 12 say their major (11.x, 12.x)."""
    fam = family(name)
    if fam == "cudart":
        return cuda_of_runtime(name)
    suffix = version_suffix(name)
    if fam in _MAJOR_IS_TOOLKIT and suffix.isdigit() and 11 <= int(suffix) <= 30:  # 70-99: CUDA 7-9 names
        return f"{suffix}.x"  # since CUDA 11 cuBLAS's major is the toolkit's: cublas64_12.dll ships with CUDA 12.x
    toolkit = _toolkit_of_suffix(suffix)
    if not toolkit or fam not in _CUDA_FAMILIES + ("cupti",):
        return ""
    if fam == "nvrtc" and toolkit >= (11, 2):  # NVRTC keeps one name per major since 11.2: libnvrtc.so.11.2,
        return f"{toolkit[0]}.x"  # nvrtc64_112_0.dll for all of 11.2-11.8, nvrtc64_120_0.dll for 12.x
    if fam in ("cupti", "nvrtc", "nvrtc-builtins") or toolkit <= (10, 0):
        return "{}.{}".format(*toolkit)
    return ""


# libraries whose one-part soname (or DLL suffix) is the toolkit's major since CUDA 11: libcublas.so.12,
# libnvrtc.so.12 and libnvJitLink.so.12 ship with CUDA 12.x (cuFFT, cuSOLVER, cuSPARSE keep their own majors)
_MAJOR_IS_TOOLKIT = ("cublas", "cublaslt", "nvrtc", "nvjitlink")
_CUDA_FAMILIES = ("cublas", "cublaslt", "cufft", "curand", "cusolver", "cusparse", "nvrtc", "nvrtc-builtins",
                  "nvjitlink")


def same_library(a, b):
    """One library spelt two ways (libcudnn.so.8 and cudnn64_8.dll)."""
    return a.lower() == b.lower() or dll_name(a).lower() == b.lower() or dll_name(b).lower() == a.lower()
