"""The catalogue of the NVIDIA driver's kernel-side messages and its tools (see builder.diagnose.patterns for how
entries are made and where each message comes from: builder/diagnose/rules/SOURCES.md)."""

from builder.diagnose.needles import pattern as _p

# The driver's kernel side and its tools, as the shell and modprobe print them.
DRIVER = [
    # CUDA's link-time stub libcuda (lib64/stubs): every driver call answers CUDA_ERROR_STUB_LIBRARY (34; cuda.h "the
    # CUDA driver that the application has loaded is a stub library"), cudaGetErrorString's "CUDA driver is a stub
    # library"; as TF ("UNKNOWN ERROR (34)"), Warp ("(CUDA error 34)") and numba ("CudaAPIError: [34]") print it
    ("stub_libcuda", _p(r"(stubs/libcuda\.so[\d.]{0,8}|CUDA_ERROR_STUB_LIBRARY|cudaErrorStubLibrary|UNKNOWN ERROR "
                        r"\(34\)|CUDA driver is a stub library|\(CUDA error 34\)|CudaAPIError: \[34\])",
                        "stubs/libcuda", "CUDA_ERROR_STUB_LIBRARY", "cudaErrorStubLibrary", "UNKNOWN ERROR (34)",
                        "CUDA driver is a stub library", "(CUDA error 34)", "CudaAPIError: [34]")),
    # PyTorch's wording of cuInit's CUDA_ERROR_UNKNOWN (c10/cuda)
    ("cuda_unknown", _p(r"CUDA unknown error")),
    # CUDA_ERROR_SYSTEM_NOT_READY (802): NVSwitch systems whose fabric manager is not running
    ("system_not_ready", _p(r"([Ss]ystem not yet initialized|CUDA_ERROR_SYSTEM_NOT_READY|nvidia-fabricmanager|"
                            r"[Ff]abric [Mm]anager)", "ystem not yet initialized", "CUDA_ERROR_SYSTEM_NOT_READY",
                            "fabricmanager", "abric manager", "abric Manager")),
    ("cuda_device_count", _p(r"Unexpected error from cudaGetDeviceCount\(\)")),
    ("smi_not_found", _p(r"(nvidia-smi: command not found|command not found: nvidia-smi)", "nvidia-smi")),
    # a program that ran nvidia-smi and got an error exit (ollama's routes.go: "... check that you have installed
    # GPU drivers: nvidia-smi command failed"; many monitoring scripts say the same words)
    ("smi_failed", _p(r"nvidia-smi command failed")),
    # PyTorch's c10/cuda/CUDAFunctions.cpp when cudaGetDeviceCount says insufficient driver and no driver version
    # can be read: libcuda is not there (torch/cuda/__init__.py _check_driver says the same)
    ("torch_no_driver", _p(r"Found no NVIDIA driver on your system")),
    # NVML's init errors (nvml.h: NVML_ERROR_DRIVER_NOT_LOADED = 9, NVML_ERROR_LIBRARY_NOT_FOUND = 12) by number as
    # ollama's gpu_info_nvml.c / gpu_info_cuda.c print them ("nvml vram init failure: 9", "nvmlInit_v2 err: 9",
    # "nvml vram init failure: Driver Not Loaded (9)", "... nvml error 9")
    ("nvml_init", _p(r"(?:nvml vram init failure|nvmlInit(?:_v\d)? err(?:or)?):\s{0,3}(?:nvml error |[A-Za-z ]{1,40}"
                     r"\()?(9|12)\b", "nvml vram init failure", "nvmlInit")),
    # ... and by name: nvml.h's enum, pynvml's exception classes, nvmlErrorString's words after NVML's init
    ("nvml_init", _p(r"(NVML_ERROR_DRIVER_NOT_LOADED|NVML_ERROR_LIBRARY_NOT_FOUND|NVMLError_DriverNotLoaded|"
                     r"NVMLError_LibraryNotFound)", "NVML_ERROR_", "NVMLError_")),
    ("modprobe_error", _p(r"modprobe: (?:ERROR|FATAL): [^\n]{0,60}nvidia[^\n]{0,80}", "modprobe: ")),
    # kmod's modprobe when /lib/modules/$(uname -r) has no such module (tools/modprobe.c: "Module %s not found in
    # directory %s"; older kmod "Module %s not found."): no NVIDIA kernel module built for the running kernel
    ("kmod_not_found", _p(r"modprobe: FATAL: Module (nvidia[\w-]{0,20}) not found", "modprobe: FATAL: Module")),
]
