"""The catalogue of messages explain recognises: (kind, pattern) pairs, grouped by the program that prints them.

Where each message comes from (repository, file, version) is recorded in builder/diagnose/rules/SOURCES.md;
a pattern matches the stable part of a message (what the program's format string fixes), never one paste's
wording. Every pattern starts with a literal or names its needles: the parser scans the text for those
literals first and runs the pattern on the lines that hold one (see builder.diagnose.parse). WSL's messages
are in builder.diagnose.patterns_wsl, the container runtimes' in builder.diagnose.patterns_container, the
driver's kernel side in builder.diagnose.patterns_driver, the library loaders' (every framework's and system
loader's words for a library that did not load) in builder.diagnose.patterns_loader.
"""

from builder.diagnose.needles import pattern as _p
from builder.diagnose.patterns_container import CONTAINER, NGC
from builder.diagnose.patterns_driver import DRIVER
from builder.diagnose.patterns_loader import LOADER
from builder.diagnose.patterns_wsl import WSL

_CI = ("hostedtoolcache", "##[error]", "/home/runner/work/", "/home/travis/")
# Where a TF version follows the name: "tensorflow-2.4.1.dist-info", "tensorflow==2.9", "TensorFlow version: 2.12.0"
_TF_NEEDLES = ("low-", "low=", "low_", "low (", "low v", "low V", "low 1.", "low 2.")  # tensorflow, TensorFlow
_TF_VERSION = r"(?:==|-| \(| [Vv]ersion:? | v| )(\d\.\d{1,2}(?:\.\d{1,2})?(?:rc\d)?)\b"

# (kind, pattern). Groups are kept per event; see Log for what each kind's groups mean.
PATTERNS = LOADER + [
    # the driver
    ("cuinit", _p(r"failed call to cuInit:\s*([^\n]{0,300})")),
    ("no_driver_running", _p(r"kernel driver does not appear to be running on this host \(([^)\n]{0,100})\)"
                             r"(?::\s*([^\n]{0,200}))?")),
    ("dev_missing", _p(r"(/dev/nvidia\d*|/dev/dxg) does not exist", 'does not exist')),
    ("dev_missing", _p(r"cannot access '(/dev/dxg|/dev/nvidia\d*)'", "cannot access '/dev/")),
    ("diag_host", _p(r"(?:retrieving CUDA diagnostic information for host|cuda_diagnostics\.cc:\d{1,4}\] hostname): "
                     r"(\S{1,100})", "retrieving CUDA diagnostic", "] hostname: ")),
    ("libcuda_version", _p(r"libcuda reported version is:\s*([^\n]{0,120})")),
    ("kernel_version", _p(r"kernel reported version is:\s*([^\n]{0,120})")),
    ("kernel_dso_mismatch", _p(r"kernel version ([\d.]{1,20}) does not match DSO version ([\d.]{1,20})")),
    ("nvrm", _p(r"NVRM version: NVIDIA UNIX \S+ Kernel Module\s+([\d.]{1,20})")),
    ("nvml_mismatch", _p(r"[Dd]river/library version mismatch", "river/library version mismatch")),
    # the same result by nvml.h's name (NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18; go-nvml drops the NVML_ prefix),
    # pynvml's exception class and nvmlErrorString's words for it
    ("nvml_mismatch", _p(r"(?<![A-Za-z])(?:NVML_)?ERROR_LIB_RM_VERSION_MISMATCH|NVMLError_LibRmVersionMismatch|"
                         r"RM has detected an NVML/RM version mismatch", "ERROR_LIB_RM_VERSION_MISMATCH",
                         "NVMLError_LibRmVersionMismatch", "NVML/RM version mismatch")),
    # (the versions as any token: a paste or a guide may put placeholders there, "the version XXX.XX")
    ("nvrm_api_mismatch", _p(r"API mismatch: the client has the version ([\w.]{1,20}), but[|>\s]+(?:NVRM:\s+)?"
                             r"this kernel module has the version ([\w.]{1,20})", "API mismatch", span=True)),
    ("nvml_failed", _p(r"Failed to initialize NVML:\s*([^\n]{0,200})")),
    ("smi_no_driver", _p(r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")),
    # nvidia-smi answered (its banner or its process table): the driver it talks to works
    ("smi_works", _p(r"(NVIDIA-SMI \d{3}\.\d{1,3}|No running processes found|GPU\s+GI\s+CI\s+PID)", "NVIDIA-SMI ",
                     "No running processes", "GI   CI")),
    ("smi_header", _p(r"Driver Version:\s*([\d.]{1,20})(?:\s+CUDA Version:\s*([\d.]{1,10}))?", 'Driver Version:')),
    ("insufficient_driver", _p(r"CUDA driver version is insufficient for CUDA runtime version")),
    # PyTorch's wording when a driver version is known (c10/cuda/CUDAFunctions.cpp, torch/cuda/__init__.py)
    ("insufficient_driver", _p(r"The NVIDIA driver on your system is too old")),
    # ... and its number: the driver's CUDA (cudaDriverGetVersion: 1000 * major + 10 * minor; 11040 is CUDA 11.4)
    ("driver_cuda_found", _p(r"The NVIDIA driver on your system is too old \(found version (\d{4,6})\)",
                             "The NVIDIA driver on your system is too old")),
    # ... as ethminer and its forks word it (libethash-cuda/CUDAMiner.cpp: "Insufficient CUDA driver: " and
    # cudaDriverGetVersion's number, the driver's own CUDA)
    ("insufficient_driver", _p(r"Insufficient CUDA driver: \d{1,6}", "Insufficient CUDA driver: ")),
    ("driver_cuda_found", _p(r"Insufficient CUDA driver: (\d{4,6})", "Insufficient CUDA driver: ")),
    ("insufficient_driver", _p(r"(cudaErrorInsufficientDriver|CUDA_ERROR_INSUFFICIENT_DRIVER)",
                               'cudaErrorInsufficientDriver', 'CUDA_ERROR_INSUFFICIENT_DRIVER')),
    ("compat_not_supported", _p(r"(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE|forward compatibility was attempted)",
                                'CUDA_ERROR_COMPAT_NOT_SUPPORTED', 'forward compatibility was attempted')),
    ("system_driver_mismatch", _p(r"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")),
    # the runtime's text for the same code (cudaErrorSystemDriverMismatch, 803), as PyTorch and CUDA programs print it
    ("system_driver_mismatch", _p(r"system has unsupported display driver / cuda driver combination")),
    ("cuda_error", _p(r"(CUDA_ERROR_[A-Z_]{2,60})", 'CUDA_ERROR_')),
    ("cuda_error", _p(r"(cudaError[A-Z]\w{2,60})", 'cudaError')),
    # the runtime's cudaGetErrorString for cudaErrorNoDevice (100) and cudaErrorDevicesUnavailable (46), as
    # deviceQuery, PyTorch and TF's "CUDA runtime implicit initialization" print them
    ("cuda_error_text", _p(r"(no CUDA-capable device is detected|(?:all CUDA-capable devices are|CUDA-capable "
                           r"device\(s\) is/are) busy or unavailable)", "CUDA-capable device")),
    ("linux_driver_pkg", _p(r"(nvidia-driver-\d{3}\S{0,20}|cuda-drivers\S{0,20}|nvidia-dkms-\d{3}|"
                            r"nvidia-utils-\d{3}\S{0,20}|libnvidia-compute-\d{3}\S{0,20}|"
                            r"NVIDIA-Linux-x86_64-[\d.]{3,20}\.run)",
                            'nvidia-driver-', 'cuda-drivers', 'nvidia-dkms-', 'nvidia-utils-', 'libnvidia-compute-',
                            'NVIDIA-Linux-x86_64')),
    # the `cuda` / `cuda-X-Y` meta packages depend on cuda-drivers: NVIDIA's WSL guide says never to install them there
    ("linux_driver_pkg", _p(r"(?m)apt(?:-get)? (?:-y )?install (?:-y )?(cuda(?:-1\d-\d)?)(?: -y)?\s*$", "install cuda",
                            "install -y cuda")),
    # ERROR_BAD_EXE_FORMAT (193) in Windows' English, Chinese (Simplified, Traditional) and Japanese words
    ("win32_app", _p(r"(?:is not a valid Win32 application|不是有效的 ?Win32 ?(?:应用程序|應用程式)|"
                     r"は有効な ?Win32 ?アプリケーションではありません)", "is not a valid Win32", "不是有效的",
                     "は有効な")),
    ("gpu_access_blocked", _p(r"GPU access blocked by the operating system")),
    # the GPU
    ("device", _p(r"name: ([^\n]{1,80}?) computeCapability: (\d{1,2}\.\d)", 'computeCapability')),
    ("device", _p(r"name: ([^\n,]{1,80}?), pci bus id: [^\n,]{1,40}, compute capability: (\d{1,2}\.\d)",
                  'compute capability:')),
    ("device_old", _p(r"name: ([^\n]{1,80}?) major: (\d{1,2}) minor: (\d)", ' major: ')),
    ("found_device", _p(r"Found device \d+ with properties")),
    ("created_device", _p(r"Created (?:TensorFlow|device) [^\n]{0,80}device:GPU:\d", 'device:GPU:')),
    ("ptx_jit", _p(r"not built with CUDA kernel binaries compatible with compute capability (\d{1,2}\.\d)")),
    ("no_kernel_image", _p(r"(no kernel image is available for execution on the device|device kernel image is invalid)",
                           'kernel image')),
    ("gpu_none", _p(r"(GPU is NOT AVAILABLE|GPU (?:is )?not available|Num GPUs Available:?\s*0\b|"
                    r"No GPU (?:found|detected)|GPU[\w ]{0,20}(?:[Aa]vailable|devices|list)\??:? ?\[\])",
                    'GPU is NOT', 'GPU not available', 'GPU is not available', 'GPUs Available', 'No GPU ', ': []')),
    # `print(tf.config.list_physical_devices('GPU'))` answered by `[]`, perhaps after a version line
    ("gpu_none", _p(r"list_physical_devices\(['\"]GPU['\"]\)[^\n]{0,120}\n(?:[^\n]{0,40}\n)?(?:>>> )?\[\]",
                    "list_physical_devices(", span=2)),
    # tf.test.is_built_with_cuda() answering False, on its line (a REPL's `False`, a comment) or the next: the TF
    # installed has no CUDA code at all (tensorflow-cpu, TF >= 2.11 on native Windows), whatever CUDA is installed
    ("tf_cpu_build", _p(r"is_buil[dt]_with_cuda\(\)\)?(?:[^\n]{0,60}?\b|[^\n]{0,60}\n(?:>>> )?)(?:[Ff]alse|FALSE)\b",
                        "_with_cuda()", span=2)),
    # the devices TF lists: device_lib.list_local_devices()'s `device_type: "CPU"` and tf.config's
    # `PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')`
    ("device_type", _p(r"device_type(?:: \"|=')(\w{1,20})[\"']", 'device_type: "', "device_type='")),
    ("ci", _p(r"(/opt/hostedtoolcache|##\[error\]|/home/runner/work/|/home/travis/)", *_CI)),
    ("gpus_available", _p(r"Num GPUs Available:?\s*(\d+)", 'GPUs Available')),
    # cuDNN
    ("cudnn_mismatch", _p(r"Loaded runtime CuDNN library: ([\d.]{1,20})[^\n]{0,60}? but source was compiled with:? "
                          r"([\d.]*\d)")),
    # TF 0.x cuda_dnn.cc: "Loaded cudnn library: %d but source was compiled against %d.  If using a binary install,
    # upgrade your cudnn library to match."
    ("cudnn_mismatch", _p(r"Loaded cudnn library: (\d{1,6}) but source was compiled against (\d{1,6})",
                          "Loaded cudnn library: ")),
    ("cudnn_status", _p(r"(CUDNN_STATUS_[A-Z_]{2,40})", 'CUDNN_STATUS_')),
    ("cudnn_handle", _p(r"Could not create cudnn handle")),
    # cuBLAS failing to start has the same cause as cuDNN's handle: no GPU memory left for its workspace
    ("cublas_init", _p(r"(CUBLAS_STATUS_(?:NOT_INITIALIZED|ALLOC_FAILED)|failed to create cublas handle|"
                       r"Blas GEMM launch failed|Blas xGEMM launch failed)", "CUBLAS_STATUS_", "cublas handle",
                       "Blas GEMM launch", "Blas xGEMM launch")),
    ("cudnn_conv", _p(r"Failed to get convolution algorithm")),
    ("cudnn_loaded", _p(r"Loaded cuDNN version (\d{3,5})")),
    ("dnn_not_found", _p(r"DNN library is not found")),
    ("dnn_impl", _p(r"Fail(?:ed)? to find the dnn implementation", 'to find the dnn')),
    # XLA
    # the folder XLA_FLAGS sends XLA to for nvvm/libdevice (xla/debug_options_flags.cc: --xla_gpu_cuda_data_dir)
    ("xla_data_dir", _p(r"--xla_gpu_cuda_data_dir=[\"']?([^\s\"']{1,200})", "xla_gpu_cuda_data_dir")),
    # a conda environment's folder in a path (<root>/envs/<name>/...; on Windows with backslashes)
    ("conda_env_path", _p(r"[/\\]envs[/\\]([\w.+-]{1,60})(?=[/\\]|\s|$)", "envs/", "envs\\")),
    ("libdevice", _p(r"(libdevice not found at [^\n]{0,200}|Can't find libdevice directory[^\n]{0,200}|"
                     r"[Cc]ould not find libdevice[^\n]{0,200}|Unable to find libdevice[^\n]{0,200}|"
                     r"libdevice\.10\.bc[^\n]{0,120})", 'libdevice')),
    # (XLA since 2023: "Couldn't find a suitable version of ptxas. The following locations were considered: ...")
    ("ptxas", _p(r"((?:Couldn't|Can't|Could not|Failed to) (?:invoke|find|get)(?: a suitable version of)? ptxas"
                 r"[^\n]{0,200}|"
                 r"ptxas (?:exited|returned|fatal)[^\n]{0,200}|ptxas[^\n]{0,20} not found[^\n]{0,100})", 'ptxas')),
    # nvcc --version: the installed CUDA toolkit ("Cuda compilation tools, release 12.5, V12.5.40")
    ("nvcc_release", _p(r"Cuda compilation tools, release (\d{1,2}\.\d{1,2})", "Cuda compilation tools")),
    # ptxas' and nvcc's option parsers: a compiler older than the GPU (sm_86, sm_90a) names the target it lacks
    # XLA's asm_compiler.cc when the ptxas it found is older than the GPU: "Falling back to the CUDA driver for PTX
    # compilation; ptxas does not support CC 8.6"
    ("ptxas_cc", _p(r"ptxas does not support CC (\d{1,2}\.\d)")),
    ("ptxas_arch", _p(r"Value '(sm_\d{2,3})[a-z]?' is not defined for option '(gpu-name|gpu-architecture)'",
                      "is not defined for option 'gpu-")),
    # nvcc's own check of -arch / -gencode (nvcc fatal: "Unsupported gpu architecture 'compute_86'"): a target this
    # nvcc does not know, newer than its CUDA or one a later CUDA dropped (compute_30 in CUDA 11)
    ("nvcc_arch", _p(r"Unsupported gpu architecture '(?:compute|sm)_(\d{2,3})[a-z]?'", "Unsupported gpu architecture")),
    # Python packages
    ("numpy2", _p(r"compiled using NumPy 1\.x cannot be run in\s+NumPy 2", span=True)),
    # numpy 2's own advice closing that message (numpy/_core/_multiarray_umath.py), when the paste starts there
    ("numpy2", _p(r"(downgrade to 'numpy<2'|modules will need time to support NumPy 2)", "downgrade to 'numpy<2'",
                  "support NumPy 2")),
    # the other way round: a numpy older than the one TF was compiled against
    ("numpy_old", _p(r"(No module named 'numpy\.core\._multiarray_umath'|module compiled against API version "
                     r"(?:0x)?[0-9a-f]{1,4} but this version of numpy is (?:0x)?[0-9a-f]{1,4})",
                     "numpy.core._multiarray_umath", "module compiled against API version")),
    ("numpy_abi", _p(r"(_ARRAY_API not found|numpy\.core\.multiarray failed to import|"
                     r"numpy\.dtype size changed|Unable to convert function return value to a Python type)",
                     '_ARRAY_API', 'numpy.core.multiarray', 'numpy.dtype size',
                     'Unable to convert function return value')),
    ("numpy_symbolic", _p(r"Cannot convert a symbolic Tensor \([^\n]{0,120}\) to a numpy array",
                          'Cannot convert a symbolic Tensor')),
    ("numpy_alias", _p(r"module 'numpy' has no attribute '(object|bool|int|float|str|complex)'")),
    ("protobuf", _p(r"Descriptors cannot (?:not )?be created directly", 'Descriptors cannot')),
    ("protobuf", _p(r"PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION")),
    # pip putting a protobuf >= 4 in place (its "Downloading protobuf-4.21.9-cp37-abi3-...whl", "Successfully
    # installed ... protobuf-4.21.12", "Requirement already satisfied: protobuf... (4.23.4)"): the cause itself
    ("protobuf4_installed", _p(r"(?:\bprotobuf-|Requirement already satisfied: protobuf[^\n]{0,200}\()"
                               r"((?:[4-9]|[1-9]\d)\.\d{1,3}\.\d{1,4})\b", "protobuf-", "satisfied: protobuf")),
    ("pip_no_version", _p(r"(?:Could not find a version that satisfies the requirement|"
                          r"No matching distribution found for) (tensorflow[\w-]{0,12}(?:[=<>~!]=?[\d.*]{1,12})?)",
                          'Could not find a version', 'No matching distribution')),
    # pip's own list after the requirement it could not satisfy: the releases that have a file for this Python and
    # platform, oldest first ("none" when there is none); for TF, the oldest is the first release that fits
    ("pip_from_versions", _p(r"\(from versions: ([^()\n]{1,8000})\)", "(from versions: ")),
    # pip's resolver on one of NVIDIA's CUDA wheels (tensorflow[and-cuda]'s nvidia-*-cu11/cu12): they are built for
    # Linux only; elsewhere an index has at most the 0.0.1.devN placeholder sdists
    ("pip_nvidia_wheel", _p(r"(?:Could not find a version that satisfies the requirement|No matching distribution "
                            r"found for) (nvidia-[a-z-]{1,40}-cu1\d)", "Could not find a version",
                            "No matching distribution")),
    ("placeholder_versions", _p(r"\(from versions: (?:0\.0\.1\.dev\d{1,2}(?:, )?){1,8}\)",
                                "(from versions: 0.0.1.dev")),
    # tensorflow-gpu 2.11+ on an index: a placeholder sdist that refuses to build
    ("tf_gpu_placeholder", _p(r"tensorflow[-_]gpu-(2\.(?:1[1-9]|[2-9]\d)[\w.]{0,10})\.tar\.gz", "tensorflow-gpu-",
                              "tensorflow_gpu-")),
    # pip failing to write a file: with the Store Python's deep package folder, Windows' 260-character limit
    ("pip_oserror", _p(r"Could not install packages due to an (?:OSError|EnvironmentError)",
                       "Could not install packages due to")),
    ("not_supported_wheel", _p(r"(tensorflow[\w.-]{0,80}\.whl) is not a supported wheel", 'is not a supported wheel')),
    # the CPU
    # SIGILL in the shells' words: bash and Python's faulthandler "Illegal instruction", zsh's signal names
    # (Src/signames2.awk) "illegal hardware instruction", fish "terminated by signal SIGILL"; not CUDA's
    # lower-case "an illegal instruction was encountered" (a GPU kernel's fault)
    ("illegal_instruction", _p(r"(Illegal instruction|illegal hardware instruction|signal SIGILL)",
                               "Illegal instruction", "illegal hardware instruction", "signal SIGILL")),
    # STATUS_ILLEGAL_INSTRUCTION as Windows and Python print it: hex, signed and unsigned decimal
    ("illegal_instruction", _p(r"(0xC000001D|-1073741795|3221225501)", "0xC000001D", "0xc000001d", "-1073741795",
                               "3221225501")),
    ("avx_missing", _p(r"compiled to use AVX instructions, but these aren't available")),
    # a CPU named by a model that has no AVX (AVX came with Intel Sandy Bridge and AMD Bulldozer, 2011): Core 2,
    # first-generation Core i3/i5/i7 (three-digit numbers), Xeon 3000/5000/7000 series of 2006-2010 (X5450, E5620),
    # Pentium 4 / D / Dual-Core, AMD Phenom and Athlon 64/II
    ("cpu_model_no_avx", _p(r"(Core(?:\(TM\))?\s?2 (?:Duo|Quad|Extreme)|"
                            r"Core(?:\(TM\))? i[357](?:-| CPU\s{1,12})[5-9]\d\d[KMSQXEU]{0,2}\b|"
                            r"[Xx][Ee][Oo][Nn](?:\(R\))?(?: CPU)?\s{1,3}[XxEeWwLl][357][0-6]\d\d\b|"
                            r"Pentium(?:\(R\))? (?:4|D|Dual)\b|Phenom|Athlon(?:\(tm\))? (?:64|II))",
                            "Core", "Xeon", "XEON", "xeon", "Pentium", "Phenom", "Athlon")),
    # ERROR_DLL_INIT_FAILED (1114) in Windows' own words: English, German, French, Simplified and Traditional Chinese,
    # Japanese
    ("dll_init_failed", _p(r"(?:(?:DLL\)|dynamic link library) initialization routine failed|"
                           r"DLL-Initialisierungsroutine ist fehlgeschlagen|routine d'initialisation d'une biblioth|"
                           r"动态链接库\(DLL\)初始化例程失败|動態連結程式庫 ?\(DLL\) ?初始化常式失敗|"
                           r"\(DLL\) ?初期化ルーチンの実行に失敗しました)",
                           'initialization routine failed', 'DLL-Initialisierungsroutine', "routine d'initialisation",
                           '初始化例程失败', '初始化常式失敗', '初期化ルーチンの実行に失敗')),
    # a DLL load failure inside another package's extension, named by the traceback: protobuf's C extension
    ("protobuf_ext", _p(r"(google[/\\.]protobuf[/\\.]pyext|while importing _message)", "protobuf",
                        "importing _message")),
    # a traceback frame inside another package that ships compiled extensions (Cython .pyx/.pxd frames too)
    ("ext_frame", _p(r"(?:[\\/]|File \")(h5py|numpy|scipy|grpc|cv2)[\\/][\w\\/.]{0,80}\.(?:py|pyx|pxd)\"",
                     'h5py', 'numpy', 'scipy', 'grpc', 'cv2')),
    # memory
    ("oom", _p(r"(OOM when allocating tensor[^\n]{0,160}|ResourceExhaustedError|ran out of memory trying to "
               r"allocate [^\n]{0,40}|CUDA_ERROR_OUT_OF_MEMORY|failed to allocate [\d.]{1,10} ?[KMG]?i?B[^\n]{0,80}"
               r"|Resource exhausted: [^\n]{0,120})",
               'OOM when', 'ResourceExhausted', 'ran out of memory', 'OUT_OF_MEMORY', 'failed to allocate',
               'Resource exhausted')),
    # context: platform, versions
    ("win_path", _p(r"(?<![\w/])([A-Za-z]:\\\\?[^\n\"'<>|]{1,200})", ':\\')),
    ("dll_name", _p(r"([A-Za-z]\w{1,40}\.dll)\b", '.dll', '.DLL')),
    ("so_name", _p(r"(lib\w{1,40}\.so\.\d[\d.]{0,10})", '.so.')),
    ("kernel_wsl1", _p(r"(\d+\.\d+\.\d+-\d+-Microsoft)", '-Microsoft')),
    ("kernel_wsl2", _p(r"([\d.]+-microsoft-standard[\w-]*)", '-microsoft-standard')),
    ("wsl_lib", _p(r"/usr/lib/wsl/(?:lib|drivers)")),
    # `wsl -l -v`: "* Ubuntu-20.04    Running    1" (the last column is the WSL version)
    ("wsl_list", _p(r"(?m)^\s*\*?\s*[\w.-]{1,60}\s+(?:Running|Stopped|Installing|Converting)\s+([12])\s*$",
                    "Running", "Stopped")),
    # Inside WSL: Windows drives under /mnt, or Windows' default host names in the prompt
    ("wsl_hint", _p(r"(/mnt/[c-h]/(?:Users|Program Files|Windows)|@(?:DESKTOP|LAPTOP)-[A-Z0-9]{6,8}\b)",
                    "/mnt/", "@DESKTOP-", "@LAPTOP-")),
    ("wsl_word", _p(r"(WSL ?2|WSL ?1|\bwsl\.exe|Windows Subsystem for Linux)",
                    'WSL', 'wsl.exe', 'Windows Subsystem for Linux')),
    ("dev_dxg", _p(r"/dev/dxg")),
    ("docker", _p(r"((?:docker|podman) (?:run|exec|compose|start)[^\n]{0,200}|nvidia-docker[^\n]{0,100}|/\.dockerenv|"
                  r"--runtime=nvidia|--gpus|Error response from daemon)",
                  'docker run', 'docker exec', 'docker compose', 'docker start', 'podman run', 'podman exec',
                  'podman start', 'nvidia-docker', '/.dockerenv', '--runtime=nvidia', '--gpus',
                  'Error response from daemon')),
    # paths only a container has: NVIDIA's CUDA images put the driver mount /usr/local/nvidia on LD_LIBRARY_PATH and
    # PATH (their Dockerfiles' ENV); a GitHub Actions container job works in /__w (the runner's work folder mounted)
    ("container_path", _p(r"(/usr/local/nvidia/(?:lib|bin)|(?<![\w.])/__w/)", "/usr/local/nvidia/", "/__w/")),
    # docker-compose 1.x names a service's container name_1, Compose v2 name-1
    ("compose_prefix", _p(r"(?m)^([\w.-]{1,60}[_-]\d{1,3})\s+\|", ' | ', ' |\t')),
    # a job scheduler's own output around the program's: Ray's worker prefix "(pid=3343)" / "(Trainable pid=12,
    # ip=10.0.0.2)", Slurm's srun/slurmstepd and its environment: the process sees only the GPUs it was given
    ("job_scheduler", _p(r"(\((?:\w+ )?pid=\d+(?:, ip=[\d.]+)?\)|\bsrun: |\bslurmstepd: |\bSLURM_[A-Z_]+)",
                         "pid=", "srun: ", "slurmstepd: ", "SLURM_")),
    # Docker names a container's host after its id (12 hex digits): a shell prompt inside one, root@3f4e5a6b7c8d:~#
    # (found by its "@", which few log lines have; ":/" would send every URL's line to the pattern)
    ("container_prompt", _p(r"@([0-9a-f]{12}):[~/]", "@")),
    ("store_python", _p(r"(PythonSoftwareFoundation\.Python\.3\.\d+|WindowsApps\\python|LocalCache\\local-packages)",
                        'PythonSoftwareFoundation', 'WindowsApps\\python', 'LocalCache\\local-packages')),
    # a Unix shell prompt (user@host:~$) or absolute Linux paths
    ("linux_shell", _p(r"(\w[\w.-]{0,40}@[\w.-]{1,60}:~[^\n$#]{0,80}[$#] |"
                       r"(?<![\w:])/(?:home|usr/local|usr/lib|opt|root|proc)/)",
                       ":~$ ", ":~# ", ":~/", "/home/", "/usr/", "/opt/", "/root/", "/proc/")),
    # a CUDA library's path inside a versioned toolkit folder, as `locate`/`find`/`ls` print it: that CUDA is installed
    ("cuda_toolkit_lib", _p(r"(?<![\w.-])(/[\w./-]{0,80}/cuda-\d{1,2}\.\d/[\w./-]{0,80}/lib[\w.+-]{1,40}"
                            r"\.so[\d.]{0,12})\s*$", "/cuda-")),
    # `ldconfig -p`'s listing of the loader cache (glibc elf/cache.c: "\t%s (%s) => %s"): what is installed, where
    ("ldcache_entry", _p(r"(lib[\w.+-]{1,60}\.so[\d.]{0,12}) \(libc6[^)\n]{0,30}\) => (/[^\s]{1,200})", "(libc6")),
    ("python_path", _p(r"[/\\](?:python|Python|lib/python)(3\.?\d{1,2})[/\\]",
                       'ython3')),
    ("python_banner", _p(r"Python (3\.\d{1,2})\.\d{1,2}(?:[ \n]|$)", 'Python 3.')),  # `python --version`'s line
    # a wheel built for one CPython (PEP 425 tags "cp39-cp39", "cp37-cp37m"): the interpreter pip runs for
    ("python_wheel_tag", _p(r"-cp3(\d{1,2})-cp3\1m?-", "-cp3")),
    ("tf_version", _p(r"(?:tensorflow|TensorFlow|Tensor Flow)(?:[-_]gpu|[-_]cpu|[-_]intel)?" + _TF_VERSION,
                      *_TF_NEEDLES)),
    ("tf_version", _p(r"tf\.__version__[^\n]{0,10}?\n?[^\n]{0,10}?'?(\d\.\d{1,2}\.\d{1,2})\b", "__version__",
                      span=True)),
    # a command printing tf.__version__ among other things, answered by a bare version line
    ("tf_version", _p(r"tf\.__version__[^\n]{0,200}\n\s{0,4}'?(\d\.\d{1,2}\.\d{1,2})'?\s*(?:\n|$)", "__version__",
                      span=1)),
    # `pip show tensorflow`: "Name: tensorflow" then "Version: 2.12.0"
    ("tf_version", _p(r"Name: tensorflow[\w-]{0,12}\s*\n[^\n]{0,8}Version: (\d\.\d{1,2}(?:\.\d{1,2})?)\b",
                      span=True)),
    # a wheel's platform tag names the OS pip ran on
    ("wheel_platform", _p(r"-(win_amd64|win32|manylinux\w{0,30}|linux_x86_64|macosx_\w{1,30})\.whl",
                          "win_amd64.whl", "win32.whl", "manylinux", "linux_x86_64.whl", ".whl")),
    ("tf_intel", _p(r"tensorflow[-_]intel", 'tensorflow-intel', 'tensorflow_intel')),
    ("tf_core", _p(r"tensorflow_core[/\\]")),
    ("dso_loader", _p(r"(tensorflow/stream_executor|tensorflow/compiler/xla/stream_executor|tensorflow/tsl|"
                      r"external/local_xla|external/local_tsl)/platform/default/dso_loader\.cc:(\d+)",
                      'dso_loader.cc:')),
]

# TF's stream executor: notes about the GPU it found (gpu_device.cc, cuda_gpu_executor.cc / cuda_executor.cc).
DEVICE = [
    # TF 2.14-2.16's pip builds register their CUDA plugins twice (xla stream_executor plugin_registry.cc)
    ("factory_registered", _p(r"Unable to register (cuDNN|cuFFT|cuBLAS) factory: Attempting to register factory",
                              "Unable to register")),
    ("gpu_ignored", _p(r"Ignoring (?:visible )?gpu device \((?:[^\n)]{0,160}compute capability: (\d{1,2}\.\d))?",
                       "gpu device (")),
    ("min_capability", _p(r"minimum required Cuda capability is (\d{1,2}\.\d)")),
    # DeepFaceLab's device check (nnlib), TF's minimum applied before TF starts: no GPU of that capability
    ("no_capable_device", _p(r"No CUDA device found with minimum required compute capability (\d{1,2}\.\d)")),
    # cuda_gpu_executor.cc / cuda_executor.cc read the sysfs node; gpu_device.cc and pluggable_device_factory.cc
    # (DirectML, Metal) say "Could not identify NUMA node of platform GPU id/ID N, defaulting to 0"; TF 0.x-1.x's
    # gpu_device.cc named the device: "Could not identify NUMA node of /job:localhost/replica:0/task:0/gpu:0"
    ("numa", _p(r"(successful NUMA node read from SysFS had negative value|could not open file to read NUMA node|"
                r"Could not identify NUMA node of (?:platform GPU|/job:))",
                "NUMA node read from SysFS", "to read NUMA node", "identify NUMA node")),
]

# Lines that end the process: glog/absl FATAL lines, CHECK failures, signals (TF's platform/default/logging,
# absl log_message; the shell's and Python's own words for a crash).
FATAL = [
    ("fatal", _p(r"(?m)((?:\] |: |^)F(?:\d{4} [\d:.]{8,30}\s{1,8}\d{1,8})?\s{1,4}[\w/.-]{1,160}\.cc:\d{1,5}\]"
                 r"[^\n]{0,160}|Check failed: [^\n]{0,160}|Aborted \(core dumped\)|^Aborted\s*$|"
                 r"Segmentation fault[^\n]{0,40}|Fatal Python error: [^\n]{0,80}|"
                 r"exit code -10737\d{5} \(0xC0000(?:005|409|374)\))",
                 ": F ", "] F ", "F tensorflow/", "F external/", "F0000 ", "Check failed", "Aborted", "(0xC0000",
                 "Segmentation fault", "Fatal Python error")),
]

PATTERNS += CONTAINER + NGC + WSL + DEVICE + DRIVER + FATAL
KINDS = sorted({kind for kind, _ in PATTERNS})
