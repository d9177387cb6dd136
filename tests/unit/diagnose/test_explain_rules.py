"""Each explain rule on the message shapes it is written for (lines in the formats TF, the driver, pip and
Windows print them; the real threads are in the corpus test), plus what must NOT trigger it. Every rule of the
registry has a case here, so a new rule cannot land untested."""

from __future__ import annotations

import pytest

from builder import diagnose
from builder.diagnose import rules
from builder.matrix.facts import facts_from_matrix
from tests.helpers import ROOT, matrix

DSO = "2021-01-01 00:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "


def fail(lib, why=None):
    return f"{DSO}Could not load dynamic library '{lib}'; dlerror: {why or lib + ': cannot open shared object file'}"


# (case id, log, expected top finding, a word its fix must contain)
# a hook's error cut at one width twice (212 columns, no terminal's usual width), "nvidia-container-cli: m" + "ount"
_HOOK = ('container init caused "process_linux.go:385: running prestart hook 1 caused \\"error running hook: exit '
         'status 1, stdout: , stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure '
         '--ldconfig=@/sbin/ldconfig.real --device=all --compute --utility --require=cuda>=8.0 --pid=32239 '
         '/var/lib/docker/overlay2/bd4f/merged]\\nnvidia-container-cli: mount error: file creation failed: '
         '/var/lib/docker/overlay2/bd4f/merged/usr/bin/nvidia-smi: file exists\\n\\"": unknown')
_HOOK_212 = "\n".join(_HOOK[i:i + 212] for i in range(0, len(_HOOK), 212))
# the same error wrapped at uneven widths (a forum's typographic quotes took a character from some rows), the mount
# error's detail cut mid-word and its library three rows further down
_HOOK_UNEVEN = ("stderr: nvidia-container-cli: mount error: file creati\non failed: /var/lib/docker/overlay2/35b2"
                "/merged/\nusr/lib/x86_64-linux-gnu/libcuda.so.1: file exists\\n\u201d\u201d\u201d: unknown.")
CASES = [
    ("hook-wrapped-twice", _HOOK_212, "container-image-driver-libs", "nvidia-smi"),
    ("hook-wrapped-unevenly", _HOOK_UNEVEN, "container-image-driver-libs", "libcuda.so.1"),
    ("nvenc-api-unknown-floor", "[h264_nvenc @ 0x1] Driver does not support the required nvenc API version. Required: "
     "11.1 Found: 11.0\n[h264_nvenc @ 0x1] The minimum required Nvidia driver for nvenc is (unknown) or newer",
     "driver-too-old", "470.57.02"),
    ("ptx-isa-driver-jit", "cuLinkAddData(): the provided PTX was compiled with an unsupported toolchain.\nptxas "
     "application ptx input, line 9; fatal   : Unsupported .version 7.1; current version is '7.0'", "driver-too-old",
     "CUDA 11.1"),
    ("ort-dll-init-not-avx", "ImportError: DLL load failed while importing onnxruntime_pybind11_state: A dynamic link "
     "library (DLL) initialization routine failed.", "msvc-runtime", "vc_redist"),
    # the toolkit's "initialization error:" whose detail a wrap moved to the next line, beside the kernel's words
    ("nvc-init-cut-nvrm-mismatch", "stderr: nvidia-container-cli: initialization error: \nnvml error: driver/library "
     "version mismatch: unknown\n[ 7386.259769] NVRM: API mismatch: the client has the version 515.48.07, but\n"
     "               NVRM: this kernel module has the version 510.73.05.  Please", "driver-dso-mismatch", "reboot"),
    ("win-cudnn", fail("cudnn64_8.dll", "cudnn64_8.dll not found"), "missing-cudnn", "cudnn64_8.dll"),
    ("tf1-import-cublas100", "ImportError: libcublas.so.10.0: cannot open shared object file: No such file or "
     "directory", "missing-cuda-runtime", "cuda-10.0"),
    ("tf1-win-cudart100", "ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be "
     "installed in a directory that is named in your %PATH% environment variable.", "missing-cuda-runtime",
     "CUDA 10.0"),
    ("tf215-unnamed", "W tensorflow/core/common_runtime/gpu/gpu_device.cc:2256] Cannot dlopen some GPU libraries. "
     "Please make sure the missing libraries mentioned above are installed properly.\nSkipping registering GPU "
     "devices...", "missing-cuda-runtime", "tensorflow[and-cuda]"),
    ("tf215-cudart12", "I tensorflow/core/util/port.cc:113] oneDNN custom operations are on.\n"
     "tensorflow==2.15.0\n" + fail("libcudart.so.12"), "missing-cuda-runtime", "tensorflow[and-cuda]"),
    # bitsandbytes 0.37's wording ("Searching /usr/local/cuda/lib64...") with nothing found after it; 0.41 says
    # "Searching in backup paths..." (the corpus and held-out logs)
    ("bnb-cudart-missing-wsl2", "Linux PC 5.15.90.1-microsoft-standard-WSL2\nCUDA_SETUP: WARNING! libcudart.so not "
     "found in any environmental path. Searching /usr/local/cuda/lib64...\nCUDA SETUP: Detected CUDA version 117",
     "missing-cuda-runtime", "/usr/lib/wsl/lib"),
    # XLA_FLAGS left pointing into another conda env (Windows paths here; the held-out log's are Linux ones)
    ("xla-flags-other-env", "(tf210) C:\\work>set XLA_FLAGS=--xla_gpu_cuda_data_dir=C:\\Users\\me\\miniconda3\\envs"
     "\\tf29\\Library\\bin\n  File \"C:\\Users\\me\\miniconda3\\envs\\tf210\\lib\\site-packages\\tensorflow"
     "\\__init__.py\", line 37", "xla-libdevice", "%CONDA_PREFIX%"),
    ("tf24-cusolver-win", fail("cusolver64_10.dll", "cusolver64_10.dll not found"), "tf24-cusolver",
     "cusolver64_11.dll"),
    ("wsl2-libcuda", "Linux PC 5.10.16.3-microsoft-standard-WSL2 #1 SMP\n" + fail("libcuda.so.1"),
     "wsl-lib-path", "/usr/lib/wsl/lib"),
    ("linux-libcuda", "name: Tesla T4 computeCapability: 7.5\n" + fail("libcuda.so.1"), "libcuda-missing",
     "install the NVIDIA driver"),
    ("wsl-list-v1", "  NAME            STATE           VERSION\n* Ubuntu-20.04    Running         1\n"
     + fail("libcuda.so.1"), "wsl1", "wsl --set-version"),
    ("wsl-prompt-linux-driver", "me@DESKTOP-AB12CD3:~$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't "
     "communicate with the NVIDIA driver.", "wsl-linux-driver", "purge"),
    ("wsl2-system-mismatch", "/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\nfailed call to cuInit: "
     "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination",
     "wsl-linux-driver", "wsl --shutdown"),
    # a GPU image started without a GPU request: TF 2.14+'s no-driver line, or TF 2.x's libcuda warning and cuInit 303
    ("docker-run-no-gpus-tf214", "$ docker run -it --rm tensorflow/tensorflow:2.14.0-gpu python -c 'import tensorflow'"
     "\nI tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be used.",
     "no-gpu-visible", "--gpus all"),
    ("docker-run-no-gpus-cuinit-303", "docker run -it -p 8888:8888 tensorflow/tensorflow:2.9.1-gpu-jupyter\n"
     + fail("libcuda.so.1") + "\nW tensorflow/stream_executor/cuda/cuda_driver.cc:269] failed call to cuInit: UNKNOWN "
     "ERROR (303)", "no-gpu-visible", "--gpus all"),
    # cuInit's 500 in a container (toolkit / Docker Desktop older than the driver), by name and by number
    ("container-cuinit-not-found", "$ docker run --gpus all -it tensorflow/tensorflow:latest-gpu bash\nE "
     "external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: CUDA_ERROR_NOT_FOUND: "
     "named symbol not found", "cuinit-error", "Docker Desktop"),
    ("compose-cuinit-500", "trainer-1  | W tensorflow/stream_executor/cuda/cuda_driver.cc:326] failed call to cuInit: "
     "UNKNOWN ERROR (500)\ntrainer-1  | $ docker compose up", "cuinit-error", "container toolkit"),
    ("docker-run-no-gpus-torch", "$ docker run --rm -it pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime python -c "
     "'import torch; torch.zeros(1).cuda()'\nRuntimeError: Found no NVIDIA driver on your system. Please check that "
     "you have an NVIDIA GPU and installed a driver", "no-gpu-visible", "--gpus all"),
    ("tf214-no-drivers", "I external/local_tsl/tsl/cuda/cudart_stub.cc:31] Could not find cuda drivers on your "
     "machine, GPU will not be used.", "no-gpu-harmless", "TF_CPP_MIN_LOG_LEVEL"),
    ("container-804", "failed call to cuInit: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was "
     "attempted on non supported HW\nretrieving CUDA diagnostic information for host: 0123456789ab",
     "driver-too-old", "on the host"),
    ("host-804", "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: "
     "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was attempted on non supported HW",
     "driver-too-old", "remove cuda-compat"),
    ("host-804-after-driver-update", "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: "
     "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was attempted on non supported HW\n"
     "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:200] libcuda reported version is: 470.57.2\n"
     "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:313] kernel version 460.91.3 does not match DSO version "
     "470.57.2 -- cannot find working devices in this configuration", "driver-dso-mismatch", "reboot"),
    ("container-prompt-nvml-mismatch", "root@5561000296a4:~# nvidia-smi\nFailed to initialize NVML: Driver/library "
     "version mismatch", "driver-dso-mismatch", "on the host"),
    ("ngc-no-supported-gpu-without-gpus", "$ docker run -it --rm --net=host tritonserver-clients\n\n"
     "ERROR: No supported GPU(s) detected to run this container", "no-gpu-visible", "--gpus all"),
    ("ray-worker-no-gpu", "Error: (pid=3343) 2019-08-13 11:02:51.856630: E tensorflow/stream_executor/cuda/"
     "cuda_driver.cc:300] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
     "no-gpu-visible", "num_gpus=1"),
    ("slurm-job-no-gpu", "srun: job 4242 queued and waiting for resources\nE tensorflow/stream_executor/cuda/"
     "cuda_driver.cc:271] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
     "no-gpu-visible", "--gres=gpu:1"),
    ("dnn-not-found-tf29", "I tensorflow/core/util/util.cc:169] TensorFlow 2.9.1\nNode: 'sequential/conv2d/Conv2D'\n"
     "DNN library is not found.", "cudnn-version-mismatch", "cuDNN 8.1"),
    ("dnn-not-found-cudnn-missing", "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load "
     "dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or "
     "directory\nDNN library is not found.", "missing-cudnn", "cuDNN"),
    ("cudnn-not-initialized-under-old-driver", "I tensorflow/stream_executor/dso_loader.cc:139] successfully opened "
     "CUDA library libcublas.so.9.0 locally\nE tensorflow/stream_executor/cuda/cuda_dnn.cc:385] could not create cudnn "
     "handle: CUDNN_STATUS_NOT_INITIALIZED\nI tensorflow/stream_executor/cuda/cuda_diagnostics.cc:369] driver version "
     "file contents: \"\"\"NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.69  Wed Aug 16 19:34:54 PDT 2017\n"
     "E tensorflow/stream_executor/cuda/cuda_dnn.cc:393] possibly insufficient driver version: 384.69.0",
     "driver-too-old", "384.81"),
    ("ldso-libcuda-program-cannot-start", "$ ./basecaller --device cuda:0\nbasecaller: error while loading shared "
     "libraries: libcuda.so.1: cannot open shared object file: No such file or directory", "libcuda-missing",
     "install the NVIDIA driver"),
    ("ldso-libcuda-in-container-without-gpus", "$ docker run --rm -it sdcpp:cuda ./sd -m model.gguf\n./sd: error while "
     "loading shared libraries: libcuda.so.1: cannot open shared object file: No such file or directory",
     "no-gpu-visible", "--gpus all"),
    ("docker-desktop-cuinit-500", "$ docker run --gpus all --rm tensorflow/tensorflow:latest-gpu python -c 'import "
     "tensorflow as tf'\nE external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] failed call to cuInit: "
     "CUDA_ERROR_NOT_FOUND: named symbol not found", "cuinit-error", "libnvdxgdmal.so.1"),
    ("smi-418-cuda11", "| NVIDIA-SMI 418.87.01    Driver Version: 418.87.01    CUDA Version: 10.1     |\n"
     + fail("libcudart.so.11.0"), "driver-too-old", "460.32.03"),
    ("nvrm-api-mismatch", "NVRM: API mismatch: the client has the version 470.82.01, but\nNVRM: this kernel module "
     "has the version 470.63.01.", "driver-dso-mismatch", "reboot"),
    ("pycharm-avx", "C:\\Users\\me\\venv\\Scripts\\python.exe C:/Users/me/train.py\n\nProcess finished with exit "
     "code -1073741795 (0xC000001D)", "cpu-no-avx", "AVX"),
    ("win-illegal-instruction-unsigned", "ImportError: DLL load failed with error code 3221225501 while importing "
     "_pywrap_tensorflow_internal", "cpu-no-avx", "AVX"),
    # SIGILL as zsh (signal names of Src/signames2.awk) and fish print it after `import tensorflow`
    ("zsh-sigill", "$ python3 -c 'import tensorflow'\nzsh: illegal hardware instruction  python3 -c 'import "
     "tensorflow'", "cpu-no-avx", "/proc/cpuinfo"),
    ("fish-sigill", "fish: Job 1, 'python3 -c \"import tensorflow\"' terminated by signal SIGILL (Illegal "
     "instruction)", "cpu-no-avx", "AVX"),
    ("win-avx-dll-init", "ImportError: DLL load failed: A dynamic link library (DLL) initialization routine failed.",
     "cpu-no-avx", "AVX"),
    ("win-pywrap", "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: The specified module "
     "could not be found.\n\nFailed to load the native TensorFlow runtime.", "msvc-runtime",
     "Visual C++ Redistributable"),
    ("win-32bit", "ImportError: DLL load failed: %1 is not a valid Win32 application.", "python-unsupported",
     "64-bit Python"),
    ("store-python", "File \"C:\\Users\\me\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.9_qbz5n2kfra8p0"
     "\\LocalCache\\local-packages\\Python39\\site-packages\\tensorflow\\python\\pywrap_tensorflow.py\", line 64\n"
     "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: The specified module could not be "
     "found.", "store-python", "python.org"),
    ("vcruntime-dialog", "The code execution cannot proceed because VCRUNTIME140_1.dll was not found.",
     "msvc-runtime", "vc_redist.x64.exe"),
    # cuDNN 8's loader on Windows when a sub-DLL itself is absent (one DLL copied instead of the whole bin folder)
    ("win-cudnn-sub-dll-absent", "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library "
     "path!", "missing-cudnn", "whole set"),
    # tensorflow[and-cuda] on Windows: NVIDIA's CUDA wheels are Linux-only
    ("win-and-cuda-wheel", "(venv) C:\\Users\\me\\proj>pip install tensorflow[and-cuda]==2.14.0\nERROR: No matching "
     "distribution found for nvidia-cudnn-cu11==8.6.0.163; extra == \"and-cuda\"", "windows-gpu-after-210", "WSL2"),
    # DeepFaceLab's device check names only the minimum; TF's own line on a Windows machine names the GPU's
    ("dfl-no-capable-device", "C:\\DeepFaceLab\\_internal\\python-3.6.8\\python.exe main.py extract\nNo CUDA "
     "device found with minimum required compute capability 3.5", "gpu-too-old", "cuda-gpus"),
    ("win-cc30-ignored", "C:\\Users\\me>python -c \"import tensorflow as tf; print(tf.test.is_gpu_available())\"\n"
     "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1703] Ignoring visible gpu device (device: 0, name: GeForce "
     "GTX 660M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The minimum "
     "required Cuda capability is 3.5.", "gpu-too-old", "compute capability 3.5"),
    # CTranslate2's loader wording (whisperX, faster-whisper); a cuDNN sub-library's error 126 beside a missing
    # cuBLAS is that missing dependency, not zlibwapi
    ("ctranslate2-cublas12", "  File \"whisperx\\asr.py\", line 104, in encode\nRuntimeError: Library "
     "cublas64_12.dll is not found or cannot be loaded", "missing-cuda-runtime", "cublas64_12.dll"),
    ("ctranslate2-cudnn-126-cublas", "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\nPlease make "
     "sure cudnn_cnn_infer64_8.dll is in your library path!\nRuntimeError: Library cublas64_12.dll is not found or "
     "cannot be loaded", "missing-cuda-runtime", "CUDA 12"),
    # kmod's newer wording names the directory; nvidia-smi alone on a Linux host says the same of the module
    ("kmod-no-nvidia-module", "$ uname -r\n6.5.0-14-generic\n$ sudo modprobe nvidia\nmodprobe: FATAL: Module nvidia "
     "not found in directory /lib/modules/6.5.0-14-generic", "libcuda-missing", "DKMS"),
    ("linux-smi-no-driver", "user@host:~$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with "
     "the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n$ uname -a\nLinux host "
     "5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux", "libcuda-missing", "modprobe nvidia"),
    # docker-compose 1.x's schema check in jsonschema's plural wording
    ("compose-regexes-plural", "$ docker-compose up\nERROR: The Compose file './docker-compose.yml' is invalid "
     "because:\nservices.app.deploy.resources.reservations 'capabilities', 'devices' do not match any of the "
     "regexes: '^x-'", "docker-too-old", "1.28"),
    # L4T's release file as the only Jetson sign
    ("jetson-tegra-release", "$ head -n 1 /etc/nv_tegra_release\n# R35 (release), REVISION: 4.1, GCID: 33958178, "
     "BOARD: t186ref, EABI: aarch64\nImportError: libcudnn.so.8: cannot open shared object file: No such file or "
     "directory", "jetson-container", "--runtime nvidia"),
    # nvcc's CUDA 12 on native Windows with no TF named and nothing failing to load: no Windows GPU TF uses it
    ("win-nvcc-cuda12", "C:\\Users\\me>nvcc --version\nnvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation "
     "tools, release 12.1, V12.1.105", "windows-gpu-after-210", "WSL2"),
    # a CPU model without AVX (the brand string as Windows prints it) beside TF's DLL load failure
    ("cpu-model-core2", "Processor: Intel(R) Core(TM)2 Quad CPU    Q9550  @ 2.83GHz\nImportError: DLL load failed: "
     "The specified module could not be found.\nFailed to load the native TensorFlow runtime.", "cpu-no-avx", "AVX"),
    ("zlibwapi-named", "Could not locate zlibwapi.dll. Please make sure it is in your library path!", "zlibwapi",
     "zlibwapi.dll"),
    ("tensorrt-only", "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find "
     "TensorRT", "optional-library", "TF-TRT"),
    ("cublas-init", "E tensorflow/stream_executor/cuda/cuda_blas.cc:226] failed to create cublas handle: "
     "CUBLAS_STATUS_NOT_INITIALIZED\ntensorflow.python.framework.errors_impl.InternalError: Blas GEMM launch failed",
     "cublas-init-failed", "set_memory_growth"),
    ("oom", "ResourceExhaustedError: OOM when allocating tensor with shape[256,512,28,28] and type float on "
     "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc", "gpu-out-of-memory", "batch"),
    ("numpy-alias", "AttributeError: module 'numpy' has no attribute 'object'.", "numpy2", "numpy<1.24"),
    ("numpy-symbolic-tf24", "tensorflow==2.4.1\nNotImplementedError: Cannot convert a symbolic Tensor "
     "(lstm/strided_slice:0) to a numpy array.", "numpy2", "numpy==1.19.5"),
    ("protobuf-tf29-pin", "tensorflow-2.9.3.dist-info\nTypeError: Descriptors cannot not be created directly.",
     "protobuf4", "protobuf==3.19.6"),
    ("pip-no-wheel", "ERROR: Could not find a version that satisfies the requirement tensorflow==2.4.0 (from "
     "versions: 2.5.0, 2.6.0)\nERROR: No matching distribution found for tensorflow==2.4.0", "python-unsupported",
     "3.6-3.8"),
    ("win-tf211-intel", "C:\\venv\\Lib\\site-packages\\tensorflow_intel-2.11.0.dist-info\nNum GPUs Available:  0",
     "windows-gpu-after-210", "WSL2"),
    ("ampere-kernel-image", "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit "
     "initialization on GPU:0 failed. Status: device kernel image is invalid", "gpu-too-new", "CUDA 11"),
    ("xla-ptxas", "2023 W tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:115] Couldn't get ptxas version "
     "string: INTERNAL: Couldn't invoke ptxas --version", "xla-libdevice", "--xla_gpu_cuda_data_dir"),
    ("no-device", f"{DSO}Successfully opened dynamic library libcuda.so.1\nE tensorflow/stream_executor/cuda/"
     "cuda_driver.cc:271] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
     "no-gpu-visible", "--gpus all"),
    ("cudnn-status", "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: "
     "CUDNN_STATUS_INTERNAL_ERROR", "cudnn-init-failed", "set_memory_growth"),
    ("cudnn-mismatch", "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but "
     "source was compiled with: 8.1.0.", "cudnn-version-mismatch", "8.1"),
    ("dso-mismatch", "E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:313] kernel version 460.91.3 does not "
     "match DSO version 470.57.2 -- cannot find working devices in this configuration", "driver-dso-mismatch",
     "reboot"),
]

# Docker, the NVIDIA container toolkit, WSL's own messages and the driver API: (case id, log, top, fix word)
CASES += [
    ("docker-no-runtime", 'docker: Error response from daemon: could not select device driver "" with capabilities: '
     "[[gpu]].", "container-toolkit-missing", "nvidia-ctk runtime configure"),
    ("docker-runtime-name", "docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
     "container-toolkit-missing", "--gpus all"),
    ("docker-desktop", 'PS C:\\Users\\me> docker run --gpus all nvidia/cuda nvidia-smi\ndocker: Error response from '
     'daemon: could not select device driver "" with capabilities: [[gpu]].', "container-toolkit-missing",
     "WSL 2 based engine"),
    ("docker-old", "unknown flag: --gpus\nSee 'docker run --help'.", "docker-too-old", "19.03"),
    ("compose-old", "ERROR: The Compose file './docker-compose.yml' is invalid because:\nUnsupported config option "
     "for services.tf: 'runtime'", "docker-too-old", "deploy.resources.reservations.devices"),
    ("nvc-cuda-requirement", "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=11.2, please "
     "update your driver to a newer version, or use an earlier cuda container: unknown.", "container-driver-too-old",
     "460.32.03"),
    # a CUDA release no environment uses: the driver minimum from NVIDIA's table (matrix.yaml nvidia.driver_min)
    ("nvc-cuda-requirement-outside-matrix", "nvidia-container-cli: requirement error: unsatisfied condition: "
     "cuda>=10.0\\n\\\"\"\": unknown.", "container-driver-too-old", "410.48"),
    ("ptxas-too-old-for-sm86", "W tensorflow/stream_executor/gpu/asm_compiler.cc:235] Your CUDA software stack is "
     "old. The ptxas error was: ptxas fatal   : Value 'sm_86' is not defined for option 'gpu-name'",
     "gpu-too-new", "CUDA 11.1"),
    ("ptxas-does-not-support-cc89", "W external/org_tensorflow/tensorflow/stream_executor/gpu/asm_compiler.cc:191] "
     "Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9", "gpu-too-new", "CUDA 11.8"),
    ("nvcc-sm89", "nvcc fatal   : Value 'sm_89' is not defined for option 'gpu-architecture'", "gpu-too-new", "nvcc"),
    ("gpu-image-without-gpus", "LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64\n" + DSO.replace(
     "W ", "I ") + "Successfully opened dynamic library libcudart.so.11.0\n" + fail("libcuda.so.1") + "\nI "
     "tensorflow/stream_executor/cuda/cuda_diagnostics.cc:163] no NVIDIA GPU device is present: /dev/nvidia0 does "
     "not exist", "no-gpu-visible", "--gpus all"),
    ("nvml-unknown-no-container-word", "$ nvidia-smi -L\nFailed to initialize NVML: Unknown Error",
     "container-nvml-lost", "create-dev-char-symlinks"),
    ("device-lib-cpu-only", '(base) C:\\Users\\me>python -c "from tensorflow.python.client import device_lib; '
     'print(device_lib.list_local_devices())"\n[name: "/device:CPU:0"\ndevice_type: "CPU"\n'
     'memory_limit: 268435456\n]', "windows-gpu-after-210", "WSL2"),
    ("nvc-nvml-driver", "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
     "container-no-host-driver", "nvidia-smi"),
    ("nvc-load-library", "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: "
     "cannot open shared object file: no such file or directory: unknown.", "container-no-host-driver", "snap"),
    ("nvml-lost", "$ docker exec -it tf nvidia-smi\nFailed to initialize NVML: Unknown Error",
     "container-nvml-lost", "create-dev-char-symlinks"),
    ("image-driver-files", "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/40c7/"
     "merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.", "container-image-driver-libs",
     "RUN rm -f /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
    ("jetson", "docker run --runtime nvidia registry.example.org/nvidia/l4t-tensorflow:r32.7.1-tf2.7-py3\nOSError: "
     "libcurand.so.10: cannot open shared object file: No such file or directory", "jetson-container",
     "nv_tegra_release"),
    ("wsl-symlink", "Processing triggers for libc-bin (2.31-0ubuntu9.9) ...\n/sbin/ldconfig.real: "
     "/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link", "wsl-libcuda-symlink", "mklink"),
    ("wsl-blocked", "Linux PC 5.15.90.1-microsoft-standard-WSL2 #1 SMP\n$ nvidia-smi\nFailed to initialize NVML: GPU "
     "access blocked by the operating system", "wsl-gpu-unavailable", "WDDM"),
    ("wsl-smi-path", "Welcome to Ubuntu 20.04 LTS (GNU/Linux 5.10.16.3-microsoft-standard-WSL2 x86_64)\n$ nvidia-smi\n"
     "nvidia-smi: command not found", "wsl-lib-path", "export PATH"),
    ("numa", "I tensorflow/compiler/xla/stream_executor/cuda/cuda_gpu_executor.cc:981] could not open file to read "
     "NUMA node: /sys/bus/pci/devices/0000:01:00.0/numa_node\nYour kernel may have been built without NUMA support.",
     "numa-harmless", "harmless"),
    ("cuinit-unknown", "E tensorflow/stream_executor/cuda/cuda_driver.cc:491] failed call to cuInit: "
     "CUDA_ERROR_UNKNOWN", "cuinit-error", "nvidia_uvm"),
    ("cuinit-busy", "E tensorflow/stream_executor/cuda/cuda_driver.cc:328] failed call to cuInit: "
     "CUDA_ERROR_DEVICES_UNAVAILABLE: CUDA-capable device(s) is/are busy or unavailable", "cuinit-error",
     "nvidia-smi -c 0"),
    # CUDA's stub libcuda: TF's cuInit 34, PyTorch's runtime text, a loader path into a stubs folder in an image
    ("cuinit-stub", "W tensorflow/stream_executor/cuda/cuda_driver.cc:326] failed call to cuInit: UNKNOWN ERROR (34)",
     "libcuda-stub", "stubs"),
    ("torch-stub-text", "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run "
     "some cuda functions before calling NumCudaDevices() that might have already set an error? Error 34: CUDA driver "
     "is a stub library", "libcuda-stub", "LD_LIBRARY_PATH"),
    ("container-stub-path", "root@4f1c2a9b7e3d:/app# docker run --gpus all img\nOSError: /usr/local/cuda/lib64/stubs/"
     "libcuda.so: undefined symbol: cuDeviceGetUuid_v2", "libcuda-stub", "--gpus all"),
    # WSL 2: which side is at fault (wsl_gpu_unavailable's docstring)
    ("wsl-insider-build", "Microsoft Windows [Version 10.0.21343.1000]\nLinux version 5.4.91-microsoft-standard-WSL2\n"
     "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
     "wsl-gpu-unavailable", "Insider"),
    # a release build below wsl.windows_build_min, or a Windows driver below wsl.driver_min_windows, is the cause
    # even when the log has no failure line (systeminfo's wording; an nvidia-smi header of a preview driver)
    ("wsl-old-build-alone", "OS Version:                10.0.18363 N/A Build 18363\nLinux DESKTOP 4.19.128-microsoft-"
     "standard #1 SMP\n$ ./deviceQuery", "wsl-gpu-unavailable", "19044"),
    ("wsl-preview-driver-alone", "Linux PC 5.10.16.3-microsoft-standard-WSL2\n| NVIDIA-SMI 470.14       Driver "
     "Version: 470.14       CUDA Version: 11.3     |", "wsl-gpu-unavailable", "495"),
    # the runtime's cudaHostAlloc failing (a second program: MindSpore's arena) under WSL 2; the corpus has TF, ggml
    # and PyTorch's wordings
    ("wsl-pinned-cudahostalloc", "Linux PC 5.10.60.1-microsoft-standard-WSL2 #1 SMP\n[ERROR] MD(14433,7fea2effd700,"
     "python):2021-12-12-14:13:43.932.181 [mindspore/ccsrc/minddata/dataset/util/arena.cc:250] Init] cudaHostAlloc "
     "failed, ret[2], out of memory", "wsl-pinned-memory-limit", "pin_memory=False"),
    ("wsl-old-kernel", "Linux version 4.19.104-microsoft-standard (oe-user@oe-host)\n$ nvidia-smi\nNVIDIA-SMI has "
     "failed because it couldn't communicate with the NVIDIA driver.", "wsl-gpu-unavailable", "wsl --update"),
    # below wsl.kernel_min (Microsoft's minimum for CUDA) beside a GPU failure; a current kernel: the loader path
    ("wsl-kernel-below-cuda-min", "$ uname -r\n5.10.16.3-microsoft-standard-WSL2\n$ nvidia-smi\nNVIDIA-SMI has "
     "failed because it couldn't communicate with the NVIDIA driver.", "wsl-gpu-unavailable", "5.10.43.3"),
    ("wsl-current-kernel-no-driver", "Linux PC 5.15.153.1-microsoft-standard-WSL2\nUserWarning: CUDA initialization: "
     "Found no NVIDIA driver on your system.", "wsl-lib-path", "/usr/lib/wsl/lib"),
    # another program's build without code for a GPU the log does not name: older or newer, both ways named
    ("paddle-no-kernel-image", "OSError: (External) CUDA error(209), no kernel image is available for execution on "
     "the device.\n  [Hint: 'cudaErrorNoKernelImageForDevice'.]\n  (at /paddle/paddle/phi/core/platform/device/gpu/"
     "gpu_info.cc:133)", "gpu-too-new", "older CUDA"),
    ("wsl-old-windows-driver", "Linux PC 5.10.16.3-microsoft-standard-WSL2\n| NVIDIA-SMI 461.92       Driver Version: "
     "461.92       CUDA Version: 11.2     |\nCUDA error at helper_cuda.h:777 code=35(cudaErrorInsufficientDriver)",
     "wsl-gpu-unavailable", "495"),
    ("wsl-docker-blocked", "$ docker exec rag-ollama nvidia-smi\nFailed to initialize NVML: GPU access blocked by the "
     "operating system", "wsl-gpu-unavailable", "wsl --update"),
    ("wsl-smi-no-nvml", "Linux PC 5.15.153.1-microsoft-standard-WSL2\n$ nvidia-smi\nNVIDIA-SMI couldn't find "
     "libnvidia-ml.so library in your system.", "wsl-lib-path", "ldconfig"),
    ("wsl-triton-libcuda", "Linux PC 5.15.153.1-microsoft-standard-WSL2\n  File \"/home/u/.venv/lib/python3.10/site-"
     "packages/triton/common/build.py\", line 30, in libcuda_dirs\nAssertionError: libcuda.so cannot found!",
     "wsl-lib-path", "/usr/lib/wsl/lib"),
    ("wsl-devices-busy", "Linux PC 5.4.72-microsoft-standard-WSL2\nRuntimeError: CUDA runtime implicit initialization "
     "on GPU:0 failed. Status: all CUDA-capable devices are busy or unavailable", "wsl-gpu-unavailable",
     "Windows build"),
    ("wsl-tcc", "Linux PC 5.15.153.1-microsoft-standard-WSL2\n|   0  NVIDIA L40S                  TCC   |   "
     "00000000:61:00.0 Off |                    0 |", "wsl-gpu-unavailable", "WDDM"),
    ("wsl-no-device-smi-works", "Linux PC 5.15.90.1-microsoft-standard-WSL2\n| NVIDIA-SMI 535.86.05   Driver "
     "Version: 536.23   CUDA Version: 12.2 |\nCUDA error 100 at ggml-cuda.cu:495: no CUDA-capable device is "
     "detected", "wsl-lib-path", "/usr/lib/wsl/lib"),
    ("wsl-no-device", "Linux PC 5.15.90.1-microsoft-standard-WSL2\nfailed call to cuInit: CUDA_ERROR_NO_DEVICE: no "
     "CUDA-capable device is detected", "wsl-linux-driver", "purge"),
    ("wsl-stub", "Linux PC 5.10.16.3-microsoft-standard-WSL2\n" + fail("libcuda.so.1") + "\nE external/org_tensorflow/"
     "tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: UNKNOWN ERROR (34)", "wsl-lib-path",
     "stubs"),
    ("wsl-linux-libcuda-version", "Discovered GPU libraries: [/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.104.05 "
     "/usr/lib/wsl/lib/libnvidia-ml.so.1]\nCUDA error 100: no CUDA-capable device is detected", "wsl-linux-driver",
     "purge"),
    ("wsl-cudnn-sub", "Linux PC 5.15.90.1-microsoft-standard-WSL2\nCould not load library libcudnn_cnn_infer.so.8",
     "wsl-lib-path", "/usr/lib/wsl/lib"),
    ("wsl-cudnn-sub-itself", "Linux PC 5.15.90.1-microsoft-standard-WSL2\nCould not load library "
     "libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or "
     "directory", "missing-cudnn", "cuDNN 8 for CUDA 11"),  # cuDNN's own words, no TF in sight: not TF's 8.1
    ("numa-pluggable", "I tensorflow/core/common_runtime/pluggable_device/pluggable_device_factory.cc:305] Could not "
     "identify NUMA node of platform GPU ID 0, defaulting to 0. Your kernel may not have been built with NUMA support.",
     "numa-harmless", "harmless"),
    ("wsl-no-dxg", "Linux PC 5.10.102.1-microsoft-standard-WSL2\n$ ls -l /dev/dxg\nls: cannot access '/dev/dxg': "
     "No such file or directory", "wsl-gpu-unavailable", "wsl --update"),
    ("wsl-no-lib-folder", "Linux PC 5.10.16.3-microsoft-standard-WSL2\n$ ls /usr/lib/wsl/lib\nls: cannot access "
     "'/usr/lib/wsl/lib': No such file or directory", "wsl-gpu-unavailable", "NVIDIA Windows driver"),
    ("cc30-ignored", "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1283] Ignoring visible gpu device (device: 0, "
     "name: Quadro K2000M, pci bus id: 0000:01:00.0, compute capability: 3.0) with Cuda compute capability 3.0. The "
     "minimum required Cuda capability is 3.5.", "gpu-too-old", "TF_CUDA_COMPUTE_CAPABILITIES=3.0"),
    # Jetson: the linker on the empty placeholder of a build without the NVIDIA runtime
    ("jetson-build-placeholder", "/usr/bin/ld: /usr/lib/aarch64-linux-gnu/libcudnn.so: file not recognized: file "
     "truncated\ncollect2: error: ld returned 1 exit status", "jetson-container", "default-runtime"),
    ("ngc-driver-check", "ERROR: This container was built for NVIDIA Driver Release 455.23 or later, but\n"
     "       version 450.66 was detected and compatibility mode is UNAVAILABLE.", "driver-too-old", "455.23"),
    ("factory-twice", "E0000 00:00:1744015772.625537 3982776 cuda_dnn.cc:8579] Unable to register cuDNN factory: "
     "Attempting to register factory for plugin cuDNN when one has already been registered", "cuda-factory-harmless",
     "TF_CPP_MIN_LOG_LEVEL"),
    ("numpy-old", ">>> import tensorflow as tf\nRuntimeError: module compiled against API version 0xe but this "
     "version of numpy is 0xd\nImportError: numpy.core.multiarray failed to import", "numpy-too-old", "numpy>=1.16"),
    ("protobuf-ext", "  File \"C:\\Python36\\lib\\site-packages\\google\\protobuf\\descriptor.py\", line 47\n"
     "    from google.protobuf.pyext import _message\nImportError: DLL load failed: The specified procedure could not "
     "be found.", "dll-load-failed-other", "protobuf==3.6.0"),
    ("cudnn-mismatch-prompt", "(base) me@box:~/proj$ python train.py\n"
     "E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 but source was "
     "compiled with: 8.1.0.", "cudnn-version-mismatch",
     "and in LD_LIBRARY_PATH"),
    # TF 2.x: cuDNN refusing an older minor, then the convolution's "DNN library is not found" (the mismatch first)
    ("cudnn-mismatch-then-dnn-not-found", "E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:417] Loaded "
     "runtime CuDNN library: 8.1.0 but source was compiled with: 8.6.0.  CuDNN library needs to have matching major "
     "version and equal or higher minor version.\ntensorflow.python.framework.errors_impl.UnimplementedError: Graph "
     "execution error:\nDNN library is not found.", "cudnn-version-mismatch", "cuDNN 8.6"),
    # PyTorch's driver check (c10/cuda/CUDAFunctions.cpp, torch/cuda/__init__.py _check_driver): the driver's library
    # is not there, a CUDA failure like TF's, read by platform
    ("torch-no-driver-linux", "  File \"/home/u/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line "
     "298, in _lazy_init\n    torch._C._cuda_init()\nRuntimeError: Found no NVIDIA driver on your system. Please "
     "check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
     "libcuda-missing", "install the NVIDIA driver"),
    ("torch-no-driver-windows", "  File \"C:\\Users\\me\\venv\\lib\\site-packages\\torch\\cuda\\__init__.py\", line "
     "239, in _lazy_init\n    torch._C._cuda_init()\nRuntimeError: Found no "
     "NVIDIA driver on your system.", "libcuda-missing", "nvcuda.dll"),
    ("torch-no-driver-wsl1", "Linux PC 4.4.0-19041-Microsoft #1237-Microsoft Sat Sep 11 14:32:00 PST 2021 x86_64\n"
     "AssertionError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
     "a driver from http://www.nvidia.com/Download/index.aspx", "wsl1", "wsl --set-version"),
    ("torch-no-driver-wsl2", "Linux PC 5.15.90.1-microsoft-standard-WSL2\nRuntimeError: Found no NVIDIA driver on "
     "your system.", "wsl-lib-path", "/usr/lib/wsl/lib"),
    ("torch-driver-too-old", "RuntimeError: The NVIDIA driver on your system is too old (found version 10010). Please "
     "update your GPU driver by downloading and installing a new version from the URL: "
     "http://www.nvidia.com/Download/index.aspx", "driver-too-old", "update the NVIDIA driver"),
    # WSL's own libraries (DirectML, Mesa's d3d12, the toolkit's dxcore) missing: no GPU paravirtualisation
    ("wsl-d3d12core-missing", "OSError: libd3d12core.so: cannot open shared object file: No such file or directory",
     "wsl-gpu-unavailable", "winver"),
    ("wsl-toolkit-dxcore", "Linux PC 5.10.16.3-microsoft-standard-WSL2\nI0101 00:00:00.000000 812 nvc.c:395] dxcore "
     "initialization failed, continuing assuming a non-WSL environment\nnvidia-container-cli: initialization error: "
     "nvml error: driver not loaded", "wsl-gpu-unavailable", "wsl --update"),
    ("wsl-lib-listing-no-cuda", "me@PC:~$ ls -l /usr/lib/wsl/lib/\ntotal 38000\n-r-xr-xr-x 1 root root   832936 Sep  1 "
     "libd3d12.so\n-r-xr-xr-x 1 root root  5115168 Sep  1 libd3d12core.so\n-r-xr-xr-x 1 root root 25927832 Sep  1 "
     "libdirectml.so\n-r-xr-xr-x 1 root root   878768 Sep  1 libdxcore.so", "wsl-gpu-unavailable", "lxss"),
    # NVML's init errors by number and by name (nvml.h): WSL 2's loader path; on Linux the driver not loaded
    ("wsl-nvml-init-9", "Linux PC 5.15.133.1-microsoft-standard-WSL2\ntime=2024-05-01T10:00:00Z level=INFO "
     "source=gpu.go:101 msg=\"nvmlInit_v2 err: Driver Not Loaded (9)\"", "wsl-lib-path", "/usr/lib/wsl/lib"),
    ("nvml-driver-not-loaded", "pynvml.nvml.NVMLError_DriverNotLoaded: Driver Not Loaded", "libcuda-missing",
     "modprobe"),
    ("nvml-library-not-found", "gpu.go:39: CUDA not detected: nvml vram init failure: nvml error 12",
     "libcuda-missing", "install the NVIDIA driver"),
    # a service's "nvidia-smi command failed" while WSL's nvidia-smi answers in the shell
    ("wsl-service-smi", "Dec 19 06:31:34 pc ollama[231]: warning: gpu support may not be enabled: nvidia-smi command "
     "failed\n$ /usr/lib/wsl/lib/nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-5c3a)", "wsl-lib-path",
     "systemctl edit"),
    ("tf1-cudnn-newer", "E tensorflow/stream_executor/cuda/cuda_dnn.cc:396] Loaded runtime CuDNN library: 7102 "
     "(compatibility version 7100) but source was compiled with 7005 (compatibility version 7000).",
     "cudnn-version-mismatch", "cuDNN 7.0"),
]

# Lines that look close to a problem but are none: nothing may be recognised.
NOTHING = [
    # a pinned host allocation failing on native Linux is not WSL 2's limit
    "Linux version 5.15.0-91-generic (buildd@lcy02-amd64-045)\n2020-09-23 13:19:24.277832: W ./tensorflow/core/"
    "common_runtime/gpu/gpu_host_allocator.h:44] could not allocate pinned host memory of size: 415990272",
    # XLA_FLAGS pointing into the environment the log runs in
    "$ echo $XLA_FLAGS\n--xla_gpu_cuda_data_dir=/home/me/miniconda3/envs/gym/lib\n  File \"/home/me/miniconda3/envs/"
    "gym/lib/python3.10/site-packages/tensorflow/__init__.py\", line 37",
    # bitsandbytes found the runtime in its backup folder after all
    "CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. Searching in backup paths...\nDEBUG: "
    "Possible options found for libcudart.so: {PosixPath('/usr/local/cuda/lib64/libcudart.so.11.0')}",
    # a release build at or above WSL's GPU minimum, nothing failing
    "Microsoft Windows [Version 10.0.19045.3570]\nLinux PC 5.15.90.1-microsoft-standard-WSL2",
    "I tensorflow/core/platform/cpu_feature_guard.cc:193] This TensorFlow binary is optimized with oneAPI Deep "
    "Neural Network Library (oneDNN) to use the following CPU instructions in performance-critical operations:  "
    "AVX2 FMA",
    "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1616] Created device /job:localhost/replica:0/task:0/"
    "device:GPU:0 with 9640 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 3080, pci bus id: 0000:01:00.0, "
    "compute capability: 8.6",
    "Epoch 1/10\n  32/60000 [..............................] - ETA: 5:12 - loss: 2.3026",
    "$ systemctl status nvidia-fabricmanager\n     Active: active (running) since Mon 2024-02-26 09:28:18 UTC",
    "root@3f2a9c1b7d8e:/workspace# nvidia-smi -L\nGPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1234)",
    "me@PC:~$ ls /usr/lib/wsl/lib\nlibcuda.so  libcuda.so.1  libcuda.so.1.1  libdxcore.so  nvidia-smi",
    "docker run --gpus all --rm tensorflow/tensorflow:2.9.1-gpu python -c 'import tensorflow as tf'",
    # Linux pip without a matching NVIDIA wheel (an old Python): not the Windows answer, nor any other
    "(venv) me@box:~/proj$ pip install nvidia-cudnn-cu12==9.1.0.70\nERROR: Could not find a version that "
    "satisfies the requirement nvidia-cudnn-cu12==9.1.0.70 (from versions: none)",
    # a GPU kernel's fault (cudaErrorIllegalInstruction's text), not the CPU's SIGILL
    "RuntimeError: CUDA error: an illegal instruction was encountered",
    "",
]


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


@pytest.mark.parametrize("case,log,expected,word", CASES, ids=[c[0] for c in CASES])
def test_rule(case, log, expected, word, facts):
    result = diagnose.explain(log, facts)
    assert result.findings, "nothing recognised"
    top = result.findings[0]
    assert top.id == expected, [f.id for f in result.findings]
    assert word.lower() in top.fix.lower(), top.fix
    assert top.evidence and all(1 <= n <= result.log.line_count for n in top.evidence)
    if result.context.windows:
        assert "LD_LIBRARY_PATH" not in top.fix and "ldconfig" not in top.fix and "ln -s" not in top.fix
    elif result.context.linux_like:
        assert ".dll" not in top.fix and "%PATH%" not in top.fix


@pytest.mark.parametrize("log", NOTHING)
def test_no_problem_no_finding(log, facts):
    result = diagnose.explain(log, facts)
    assert result.findings == [] and not result.explained


def test_every_rule_has_a_case():
    covered = {c[2] for c in CASES}
    assert set(rules.IDS) <= covered, set(rules.IDS) - covered


def test_a_root_cause_supersedes_what_it_explains(facts):
    """A container's compat libcuda explains both the kernel/DSO mismatch and the missing device."""
    log = ("failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
           "retrieving CUDA diagnostic information for host: f7b7a8f85319\n"
           "kernel version 455.32.0 does not match DSO version 460.73.1 -- cannot find working devices")
    assert [f.id for f in diagnose.explain(log, facts).findings] == ["driver-too-old"]


def test_harmless_findings_come_last(facts):
    log = fail("libnvinfer.so.7") + "\n" + fail("libcudnn.so.8")
    assert [f.id for f in diagnose.explain(log, facts).findings] == ["missing-cudnn", "optional-library"]


def test_no_driver_at_all_explains_the_missing_runtime_too(facts):
    """A machine without the NVIDIA driver (libcuda.so.1 missing, cuInit 303) also misses CUDA: harmless first."""
    log = (fail("libcudart.so.11.0") + "\nI tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart "
           "dlerror if you do not have a GPU set up on your machine.\n" + fail("libcuda.so.1") +
           "\nW tensorflow/stream_executor/cuda/cuda_driver.cc:326] failed call to cuInit: UNKNOWN ERROR (303)")
    assert [f.id for f in diagnose.explain(log, facts).findings] == ["no-gpu-harmless", "missing-cuda-runtime"]
    # The same in WSL2, where the GPU comes from the Windows driver: nothing harmless about it.
    wsl = "Linux PC 5.10.16.3-microsoft-standard-WSL2 #1 SMP\n"
    assert [f.id for f in diagnose.explain(wsl + log, facts).findings] == ["wsl-lib-path", "missing-cuda-runtime"]


def test_quoted_evidence_is_the_message_without_paste_decoration(facts):
    log = ("Epoch 1/3\n> `\x1b[33m" + fail("libcudnn.so.8") + "\x1b[0m`\n"
           "client_2  | E   " + fail("libcublas.so.11"))
    result = diagnose.explain(log, facts)
    quoted = [result.log.line_text(n) for f in result.findings for n in f.evidence]
    assert quoted == [fail("libcublas.so.11"), fail("libcudnn.so.8")]


def test_overrides_win_over_inference(facts):
    log = fail("libcudnn.so.8")
    result = diagnose.explain(log, facts, platform="windows", tf="2.4.1", cuda="11.0")
    ctx = result.context
    assert (ctx.platform.value, ctx.tf.value, ctx.cuda_present.value, ctx.envs) == ("windows", "2.4", "11.0", ["tf24"])
    assert "PATH" in result.findings[0].fix and "cuDNN 8.0" in result.findings[0].title


def test_a_fatal_line_outranks_notes_and_is_never_harmless(facts):
    """An `F` line ends the process: what explains it comes first, and a harmless note never sums the log up."""
    numa = ("I tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:937] successful NUMA node read from SysFS had "
            "negative value (-1), but there must be at least one NUMA node, so returning NUMA node zero\n")
    fatal = ("2021-01-01 00:00:00.000000: F tensorflow/stream_executor/cuda/cuda_dnn.cc:534] Check failed: "
             "cudnnSetTensorNdDescriptor(handle_.get(), elem_type, nd, dims.data(), strides.data()) == "
             "CUDNN_STATUS_SUCCESS (3 vs. 0)\nAborted (core dumped)")
    result = diagnose.explain(numa + fail("libnvinfer.so.7") + "\n" + fatal, facts)
    assert result.fatal_lines == [3, 4]
    assert not result.explained or not all(f.harmless for f in result.findings)
    assert "fatal" in diagnose.format_text(result).lower()
    oom = "ResourceExhaustedError: OOM when allocating tensor with shape[256,512]\n"
    cudnn = ("F tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: "
             "CUDNN_STATUS_INTERNAL_ERROR")
    assert [f.id for f in diagnose.explain(oom + cudnn, facts).findings][:1] == ["cudnn-init-failed"]


def test_tf22_on_windows_with_cuda_102_gets_the_copy_the_setup_script_makes(facts):
    """One fact, one answer: matrix.yaml's copy (cuda.10.2.windows.copies) is the fix, as windows/tf22/setup.ps1."""
    copy = next(c for c in matrix().cuda["10.2"].windows.copies if c.to == "cudart64_101.dll")
    log = "\n".join(fail(name, name + " not found") for name in ("cudart64_101.dll", "cublas64_10.dll"))
    top = diagnose.explain(log, facts, tf="2.2", cuda="10.2").findings[0]
    assert top.id == "missing-cuda-runtime"
    assert f"`{copy.source}` as `{copy.to}`" in top.fix and "no other release" not in top.cause
    assert copy.source in (ROOT / "windows" / "tf22" / "setup.ps1").read_text(encoding="utf-8")
    # without CUDA 10.2 installed the answer stays the CUDA 10.1 install
    assert "CUDA 10.1 toolkit" in diagnose.explain(log, facts, tf="2.2").findings[0].fix


def test_every_rule_names_the_source_of_its_messages():
    """builder/diagnose/rules/SOURCES.md has a row for every cause id the rules can give."""
    text = (ROOT / "builder" / "diagnose" / "rules" / "SOURCES.md").read_text(encoding="utf-8")
    assert [i for i in rules.IDS if i not in text] == []


def test_linux_library_names_alone_say_linux_or_wsl(facts):
    """A soname or a Unix path is the same in Linux and WSL 2: the log does not tell, nothing claims "Linux"."""
    ctx = diagnose.explain(fail("libcudart.so.11.0"), facts).context
    assert not ctx.platform and ctx.posix and ctx.linux_like
    assert diagnose.explain("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05\n" + fail("libcudart.so.11.0"),
                            facts).context.platform.value == "linux"


def test_wsl2_from_what_only_wsl2_prints(facts):
    numa = ("E tensorflow/stream_executor/cuda/cuda_gpu_executor.cc:967] could not open file to read NUMA node: "
            "/sys/bus/pci/devices/0000:1d:00.0/numa_node")
    build = "Windows build number: 21337.1000\nme@pc:~$ python train.py\n" + fail("libcudart.so.11.0")
    blocked = "$ docker exec app nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system"
    for log in (numa, build, blocked):
        assert diagnose.explain(log, facts).context.platform.value == "wsl2", log
    # the toolkit tries dxcore on every host: its "dxcore initialization failed" is no sign of WSL
    dxcore = "I0418 nvc.c:395] dxcore initialization failed, continuing assuming a non-WSL environment"
    assert diagnose.explain(dxcore, facts).context.platform.value != "wsl2"
    # a Windows build beside DLL names is native Windows
    native = "Microsoft Windows [Version 10.0.19045.3570]\n" + fail("cudart64_110.dll", "cudart64_110.dll not found")
    assert diagnose.explain(native, facts).context.platform.value == "windows"


def test_a_docker_run_with_a_gpu_request_on_a_continuation_line_is_no_bare_run(facts):
    """The GPU request may sit on a continuation line of the command; then the no-driver line has another cause."""
    tail = "\nI tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda drivers on your machine, GPU will not be"
    bare = "docker run -it \\\n  -v $PWD:/work \\\n  tensorflow/tensorflow:2.14.0-gpu bash" + tail
    asked = "docker run -it \\\n  --gpus all \\\n  tensorflow/tensorflow:2.14.0-gpu bash" + tail
    assert [f.id for f in diagnose.explain(bare, facts).findings][:1] == ["no-gpu-visible"]
    assert "no-gpu-visible" not in [f.id for f in diagnose.explain(asked, facts).findings]
    # the nvidia runtime as Docker's default: NVIDIA_VISIBLE_DEVICES is the request; `docker container run` the same
    default = "docker container run -e NVIDIA_VISIBLE_DEVICES=all tensorflow/tensorflow:2.14.0-gpu" + tail
    assert "no-gpu-visible" not in [f.id for f in diagnose.explain(default, facts).findings]
    plain = "docker container run -it tensorflow/tensorflow:2.14.0-gpu" + tail
    assert [f.id for f in diagnose.explain(plain, facts).findings][:1] == ["no-gpu-visible"]


def test_pip_installing_protobuf4_beside_an_old_tf_is_protobuf4(facts):
    """pip's own lines that put protobuf >= 4 in place are the cause with TF <= 2.8, and nothing with a TF that
    supports it."""
    old = ("Collecting tensorflow==2.6.0\nSuccessfully installed absl-py-1.4.0 keras-2.6.0 protobuf-4.21.12 "
           "tensorflow-2.6.0")
    found = diagnose.explain(old, facts).findings
    assert [f.id for f in found][:1] == ["protobuf4"] and "3.20" in found[0].fix
    new = "Successfully installed protobuf-4.23.4 tensorflow-2.13.0"
    assert "protobuf4" not in [f.id for f in diagnose.explain(new, facts).findings]
    kept = ("Requirement already satisfied: protobuf>=3.9.2 in ./venv/lib/python3.8/site-packages (from "
            "tensorflow==2.4.1) (4.21.9)")
    assert [f.id for f in diagnose.explain(kept, facts).findings][:1] == ["protobuf4"]


def test_cuda_11_from_nvcc_on_windows_is_no_finding(facts):
    """Only CUDA 12 rules out every Windows GPU build of TF; CUDA 11.2 is what TF 2.10 wants."""
    log = "C:\\Users\\me>nvcc --version\nCuda compilation tools, release 11.2, V11.2.152"
    assert "windows-gpu-after-210" not in [f.id for f in diagnose.explain(log, facts).findings]


def test_a_cpu_model_with_avx_is_no_avx_finding(facts):
    """Sandy Bridge and later (four-digit Core numbers, Xeon E5-xxxx) have AVX: the DLL failure stays msvc-runtime."""
    for cpu in ("Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz", "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"):
        log = f"CPU: {cpu}\nImportError: DLL load failed: The specified module could not be found."
        assert [f.id for f in diagnose.explain(log, facts).findings][:1] == ["msvc-runtime"], cpu
