"""The CUDA result codes explain reads, in one table: the driver API's CUresult (cuda.h), the runtime's cudaError
(driver_types.h, the same number for each of these results) and the text cuGetErrorString / cudaGetErrorString give.

Programs print a result in any of these forms: TF and jaxlib the CUresult name, numba the name and the number
("Call to cuInit results in CUDA_ERROR_NO_DEVICE (100)"; "[802] Call to cuInit results in UNKNOWN_CUDA_ERROR" when
its own table lacks the code), CuPy and RAPIDS the cudaError name with the text ("cudaErrorUnknown: unknown error"),
ggml-cuda the text only, ollama the number only ("cuda driver library init failure: 999"). Whatever the form, the rules
read the CUresult name (`canonical`); a number alone becomes that name in the parser (`as_events`).
Names and numbers: cuda.h as NVIDIA/libnvidia-container src/cuda.h carries it (stored e3322a9b) and the runtime's
driver_types.h names as CuPy's runtime.pyx and the CUDA programs print them (builder/diagnose/rules/SOURCES.md)."""

import re

# (code, CUresult name, cudaError name, the text both error-string functions give)
RESULTS = (
    (3, "CUDA_ERROR_NOT_INITIALIZED", "cudaErrorInitializationError", "initialization error"),
    (34, "CUDA_ERROR_STUB_LIBRARY", "cudaErrorStubLibrary", "CUDA driver is a stub library"),
    (35, "CUDA_ERROR_INSUFFICIENT_DRIVER", "cudaErrorInsufficientDriver",
     "CUDA driver version is insufficient for CUDA runtime version"),
    (46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "cudaErrorDevicesUnavailable",
     "CUDA-capable device(s) is/are busy or unavailable"),
    (100, "CUDA_ERROR_NO_DEVICE", "cudaErrorNoDevice", "no CUDA-capable device is detected"),
    (101, "CUDA_ERROR_INVALID_DEVICE", "cudaErrorInvalidDevice", "invalid device ordinal"),
    (102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "cudaErrorDeviceNotLicensed", "device doesn't have valid Grid license"),
    (221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "cudaErrorJitCompilerNotFound", "PTX JIT compiler library not found"),
    (303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "cudaErrorSharedObjectInitFailed",
     "shared object initialization failed"),
    (304, "CUDA_ERROR_OPERATING_SYSTEM", "cudaErrorOperatingSystem",
     "OS call failed or operation not supported on this OS"),
    (500, "CUDA_ERROR_NOT_FOUND", "cudaErrorSymbolNotFound", "named symbol not found"),
    (802, "CUDA_ERROR_SYSTEM_NOT_READY", "cudaErrorSystemNotReady", "system not yet initialized"),
    (803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "cudaErrorSystemDriverMismatch",
     "system has unsupported display driver / cuda driver combination"),
    (804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "cudaErrorCompatNotSupportedOnDevice",
     "forward compatibility was attempted on non supported HW"),
    (805, "CUDA_ERROR_MPS_CONNECTION_FAILED", "cudaErrorMpsConnectionFailed",
     "MPS client failed to connect to the MPS control daemon or the MPS server"),
    (999, "CUDA_ERROR_UNKNOWN", "cudaErrorUnknown", "unknown error"),
)
BY_CODE = {str(code): name for code, name, _, _ in RESULTS}
# PyCUDA's own short names of these results (src/cpp/cuda.hpp curesult_to_str, stored 8921033344)
PYCUDA = {"not initialized": 3, "no device": 100, "invalid device": 101, "unknown": 999}
# ollama's own words for cuInit's result (discover/gpu.go loadNVCUDAMgmt, until ollama/ollama 2f1eb0f of December
# 2025); it says the same words for 35 and 803 ("reboot or upgrade may be required"): read as 803, a driver updated
# without a reboot
SAID = {"no nvidia devices detected by library": 100, "unknown error initializing cuda driver library": 999,
        "version mismatch between driver and cuda driver library": 803}
# every spelling of a result -> its CUresult name (the runtime's names; the plural spelling earlier rules used)
_NAMES = dict([(runtime, name) for _, name, runtime, _ in RESULTS] + [(name, name) for _, name, _, _ in RESULTS]
              + [("CUDA_ERROR_DEVICES_UNAVAILABLE", "CUDA_ERROR_DEVICE_UNAVAILABLE")])
_NAME = re.compile(r"\b({})\b".format("|".join(sorted(_NAMES, key=len, reverse=True))))
# the kinds the message with the name itself gives (builder.diagnose.patterns), for a number printed alone
_KINDS = {"CUDA_ERROR_INSUFFICIENT_DRIVER": "insufficient_driver",
          "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": "system_driver_mismatch",
          "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": "compat_not_supported",
          "CUDA_ERROR_STUB_LIBRARY": "stub_libcuda", "CUDA_ERROR_SYSTEM_NOT_READY": "system_not_ready"}


def code_of_text(text):
    """The number of a result named by PyCUDA's short name ("no device"), ollama's words or the error-string text
    ("unknown error"), '' when none names one."""
    text = text.strip()
    code = PYCUDA.get(text) or SAID.get(text) or next((c for c, _, _, words in RESULTS if words == text), "")
    return str(code)


def canonical(name):
    """The CUresult name of a result named either way ("cudaErrorUnknown" -> "CUDA_ERROR_UNKNOWN"), else `name`."""
    return _NAMES.get(name, name)


def names_in(text):
    """The CUresult names of the results `text` names in either spelling (whole names: cudaErrorInvalidDeviceFunction
    is not cudaErrorInvalidDevice), in the order the text names them."""
    return [_NAMES[m.group(1)] for m in _NAME.finditer(text)]


def as_events(code_kind, code):
    """(kind, groups) pairs a result printed only as its number reads as: cuInit's result as a "cuinit" event in
    numba's words ("CUDA_ERROR_UNKNOWN (999)"), another call's as a "cuda_error" name; and the kind of the message
    that names it, where one has a rule (35 insufficient_driver, 803 system_driver_mismatch, ...). Unknown codes
    read as nothing."""
    name = BY_CODE.get(code.lstrip("+"))
    if not name:
        return []
    first = ("cuinit", (f"{name} ({code})",)) if code_kind == "cuinit_code" else ("cuda_error", (name,))
    return [first] + ([(_KINDS[name], (name,))] if name in _KINDS else [])
