"""The catalogue of the NVIDIA driver's messages (its kernel module, its tools, NVML), the CUDA runtime's and the
frameworks' words for a driver or device failure (PyTorch, JAX/XLA), and the CPU's (see builder.diagnose.patterns
for how entries are made and where each message comes from: builder/diagnose/rules/SOURCES.md)."""

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
    # (Ubuntu's command-not-found hook: "Command 'nvidia-smi' not found, but can be installed with:")
    ("smi_not_found", _p(r"(nvidia-smi: command not found|command not found: nvidia-smi|"
                         r"Command 'nvidia-smi' not found)", "nvidia-smi")),
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
    # kmod's modprobe refusing the module: with Secure Boot an unsigned module ("Key was rejected by service"), no GPU
    # the module drives ("No such device"), a module built for another kernel ("Exec format error", "Unknown symbol",
    # "Invalid argument"); the reason is the text after the module name
    ("modprobe_refused", _p(r"could not insert 'nvidia[\w-]{0,12}': ([^\n]{1,80})", "could not insert 'nvidia")),
    # the kernel module's own report (dmesg): nvidia.ko's API check in its newer wording (osapi.c: "API mismatch: the
    # client '%s' (pid %u)\nNVRM: has the version %s, but this kernel module has\nNVRM: the version %s.")
    # (syslog writes its newlines as "#012": "API mismatch: the client has the version 535.54.03, but#012NVRM: this")
    ("nvrm_api_mismatch", _p(r"API mismatch: the client '[^'\n]{0,60}' \(pid \d{1,8}\)(?:[|>\s]+|#012)(?:NVRM:\s+)?"
                             r"has the version ([\d.]{1,20}), but this kernel module has(?:[|>\s]+|#012)(?:NVRM:\s+)?"
                             r"the version ([\d.]{1,20})", "API mismatch", span=2)),
    ("nvrm_api_mismatch", _p(r"API mismatch: the client has the version ([\d.]{1,20}), but#012NVRM: this kernel module "
                             r"has the version ([\d.]{1,20})", "but#012NVRM")),
    # nvidia.ko (osapi.c) for a GPU this driver release does not drive, and the proprietary module's legacy check
    # ("... GPU installed in this system is\nNVRM:  supported through the NVIDIA 470.xx Legacy drivers"): the branch
    ("nvrm_unsupported_gpu", _p(r"(?:installed in this system is not supported by the[|>\s]+(?:NVRM:\s+)?NVIDIA "
                                r"([\d.]{2,20}) driver release|supported through the NVIDIA (\d{3})\.xx Legacy "
                                r"drivers)",
                                "installed in this system is not supported by the", "Legacy drivers", span=True)),
    # ... and for a GPU without a GSP that the open flavour of the module cannot drive (Maxwell, Pascal, Volta)
    ("nvrm_open_unsupported", _p(r"installed in this system is not supported by open[|>\s]+(?:NVRM:\s+)?nvidia\.ko",
                                 "installed in this system is not supported by open", span=True)),
    # a GPU that stopped answering: nvidia.ko "has fallen off the bus" (osinit.c, Xid 79), NVML's
    # NVML_ERROR_GPU_IS_LOST ("GPU is lost") as nvidia-smi prints it
    ("gpu_lost", _p(r"(fallen off the bus|GPU is lost|NVML_ERROR_GPU_IS_LOST|NVMLError_GPUIsLost)",
                    "fallen off the bus", "GPU is lost", "NVML_ERROR_GPU_IS_LOST", "NVMLError_GPUIsLost")),
    # the GPU's firmware processor not answering the driver (kernel_gsp.c: "Timeout after %llus of waiting for RPC
    # response from GPU%d GSP!"; Xid 119 and 120)
    ("gsp_timeout", _p(r"(waiting for RPC response from GPU\d{1,2} GSP|Xid \(PCI:[\dA-Fa-f:.]{4,16}\): 1(?:19|20)\b)",
                       "waiting for RPC response from GPU", "Xid (PCI:")),
    # nvidia-smi when NVML cannot reach one GPU it enumerated ("Unable to determine the device handle for GPU%s: %s"),
    # the lost GPU's usual words on a host
    ("gpu_lost", _p(r"Unable to determine the device handle for GPU ?[\dA-Fa-f:.]{4,20}: (Unknown Error|GPU is lost)",
                    "Unable to determine the device handle")),
    # no NVIDIA GPU at all: nvidia.ko (nv.c "No NVIDIA GPU found.", "No NVIDIA devices probed.", "No NVIDIA PCI devices
    # found."), nvidia-smi's own line, PyTorch's device_count_ensure_non_zero, JAX/XLA's CUDA client
    ("no_device", _p(r"(NVRM: No NVIDIA (?:GPU found|devices probed|PCI devices found)|"
                     r"(?m:^[>|\s]*No devices were found\s*$)|No CUDA GPUs are available|No visible GPU devices|"
                     r"no supported devices found for platform CUDA)",
                     "NVRM: No NVIDIA", "No devices were found", "No CUDA GPUs are available", "No visible GPU devices",
                     "no supported devices found for platform CUDA")),
    # jaxlib's and numba's own cuInit calls (jaxlib/cuda/versions_helpers.cc: "operation cuInit(0) failed: %s";
    # numba/cuda/cudadrv/driver.py: "Call to cuInit results in %s (%d)")
    ("cuinit", _p(r"(?:operation cuInit\(0\) failed:|Call to cuInit results in)\s*([^\n]{0,300})",
                  "operation cuInit(0) failed", "Call to cuInit results in")),
    # PyCUDA's driver errors (src/cpp/cuda.hpp: "%s failed: %s", the call and its own short name of the CUresult,
    # "cuInit failed: unknown", "cuInit failed: no device"; later ones the error string's text, "unknown error"): read
    # as the result's number (cuda_results.code_of_text)
    ("cuinit_pycuda", _p(r"cuInit failed: ([A-Za-z -]{2,60}?)\s*$", "cuInit failed: ")),
    # a CUDA result printed only as its number (builder.diagnose.cuda_results reads it as its name): cuInit's result in
    # ollama's GPU discovery (discover/gpu_info_nvcuda.c: "cuda driver library init failure: %d", its verbose "cuInit
    # err: %d") and numba's when its own table lacks the code (driver.py: CudaAPIError "[%s] %s" of "Call to %s results
    # in %s" with UNKNOWN_CUDA_ERROR; newer numba "... UNKNOWN_CUDA_ERROR (%d)" is the cuinit pattern's)
    ("cuinit_code", _p(r"(?:cuda driver library init failure|cuInit err): (\d{1,4})\b", "init failure: ",
                       "cuInit err: ")),
    ("cuinit_code", _p(r"\[(\d{1,4}) ?\] ?[Cc]all to cuInit results in UNKNOWN_CUDA_ERROR",
                       "all to cuInit results in")),
    # ... and cudaSetDevice's in ollama's runtime probe (discover/gpu_info_cudart.c: "cudart init failure: %d", its
    # verbose "cudaSetDevice err: %d"; the runtime's cudaError numbers)
    ("cuda_code", _p(r"(?:cudart init failure|cudaSetDevice err): (\d{1,4})\b", "cudart init failure: ",
                     "cudaSetDevice err: ")),
    # ... and a driver call's in LAMMPS' Geryon library, its device setup starting with cuInit
    # (lib/gpu/geryon/nvd_macros.h: "Cuda driver error %d in call at file '%s' in line %i.")
    ("cuinit_code", _p(r"Cuda driver error (\d{1,4}) in call at file", "Cuda driver error ")),
    # numba when no libcuda is there at all (driver.py: "CUDA driver library cannot be found.")
    ("no_driver_lib", _p(r"CUDA driver library cannot be found")),
    # the runtime's cudaGetErrorString / the driver's cuGetErrorString text behind a code (PyTorch's "Error 500: named
    # symbol not found", "CUDA error: invalid device ordinal", TF's "Status: ..."), for the codes cuinit-error fixes
    # (ggml-cuda's ggml_cuda_init: "%s: failed to initialize CUDA: %s" with cudaGetErrorString's text)
    # (and glog's CHECK_EQ(error, cudaSuccess) << " " << cudaGetErrorString(error), Caffe's CUDA_CHECK and its kin:
    # "Check failed: error == cudaSuccess (30 vs. 0) unknown error", the number of CUDA 10's enum or a later one)
    ("cuda_status_text", _p(r"(?:(?:CUDA error|[Ee]rror \d{1,3}|Status|CUresult\(\d{1,3}\)|failed to initialize "
                            r"CUDA): |-> |error=\d{1,3} : |cuda runtime error \(\d{1,3}\) : |"
                            r"== cudaSuccess \(\d{1,3} vs\. 0\) )("
                            r"named symbol not found|OS call failed or operation not supported on this OS|"
                            r"invalid device ordinal|initialization error|unknown error|PTX JIT compiler library not "
                            r"found|MPS client failed to connect|device doesn't have valid Grid license)",
                            "named symbol not found", "OS call failed", "invalid device ordinal",
                            ": initialization error", ": unknown error", "-> unknown error", "PTX JIT compiler library",
                            "MPS client failed to connect", "valid Grid license", "vs. 0) unknown error",
                            "vs. 0) initialization error", "vs. 0) invalid device ordinal")),
    # PyTorch's _lazy_init in a child of a process that had started CUDA (torch/cuda/__init__.py): CUDA after fork()
    ("cuda_status_text", _p(r"Cannot re-initialize CUDA in forked (subprocess)")),
    # PyTorch's wording of cudaErrorInitializationError from the first device count (c10/cuda/CUDAFunctions.cpp)
    ("cuda_unknown", _p(r"CUDA driver initialization failed, you might not have a CUDA gpu")),
    # the driver older than what a program's CUDA needs, in XLA's words (its PTX compiler newer than the driver: the
    # driver answered, so no WSL paravirtualisation problem) and the driver's for PTX from a newer CUDA
    # (CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222, "the provided PTX was compiled with an unsupported toolchain", as JAX,
    # Triton and numba print it)
    ("driver_older", _p(r"(The NVIDIA driver's CUDA version is [\d.\n]{2,12} which is older than the "
                               r"(?:ptxas CUDA version|PTX compiler version)(?: \(?(\d[\d.]{1,11}))?|"
                               r"CUDA_ERROR_UNSUPPORTED_PTX_VERSION|"
                               r"cudaErrorUnsupportedPtxVersion|the provided PTX was compiled with an unsupported "
                               r"toolchain)", "The NVIDIA driver's CUDA version is", "UNSUPPORTED_PTX_VERSION",
                               "UnsupportedPtxVersion", "PTX was compiled with an unsupported toolchain", span=True)),
    # ptxas (the driver's JIT in cuLink*, or the toolkit's) given PTX of a newer ISA than it knows: "ptxas application
    # ptx input, line 9; fatal   : Unsupported .version 7.1; current version is '7.0'" (the PTX ISA versions of two
    # CUDA releases: matrix.yaml nvidia.cuda_for_ptx_isa)
    ("ptx_isa", _p(r"Unsupported \.version (\d{1,2}\.\d); current version is '(\d{1,2}\.\d)'",
                   "Unsupported .version")),
    # FFmpeg's NVENC encoders (libavcodec/nvenc.c nvenc_load_libraries: "Driver does not support the required nvenc
    # API version. Required: %d.%d Found: %d.%d", then nvenc_print_driver_requirement's "The minimum required Nvidia
    # driver for nvenc is %s or newer", "(unknown)" for an API newer than its table), as FFmpeg, OBS and their kin
    # print them
    ("nvenc_api", _p(r"Driver does not support the required nvenc API version\.\s{0,4}(?:\\\s{0,4})?Required: "
                     r"(\d{1,2}\.\d{1,2}) Found: (\d{1,2}\.\d{1,2})", "Driver does not support the required nvenc",
                     span=True)),
    # ... and when the driver's video library is not there at all (nv-codec-headers' dynlink_loader.h LOAD_LIBRARY:
    # "Cannot load %s", NVENC's libnvidia-encode.so.1 / nvEncodeAPI64.dll, NVDEC's libnvcuvid.so.1 / nvcuvid.dll;
    # FFmpeg prints its driver floor after it, as a note)
    ("nvenc_lib_missing", _p(r"Cannot load (libnvidia-encode\.so\.1|nvEncodeAPI(?:64)?\.dll|libnvcuvid\.so\.1|"
                             r"nvcuvid\.dll)", "Cannot load ")),
    ("nvenc_driver_min", _p(r"The minimum required Nvidia driver for nvenc is ([\d.]{3,12}|\(unknown\)) or newer",
                            "The minimum required Nvidia driver for nvenc")),
    # NVRTC (the CUDA run-time compiler a program or PyTorch's JIT fusers ship) asked for an architecture its CUDA
    # does not know: "nvrtc: error: invalid value for --gpu-architecture (-arch)"
    ("nvrtc_arch", _p(r"nvrtc: error: invalid value for --gpu-architecture", "invalid value for --gpu-architecture")),
    # the runtime's cudaErrorCallRequiresNewerDriver (36): the program calls an API the installed driver lacks
    ("driver_older", _p(r"(cudaErrorCallRequiresNewerDriver|API call is not supported in the installed CUDA driver)",
                        "cudaErrorCallRequiresNewerDriver", "API call is not supported in the installed CUDA driver")),
    # nvidia-smi's NVML start in nvmlErrorString's words for NVML_ERROR_DRIVER_NOT_LOADED
    ("nvml_init", _p(r"Failed to initialize NVML: (Driver Not Loaded)")),
    # PyTorch's capability checks (torch/cuda/__init__.py _check_capability): a GPU below the build's oldest
    # architecture ("Found GPU0 %s which is of cuda capability %d.%d. PyTorch no longer supports this GPU because it is
    # too old. The minimum cuda capability supported by this library is %d.%d.") and one the build has no code for
    ("gpu_ignored", _p(r"which is of cuda capability (\d{1,2}\.\d)")),
    # (PyTorch 1.3-1.5: "The minimum cuda capability that we support is %d.%d.")
    ("min_capability", _p(r"minimum cuda capability (?:supported by this library|that we support) is (\d{1,2}\.\d)",
                          "minimum cuda capability")),
    # cuDNN's and cuBLAS's status for a GPU older than their oldest architecture (cuDNN 9: _NOT_SUPPORTED_ARCH_MISMATCH)
    ("arch_mismatch", _p(r"(CUDNN_STATUS_(?:NOT_SUPPORTED_)?ARCH_MISMATCH|CUBLAS_STATUS_ARCH_MISMATCH)",
                         "ARCH_MISMATCH")),
    ("arch_not_built", _p(r"with CUDA capability (sm_\d{2,3}) is not compatible with the current PyTorch installation",
                          "is not compatible with the current PyTorch")),
    # other programs' own oldest GPU, in their words (the GPU's compute capability and their minimum where they say
    # them): Triton through PyTorch's inductor (torch/_inductor/exc.py GPUTooOldForTriton, before it scheduler.py:
    # "Found %s which is too old to be supported by the triton GPU compiler, which is used as the backend. Triton only
    # supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability %d.%d")
    ("triton_too_old", _p(r"too old to be supported by the triton GPU compiler(?:[\s\S]{0,120}?Capability >= ?"
                          r"(\d{1,2}\.\d)[\s\S]{0,60}?capability (\d{1,2}\.\d))?",
                          "too old to be supported by the triton", span=True)),
    # FlashAttention 2's check of the device (csrc/flash_attn/flash_api.cpp TORCH_CHECK(is_sm90 || is_sm8x, ...), the
    # same words in the packages that vendor it or warn before falling back)
    ("flash_attn_arch", _p(r"FlashAttention only supports Ampere GPUs or newer")),
    # ollama's GPU discovery (discover/gpu.go until its December 2025 rewrite, 2f1eb0f): "[%d] CUDA GPU is too old.
    # Compute Capability detected: %d.%d" below its CudaComputeMajorMin (5); since (discover/llama_server.go)
    # "skipping CUDA device — compute capability not in compiled architectures" with the device's cc and the build's
    # archs as slog fields
    ("ollama_too_old", _p(r"CUDA GPU is too old\. Compute Capability detected: (\d{1,2}\.\d)",
                          "CUDA GPU is too old")),
    # (the fields may run into the next row of a terminal's wrap: span)
    ("ollama_not_built", _p(r"skipping CUDA device [^\n]{1,4} ?compute capability not in compiled architectures"
                            r"[\s\S]{0,200}?\bcc=\"?(\d{2,3})\"?[\s\S]{0,200}?\barchs=\"?([\d;, ]{2,80})",
                            "compute capability not in compiled architectures", span=True)),
    # ollama's driver floor for its CUDA build (discover/cuda_compat.go: slog "NVIDIA driver too old" with the driver's
    # major and required_driver="550 or newer" / "570 or newer" as fields)
    ("ollama_driver_old", _p(r"NVIDIA driver too old\"?[\s\S]{0,200}?\bdriver=\"?(\d{3})[\s\S]{0,80}?"
                             r"required_driver=\"?(\d{3})", "NVIDIA driver too old", span=True)),
    # ollama's words for cuInit's result (discover/gpu.go loadNVCUDAMgmt until 2f1eb0f): CUDA_ERROR_NO_DEVICE "no
    # nvidia devices detected by library %s", CUDA_ERROR_UNKNOWN "unknown error initializing cuda driver library %s",
    # CUDA_ERROR_INSUFFICIENT_DRIVER or _SYSTEM_DRIVER_MISMATCH "version mismatch between driver and cuda driver
    # library - reboot or upgrade may be required" (read as their numbers: builder.diagnose.cuda_results.SAID)
    ("cuinit_said", _p(r"(no nvidia devices detected by library|unknown error initializing cuda driver library|"
                       r"version mismatch between driver and cuda driver library)",
                       "no nvidia devices detected by library", "unknown error initializing cuda driver library",
                       "version mismatch between driver and cuda driver library")),
    # out of GPU memory in PyTorch's (CUDACachingAllocator), JAX/XLA's and the runtime's words
    # (cudaErrorMemoryAllocation); also the common CUDA_CHECK macro's "CUDA error %d at %s:%d: %s" with error 2
    # (ggml-cuda.cu's before it named the function: ggerganov/llama.cpp ggml-cuda.cu @11f3ca06, as llama.cpp,
    # llama-cpp-python and ollama print it)
    ("oom", _p(r"(CUDA out of memory\. Tried to allocate [^\n]{0,120}|OutOfMemoryError: CUDA out of memory|"
               r"Out of memory while trying to allocate [^\n]{0,60}|(?:CUDA error|Status|[Ee]rror 2): out of memory|"
               r"CUDA error 2 at [^\n:]{1,200}:\d{1,6}: out of memory)",
               "CUDA out of memory", "Out of memory while trying", ": out of memory")),
    # TF's and XLA's asm_compiler when the ptxas it found cannot be started ("Failed to launch ptxas")
    ("ptxas", _p(r"(Failed to launch ptxas[^\n]{0,120})", "Failed to launch ptxas")),
    # SIGILL in Simplified Chinese (bash's and glibc's zh_CN: "非法指令 (核心已转储)", "Illegal instruction (core
    # dumped)")
    ("illegal_instruction", _p(r"(非法指令)", "非法指令")),
    # cmd.exe when no driver put nvidia-smi on PATH, in English and Simplified Chinese
    ("smi_not_found", _p(r"('nvidia-smi' is not recognized as an internal or external command|"
                         r"'nvidia-smi' 不是内部或外部命令)",
                         "'nvidia-smi' is not recognized", "'nvidia-smi' 不是内部或外部命令")),
]
