"""The library loaders' messages: a library (an NVIDIA one, or one a framework needs) that did not load, in the
words of every loader and framework that prints it: glibc's dlerror (English and zh_CN), the Windows loader and
FormatMessage texts (English and Simplified Chinese) as CPython, ctypes and the loader dialog show them, TF's
dso_loader and self_check, cuDNN's own sub-library loader (8 and 9), PyTorch, ONNX Runtime, CTranslate2, JAX,
PaddlePaddle, NVRTC and bitsandbytes. Sources: builder/diagnose/rules/SOURCES.md."""

from builder.diagnose.needles import pattern as _p

# (kind, pattern): load_fail's groups are (library, the loader's reason or None); so_missing / dll_missing name the
# library alone (builder.diagnose.parse.Log.failed_libraries reads all three)
LOADER = [
    ("load_fail", _p(r"Could not (?:load dynamic|dlopen)\s+library\s+'([^'\s]{1,200})'"
                     r"(?:;\s*dlerror:\s*([^\n]{0,2000}))?", "Could not load dynamic", "Could not dlopen", span=True)),
    ("load_fail", _p(r"Could not find '([\w.-]{1,100}\.dll)'")),
    ("load_fail", _p(r"Could not find the DLL\(s\) '([^'\n]{1,200})'")),
    # the same self_check message as a translated traceback prints it ("... DLL ( s) 'msvcp140.dll hoặc ...'")
    ("load_fail", _p(r"DLL ?\( ?s\) '([^'\n]{1,200}\.dll)'", "DLL ( s) '", "DLL (s) '", "DLL( s) '")),
    ("load_fail", _p(r"Could not locate (\w{1,60}\.dll)")),
    ("load_fail", _p(r"Could not load library (\w{1,60}\.(?:dll|so(?:\.\d{1,6}){0,4}))")),
    # Julia's Libdl.dlopen (src/dlload.c: "could not load library \"%s\"\n%s", the path as asked, then dlerror or
    # Windows' FormatMessage text; the next line, as Julia's logger indents it under "│"): CUDA.jl and cuDNN.jl
    # loading their artifacts' libraries
    ("load_fail", _p(r'could not load library "(?:[^"\n]{0,260}[\\/])?([\w.+-]{1,100}\.(?:dll|so(?:\.\d{1,6}){0,4}))"'
                     r'[ \t]*(?:\n[│ \t]{0,12}([^\n]{1,300}))?', 'could not load library "', span=True)),
    # CTranslate2's own dlopen/LoadLibrary wrapper (faster-whisper, whisperX): "Library cublas64_12.dll is not found or
    # cannot be loaded", "Library libcublas.so.12 is not found or cannot be loaded" (src/cuda/*_stub.cc since
    # OpenNMT/CTranslate2@ad246259; an issue title or a cut paste keeps "is not found")
    # (a title that drops "Library" still ends "is not found or cannot be loaded")
    ("load_fail", _p(r"(?:Library |(?<![\w.+-])(?=[\w.+-]{1,60}\.(?:dll|so(?:\.\d{1,6}){0,4}) is not found or "
                     r"cannot be loaded))([\w.+-]{1,60}\.(?:dll|so(?:\.\d{1,6}){0,4})) is not found"
                     r"(?: or cannot be loaded)?",
                     "is not found")),
    # numba's library self-test (numba -s, numba.cuda.cudadrv.libs.test(); numba/cuda/cudadrv/libs.py): "Finding %s"
    # (0.43 and older) or "Finding %s from %s" (0.44 and later, the place it looked: Conda environment, CUDA_HOME,
    # System, <unknown>), then "\tERROR: can't locate lib" (up to 0.47) or "\t[Tt]rying to open library...\tERROR:
    # failed to open %s:\n%s" / "\tChecking library...\tERROR: failed to find %s:\n%s"; groups (library, where, reason)
    ("numba_lib", _p(r"Finding (\w{2,20})(?: from ([^\n]{1,60}?))?[ \t]*\n[ \t]{0,12}ERROR: can't locate lib()",
                     "Finding ", span=1)),
    ("numba_lib", _p(r"Finding (\w{2,20})(?: from ([^\n]{1,60}?))?[ \t]*\n"
                     r"(?:[ \t]{0,12}(?:[Ll]ocated at|named)[^\n]{0,300}\n)?"
                     r"[ \t]{0,12}(?:[Tt]rying to open library|Checking library)\.\.\.[ \t]*"
                     r"ERROR: failed to (?:open|find) \1:[ \t]*\n([^\n]{1,300})", "Finding ", span=3)),
    # TF 0.x / 1.x dso_loader.cc: "Couldn't open CUDA library %s. LD_LIBRARY_PATH: %s" (Windows builds end the line
    # after the name)
    ("load_fail", _p(r"Couldn't open CUDA library ([\w.+-]{1,100}?)\.?(?= |$)", "Couldn't open CUDA library")),
    ("load_fail", _p(r"Unable to load ([\w.-]{1,100}\.dll)")),
    # ONNX Runtime 0.x's Windows loader wrapper (its C# and C API exceptions): "kernel32.LoadLibrary():'%s' not found"
    ("load_fail", _p(r"LoadLibrary\(\):'([\w.+-]{1,100}\.dll)' not found", "LoadLibrary():'")),
    # glibc's dlerror (elf/dl-load.c N_("cannot open shared object file")), also as zh_CN.po translates it
    ("so_missing", _p(r"(lib[\w+-]{1,60}\.so(?:\.[\d]{1,6}){0,4})(?:: cannot open shared object file|\s?[:：]\s?"
                      r"无法打开共享对象文件)", 'cannot open shared object file', '无法打开共享对象文件')),
    # ldd's listing of a library's dependencies (glibc elf/rtld.c, trace mode: "\t%s => not found\n"): the loader
    # would not find that one when the library loads
    ("so_missing", _p(r"(?m:^[ \t>|]*(lib[\w+-]{1,60}\.so(?:\.[\d]{1,6}){0,4}) => not found)", " => not found")),
    # the same dlerror reworded by R's torch package (lantern's loader): "%s: Unable to open shared object file"
    ("so_missing", _p(r"(lib[\w+-]{1,60}\.so(?:\.[\d]{1,6}){0,4}): Unable to open shared object file",
                      "Unable to open shared object file")),
    # Lua Torch's cudnn.torch (cudnn/ffi.lua): "'libcudnn (R5) not found in library path." then "Then make sure
    # files named as libcudnn.so.5 or libcudnn.5.dylib are placed in your library load path"
    ("so_missing", _p(r"'libcudnn \(R\d{1,2}\) not found in library path\.[^\n]*\n(?:[^\n]*\n){0,3}?[^\n]*?"
                      r"files named as (libcudnn\.so\.\d{1,2})", "libcudnn (R", span=5)),
    # glibc's symbol lookup (elf/dl-lookup.c "undefined symbol: %s%s%s", with ", version %s") and version check
    # (elf/dl-version.c "version `%s' not found (required by %s)"): a library loaded beside another copy of the one
    # it was built with
    ("undefined_symbol", _p(r"(lib[\w+-]{1,60}\.so(?:\.\d{1,6}){0,4}): undefined symbol: (\w{1,120})(?:, version "
                            r"(lib[\w+-]{1,60}\.so[\d.]{0,12}))?", "undefined symbol: ")),
    ("symbol_version", _p(r"version `([\w.+-]{1,60})' not found \(required by (?:[^)\n]{0,260}/)?"
                          r"(lib[\w+-]{1,60}\.so[\d.]{0,12})\)", "' not found (required by")),
    # CPython's ctypes on Windows (3.8+): "Could not find module '%s' (or one of its dependencies)"
    ("load_fail", _p(r"Could not find module '(?:[^'\n]{0,260}[\\/])?([\w.+-]{1,100}\.dll)' \(or one of its",
                     "Could not find module '")),
    # the Windows loader's dialog in Chinese: "由于找不到 %s，无法继续执行代码", "因为计算机中丢失 %s"
    ("dll_missing", _p(r"(?:由于找不到|计算机中丢失)\s?([\w.+-]{1,100}\.dll)", "由于找不到", "计算机中丢失")),
    # cuDNN 9's own loader for its sub-libraries: "Unable to load any of {libcudnn_ops.so.9.1.0, ...}"
    ("load_fail", _p(r"Unable to load any of \{([\w+-]{1,60}\.(?:so[\d.]{0,12}|dll))", "Unable to load any of {")),
    # ... then the symbol it wanted: cuDNN's front library without its sub-libraries
    ("cudnn_no_symbol", _p(r"Invalid handle\. Cannot load symbol (cudnn\w{1,60})", "Cannot load symbol cudnn")),
    # PyTorch's preload of its CUDA wheels (torch/__init__.py _preload_cuda_deps): "libcublas.so.*[0-9] not found in
    # the system path [...]"
    ("load_fail", _p(r"(lib[\w+-]{1,40}\.so)\.\*\[0-9\](?:\.\*)? not found in the system path",
                     "not found in the system path")),
    # NVRTC compiling a kernel at run time (PyTorch, CuPy, JAX): "failed to open %s. Make sure that %s is installed"
    ("load_fail", _p(r"nvrtc: error: failed to open ([\w.+-]{1,100}?\.(?:dll|so(?:\.\d{1,6}){0,3}))\.?(?:\s|$)",
                     "nvrtc: error: failed to open")),
    # PaddlePaddle's dynamic_loader.cc: "The third-party dynamic library (%s) that Paddle depends on is not configured
    # correctly. (error code is %s)"; TensorRT's variant says "TensorRT dynamic library (%s)". On Windows %s is the
    # list of names it tried, ';'-separated, the CUDA release's own name first and the major's last
    # ("cublas64_118.dll;cublas64_11.dll", "curand64_118.dll;curand64_11.dll;curand64_10.dll": win_cublas_lib and
    # the others): the last is the name the toolkit ships
    ("load_fail", _p(r"dynamic library \((?:[\w.+-]{1,100};){0,4}([\w.+-]{1,100})\) that Paddle depends on is not "
                     r"configured correctly\."
                     r"(?: \(error code is ([^\n]{0,300}?)\)\s*$)?", "that Paddle depends on")),
    # ONNX Runtime on Windows, newer releases (core/platform/windows/dll_load_error.cc DetermineLoadLibraryError):
    # 'Error loading "<provider>.dll" which depends on "<dll>" [which depends on "<dll>" ...] which is missing.'
    # then env.cc's "(Error 126: ...)": the DLL named last, before "which is missing", is the one not found (a
    # console of another code page garbles the words between the names, not the names: no "which depends on" here)
    ("load_fail", _p(r'"(?:[^"\n]{0,260}[\\/])?([\w.+-]{1,100}\.dll)" which is missing', "which is missing")),
    # libgpuarray / pygpu (src/loaders/dyn_load.c ga_load_library): 'Could not load "%s": %s' with dlerror or
    # FormatMessage's text (libcuda.so, libnvrtc.so, nvrtc64_<major><minor>.dll, cublas64_<major><minor>.dll)
    ("load_fail", _p(r'Could not load "(?:[^"\n]{0,260}[\\/])?([\w.+-]{1,100}\.(?:dll|so(?:\.\d{1,6}){0,4}))"'
                     r'(?:: ([^\n]{1,300}))?', 'Could not load "')),
    # ONNX Runtime on Windows (core/platform/windows/env.cc): LoadLibrary's error and FormatMessage's text
    ("loadlibrary_failed", _p(r'LoadLibrary failed with error (\d{1,5})(?: "([^"\n]{0,200})")? when trying to load '
                              r'"?(?:[^"\n]{0,260}[\\/])?([\w.+-]{1,100}\.dll)', "LoadLibrary failed with error")),
    # ONNX Runtime's python bindings when the CUDA provider did not load (onnxruntime_pybind_state.cc); 1.18+ name
    # the majors it needs
    ("ort_cuda_provider", _p(r"(?:Failed to create CUDAExecutionProvider\.(?: Require cuDNN (\d{1,2})\.\* and CUDA "
                             r"(\d{1,2})\.\*)?|CUDA_PATH is set but CUDA wass?n'?t able to be loaded)",
                             "Failed to create CUDAExecutionProvider", "CUDA_PATH is set but CUDA")),
    # JAX's CUDA plugin checking the libraries it was built with: "Unable to load %s. Is it installed?"
    ("jax_load", _p(r"Unable to load (CUDA|cuDNN|cuBLAS|cuFFT|cuSOLVER|cuSPARSE|cuPTI|NCCL|nvJitLink)\. Is it "
                    r"installed\?", "Is it installed?")),
    # ... and jaxlib's own check under it (jaxlib/cuda/versions_helpers.cc): "operation cusparseGetProperty(...)
    # failed: The cuSPARSE library was not found."
    ("jax_load", _p(r"\) failed: The (CUDA|cuDNN|cuBLAS|cuFFT|cuSOLVER|cuSPARSE|cuPTI|NCCL) library was not found",
                    "library was not found")),
    # JAX running on the CPU because no GPU backend came up (jax/_src/xla_bridge.py): "No GPU/TPU found, falling
    # back to CPU." (jax 0.1-0.4.x), "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not
    # installed. Falling back to cpu." (0.4.x), and _check_cuda_versions' "CUDA backend failed to initialize: %s"
    # (not when its reason is the driver's: cuInit, a CUresult, no device, which have their own rules)
    ("jax_no_gpu", _p(r"(No GPU/TPU found, falling back to CPU|a CUDA-enabled jaxlib is not installed|"
                      r"CUDA backend failed to initialize: (?![^\n]{0,160}(?:cuInit|CUDA_ERROR_|no supported devices))"
                      r"[^\n]{0,200})",
                      "No GPU/TPU found", "CUDA-enabled jaxlib", "CUDA backend failed to initialize")),
    # setup scripts' and checkers' own words (faceswap's setup.py "cuDNN not found. See ...", "cuDNN is not installed")
    ("dnn_not_found", _p(r"\bcuDNN (?:library )?(?:not found|was not found|could not be found|is not installed)",
                         "cuDNN not found", "cuDNN library not found", "cuDNN was not found", "cuDNN could not be",
                         "cuDNN is not installed", "cuDNN library was not")),
    # PaddlePaddle 1.x: "Cannot load cudnn shared library. Cannot invoke method cudnnGetVersion"
    ("dnn_not_found", _p(r"Cannot load cudnn shared library")),
    # Paddle's device note at start (paddle/phi/backends/gpu/gpu_resources.cc, device_context.cc before it): "Please
    # NOTE: device: %d, GPU Compute Capability: %d.%d, Driver API Version: %d.%d, Runtime API Version: %d.%d"
    ("paddle_device", _p(r"Please NOTE: device: \d{1,2}, GPU Compute Capability: (\d{1,2}\.\d), Driver API Version: "
                         r"(\d{1,2}\.\d), Runtime API Version: (\d{1,2}\.\d)", "Please NOTE: device: ")),
    # TF 0.x / 1.x cuda_dnn.cc when its cuDNN DSO did not load ("Unable to load cuDNN DSO"); Paddle on Windows, the
    # note its loader prints when cudnn64_N.dll is not found (paddle/phi/backends/dynload/dynamic_loader.cc
    # win_warn_meg: "Note: [Recommend] copy cudnn into CUDA installation directory.")
    ("dnn_not_found", _p(r"Unable to load cuDNN DSO")),
    ("dnn_not_found", _p(r"\[Recommend\] copy cudnn into CUDA installation directory",
                         "copy cudnn into CUDA installation directory")),
    ("dll_missing", _p(r"([\w-]{1,60}\.dll) (?:not found|was not found|is missing)",
                       '.dll not found', '.dll was not found', '.dll is missing')),
    ("win_error_126", _p(r"(?:[Ee]rror code|WinError) 126", 'rror code 126', 'WinError 126')),
    ("dll_load_failed", _p(r"DLL load failed(?: while importing (\w{1,80}))?:?\s*([^\n]{0,300})")),
    ("native_runtime", _p(r"Failed to load the native TensorFlow runtime")),
    ("opened", _p(r"[Ss]uccessfully opened (?:dynamic|CUDA) library ([\w.+-]{1,100})", 'uccessfully opened')),
    ("cannot_dlopen", _p(r"Cannot dlopen some GPU libraries")),
    ("trt_missing", _p(r"(Could not find TensorRT|Cannot dlopen some TensorRT libraries)", "TensorRT")),
    ("skipping", _p(r"Skipping registering GPU devices")),
    ("cudart_stub", _p(r"Ignore above cudart dlerror")),
    # bitsandbytes 0.37-0.41 (cuda_setup/main.py): no libcudart.so in LD_LIBRARY_PATH or the other environment
    # paths; it then searches /usr/local/cuda/lib64 and says what it found there ("Possible options found for", "CUDA
    # runtime path found", "Loading binary")
    ("bnb_runtime_missing", _p(r"WARNING! (libcudart\.so|CUDA runtime files) not found in any environmental path",
                               "not found in any environmental path")),
    # ... and its summary when none was found (generate_instructions: "the main CUDA runtime library was not detected")
    ("bnb_runtime_missing", _p(r"the main (CUDA runtime) library was not detected", "the main CUDA runtime library")),
    ("bnb_runtime_found", _p(r"(?:Possible options found for libcudart|CUDA runtime path found|CUDA SETUP: Loading "
                             r"binary (?![^\n]{0,300}_cpu\.so))", "Possible options found", "runtime path found",
                             "Loading binary")),
    # ... and when it ends up with its CPU library although a GPU is there (0.37-0.41): "Defaulting to
    # libbitsandbytes_cpu.so", the CPU library's "undefined symbol: cget_col_row_stats", "CUDA Setup failed despite
    # GPU being available"
    ("bnb_cpu_fallback", _p(r"(Defaulting to libbitsandbytes_cpu\.so|libbitsandbytes_cpu\.so: undefined symbol|"
                            r"CUDA Setup failed despite GPU being available)", "Defaulting to libbitsandbytes_cpu",
                            "libbitsandbytes_cpu.so: undefined", "CUDA Setup failed despite")),
    # PyTorch's own checks (torch/cuda/__init__.py _lazy_init): a CPU-only build asked for the GPU ...
    ("torch_cpu_build", _p(r"Torch not compiled with CUDA enabled")),
    # ... and torch/backends/cudnn/__init__.py _init: the cuDNN loaded is not the one it was built with (1.x: "but
    # linked against 7102", 2.x: "but found runtime version (8, 5, 0)"; two spaces after "compiled" in 2.x)
    ("torch_cudnn_mismatch", _p(r"cuDNN version incompatibility: PyTorch was compiled\s+against (\(?[\d, .]{1,20}\)?)"
                                r" but (?:linked against|found runtime version) (\(?[\d, .]{1,20}\)?)",
                                "cuDNN version incompatibility", span=True)),
    # hashcat's CUDA backend when it cannot load NVRTC (src/backend.c: "Failed to initialize NVIDIA RTC library.",
    # then per device "CUDA SDK Toolkit installation NOT detected" (6.2: "... or incorrectly installed.") and
    # "Falling back to OpenCL Runtime")
    ("hashcat_no_nvrtc", _p(r"(CUDA SDK Toolkit installation NOT detected|Failed to initialize NVIDIA RTC library)",
                            "CUDA SDK Toolkit installation NOT detected", "Failed to initialize NVIDIA RTC library")),
    # TF 2.14+ says this instead of naming libcuda.so.1 when no driver is installed
    ("no_cuda_drivers", _p(r"Could not find cuda drivers on your machine")),
    # the program that asked for the library when it is not TF: its own words or its package folder in a path
    # (PyTorch also by its exception classes and c10's note after a CUDA error: "CUDA kernel errors might be
    # asynchronously reported at some other API call", "Compile with `TORCH_USE_CUDA_DSA`")
    ("program", _p(r"(onnxruntime|OnnxRuntime|CUDAExecutionProvider|ctranslate2|faster_whisper|whisperx|"
                   r"Library [\w.+-]{1,60} is not found|"
                   r"[\w.+-]{1,60}\.(?:dll|so[\d.]{0,12}) is not found or cannot be loaded|"
                   r"Paddle depends on|paddle[\\/]|Cannot load cudnn shared library|copy cudnn into CUDA installation|"
                   r"Please NOTE: device: \d{1,2}, GPU Compute Capability|"
                   r"jaxlib|jax_plugins|"
                   r"Unable to load \w{2,12}\. Is it installed\?|[\\/]torch[\\/]|not found in the system path|"
                   r"torch\.(?:cuda\.)?\w{2,30}Error|TORCH_USE_CUDA_DSA|CUDA kernel errors might be asynchronously|"
                   r"nvrtc: error|CuPy failed|pygpu|gpuarray|GpuArrayException|tensorflow)",
                   "onnxruntime", "OnnxRuntime", "CUDAExecutionProvider", "ctranslate2", "faster_whisper", "whisperx",
                   "is not found", "Paddle depends on", "paddle",
                   "copy cudnn into CUDA installation", "Please NOTE: device: ", "Cannot load cudnn", "jaxlib",
                   "jax_plugins",
                   "Is it installed?", "torch", "TORCH_USE_CUDA_DSA", "CUDA kernel errors might be asynchronously",
                   "not found in the system path", "nvrtc: error", "CuPy failed",
                   "pygpu", "gpuarray", "GpuArrayException", "tensorflow")),
    # ERROR_COMMITMENT_LIMIT (1455) in Windows' English and Chinese words: virtual memory, not a missing DLL
    ("paging_file", _p(r"(WinError 1455|paging file is too small|页面文件太小)", "WinError 1455",
                       "paging file is too small", "页面文件太小")),
    # PyTorch on Windows (torch/__init__.py): the loader's error for one of its DLLs, then 'Error loading "%s" or one
    # of its dependencies.'
    ("error_loading_dll", _p(r'Error loading "(?:[^"\n]{0,260}[\\/])?([\w.+-]{1,100}\.dll)" or one of its '
                             r'dependencies', 'Error loading "')),
]
