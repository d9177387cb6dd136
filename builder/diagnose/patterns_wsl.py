"""The catalogue of WSL's messages (see builder.diagnose.patterns for how entries are made and where each message
comes from: builder/diagnose/rules/SOURCES.md)."""

from builder.diagnose.needles import pattern as _p

# These patterns spell WSL's library folder literally: they match what programs print, which names the folder WSL
# mounts, not tfenv's fact. The advice takes the folder from the facts (matrix.yaml wsl.lib_dir; rules/_common.py).

# WSL2: glibc ldconfig's warning about the Windows driver's plain copies (elf/ldconfig.c "%s is not a symbolic
# link"), and the GPU paravirtualisation pieces (libdxcore.so, /dev/dxg, /usr/lib/wsl/lib).
WSL = [
    # (and as a Chinese glibc prints it: "%s 不是符号链接", the usual zh_CN wording)
    ("wsl_not_symlink", _p(r"((?:/usr/lib/wsl/lib/)?libcuda\.so[\d.]{0,12})"
                           r"(?: is not a symbolic link| ?不是(?:一个)?符号链接)",
                           "is not a symbolic link", "符号链接")),
    # Triton's libcuda_dirs() (python/triton/common/build.py) when `ldconfig -p` lists no libcuda.so: in WSL 2 the
    # Windows driver's copy is skipped by ldconfig; elsewhere the driver's folder is not in the ld cache
    ("triton_no_libcuda", _p(r"libcuda\.so cannot found")),
    # a link step that needs the unversioned libcuda.so (`-lcuda`) and finds none on the linker's search path (in
    # WSL 2 it is only in /usr/lib/wsl/lib, which ld.wsl.conf gives the loader, not the linker): GNU ld's ldfile.c
    # "cannot find -l%s" (binutils 2.39+ adds ": %E", "No such file or directory"), gold's fileread.cc "cannot
    # find -l%s", lld's "unable to find library -l%s"; CMake's FindCUDA / FindCUDAToolkit leaving the driver
    # library NOTFOUND (CUDA_CUDA_LIBRARY, CUDA_cuda_driver_LIBRARY), also as the "-lCUDA_CUDA_LIBRARY-NOTFOUND"
    # the generated link line then asks for; GNU ld in German ("-l%s kann nicht gefunden werden", as pasted)
    ("link_no_libcuda", _p(r"(cannot find -lcuda\b|unable to find library -lcuda\b|-lcuda kann nicht gefunden werden|"
                           r"CUDA_CUDA_LIBRARY(?:=CUDA_CUDA_LIBRARY)?-NOTFOUND|CUDA_cuda_driver_LIBRARY-NOTFOUND|"
                           r"CUDA_CUDA_LIBRARY \(ADVANCED\)|CUDA_cuda_driver_LIBRARY \(ADVANCED\))",
                           "-lcuda", "CUDA_CUDA_LIBRARY", "CUDA_cuda_driver_LIBRARY")),
    # nvidia-smi cannot load NVML (in WSL 2: /usr/lib/wsl/lib is not where the loader looks)
    ("smi_no_nvml", _p(r"NVIDIA-SMI couldn't find libnvidia-ml\.so library", "NVIDIA-SMI couldn't find")),
    # the unversioned libcuda.so, which the Linux driver always installs but WSL's ldconfig skips (a copy, not a
    # link): cuDNN 8's sub-libraries and bitsandbytes dlopen exactly that name
    # cuda-python's loader (cuda/_cuda/ccuda.pyx "Failed to dlopen libcuda.so") and Rust's cudarc, which dlopens
    # lib{cuda,nvcuda}.so ("Unable to find cuda lib under the names", later "Unable to dynamically load the \"cuda\"
    # shared library"), and PyTorch 2.1's c10/cuda/driver_api.cpp (TORCH_INTERNAL_ASSERT(handle_0) after
    # dlopen("libcuda.so")) say the same of the unversioned name; so does bitsandbytes' summary when its
    # ct.CDLL("libcuda.so") failed (cuda_setup/main.py generate_instructions, 0.37-0.41: "the main CUDA library was
    # not detected", where "the main CUDA runtime library" is libcudart's), and Taichi's CUDA driver loader
    # (taichi/rhi/cuda/cuda_driver.cpp load_lib: TI_WARN("{} lib not found.") with lib_linux = "libcuda.so")
    ("libcuda_unversioned", _p(r"(libcuda\.so: cannot open shared object file|libcuda\.so not found|"
                               r"Failed to dlopen libcuda\.so(?![.\d])|Unable to find cuda lib under the names|"
                               r"Unable to dynamically load the \"cuda\" shared library|"
                               r"handle_0 INTERNAL ASSERT FAILED at \"[^\"\n]{0,60}c10/cuda/driver_api\.cpp|"
                               r"the main CUDA library was not detected|libcuda\.so lib not found)",
                               "libcuda.so: cannot open", "libcuda.so not found", "Failed to dlopen libcuda.so",
                               "Unable to find cuda lib", 'Unable to dynamically load the "cuda"',
                               "handle_0 INTERNAL", "the main CUDA library was not", "libcuda.so lib not found")),
    # cuda-python 11.x (cuda/_cuda/ccuda.pyx), whose dlopen of libcuda.so failed quietly, at the first driver call:
    # 'Function "cuInit" not found'. The same words come from a libcuda without the symbol (a stub), so unlike the
    # names above it does not say WSL 2 by itself
    ("libcuda_no_symbol", _p(r"Function \"(cu(?:Init|DeviceGetCount|GetProcAddress|DriverGetVersion))\" not found",
                             'Function "cu')),
    # nvidia-smi that loaded an NVML which then finds no driver (nvmlErrorString of NVML_ERROR_DRIVER_NOT_LOADED after
    # its "couldn't communicate"): WSL's own nvidia-smi prints this second line, the Linux driver's nvidia-smi
    # (nvidia-utils) without its kernel module prints only the first
    ("smi_nvml_shutdown", _p(r"Failed to properly shut down NVML: (Driver Not Loaded)")),
    # NVML likewise: WSL's driver folder has libnvidia-ml.so.1 only, no unversioned name to dlopen
    ("nvml_unversioned", _p(r"libnvidia-ml\.so: cannot open shared object file", "libnvidia-ml.so: cannot open")),
    # `ldconfig -p` listing a driver library outside /usr/lib/wsl/lib: a Linux driver package inside WSL
    ("ldcache_driver_lib", _p(r"lib(?:cuda|nvidia-ml)\.so[\d.]{0,10} \(libc6[^)\n]{0,30}\) => "
                              r"((?!/usr/lib/wsl)/[\w/.+-]{1,120})", "(libc6")),
    # a driver library named with the Linux driver's version (libcuda.so.535.104.05): only a Linux driver package
    # installs those; the Windows driver's WSL libraries are libcuda.so.1.1 and libnvidia-ml.so.1
    ("linux_driver_lib", _p(r"((?<![\w.])/(?!usr/lib/wsl)[\w/.+-]{0,100}lib(?:cuda|nvidia-ml)\.so\.\d{3}\.\d{1,3}"
                            r"(?:\.\d{1,3})?)", "libcuda.so.", "libnvidia-ml.so.")),
    # the folder the Windows driver's libraries are mounted at is not there
    # (and /usr/lib/wsl/drivers, where WSL mounts the Windows driver store: microsoft/WSL src/linux/init/init.cpp)
    ("wsl_lib_missing", _p(r"(?:cannot access '/usr/lib/wsl/(?:lib|drivers)|/usr/lib/wsl/(?:lib|drivers)/?'?: No such "
                           r"file or directory)", "/usr/lib/wsl/")),
    # glibc's ld.so starting nvidia-smi without NVML on the loader path (elf/dl-load.c "error while loading shared
    # libraries"): in WSL 2 the Windows driver's libnvidia-ml.so.1 is in /usr/lib/wsl/lib
    ("smi_no_nvml", _p(r"nvidia-smi: error while loading shared libraries: libnvidia-ml\.so\.1",
                       "error while loading shared libraries: libnvidia-ml")),
    # a Linux driver being built or loaded for WSL's own kernel: DKMS finds no headers for it (dkms "Your kernel
    # headers for kernel %s cannot be found"), kmod's modprobe finds no nvidia module under its /lib/modules
    ("linux_driver_for_wsl", _p(r"(?:kernel headers for kernel|Module nvidia[\w-]{0,12} not found in directory "
                                r"/lib/modules/) ?([\d.]+-microsoft-standard-WSL2)", "microsoft-standard-WSL2")),
    # the GPU paravirtualisation's user-space parts, which only WSL's /usr/lib/wsl/lib has: dxcore, Direct3D 12 (what
    # DirectML, tensorflow-directml and Mesa's d3d12 driver load)
    ("dxcore_missing", _p(r"(lib(?:dxcore|d3d12|d3d12core|directml)\.so)[^\n]{0,80}(?:cannot open|not found|No such "
                          r"file)", "libdxcore", "libd3d12", "libdirectml")),
    # libnvidia-container's nvc.c: it tries dxcore on every host and says this wherever dxcore is absent, native
    # Linux included; only a log that is otherwise WSL 2 makes it a finding
    ("nvc_dxcore_failed", _p(r"dxcore initialization failed")),
    # `ls /usr/lib/wsl/lib` and the names it printed (the lines after it that name libraries or nvidia-smi)
    ("wsl_lib_listing", _p(r"(?m)\bls\b[^\n]{0,40}/usr/lib/wsl/lib/?[ \t]*\n((?:(?:total \d+|[^\n]{0,300}"
                           r"(?:\.so|nvidia-smi)[^\n]{0,300})(?:\n|$))+)", "/usr/lib/wsl/lib", span=12)),
    # ... and PowerShell's listing of the Windows side of it (`dir C:\Windows\System32\lxss\lib`: "Directory: %s",
    # its Mode/LastWriteTime header, the entries)
    ("wsl_lib_listing", _p(r"(?i:Directory: C:\\Windows\\System32\\lxss\\lib)[ \t]*\n((?:[^\n]{0,300}\n){0,5}?"
                           r"(?:[^\n]{0,300}\.so[^\n]{0,300}(?:\n|$))+)", "lxss\\lib", "LXSS\\LIB", span=16)),
    # Python's os.readlink() on one of them: the driver's libcuda.so* there are copies, not links (EINVAL)
    ("wsl_readlink", _p(r"\[Errno 22\] Invalid argument: '(/usr/lib/wsl/lib/lib[\w.]{1,40})'", "[Errno 22] Invalid")),
    # an NVIDIA driver or CUDA install (kernel headers for its module, the driver or toolkit packages): under WSL 1,
    # which has no Linux kernel and no GPU, a GPU attempt like any failure (wsl1.GPU_KINDS)
    ("gpu_setup", _p(r"\b(linux-headers-\d[\w.-]{0,40}|cuda-toolkit[\w.-]{0,20}|cuda-drivers\b|nvidia-driver-\d{3})",
                     "linux-headers-", "cuda-toolkit", "cuda-drivers", "nvidia-driver-")),
    # the Windows build, as `ver`/cmd's banner, `systeminfo`, winver or a WSL issue template print it
    ("windows_build", _p(r"(?:\[Version 10\.0\.|OS Version:\s{0,30}10\.0\.|OS [Bb]uild:?\s{0,3}|[Ii]nsider[^\n]{0,40}?"
                         r"[Bb]uild\s{0,3}|Windows build number:\s{0,3}\[?(?:Version )?(?:10\.0\.)?)(\d{5})\b",
                         "[Version 10.0.", "OS Version:", "OS Build", "OS build", "nsider", "Windows build number")),
    # the WSL issue template's "### Windows Version" heading, the build on a line below it
    ("windows_build", _p(r"Windows Version\s{0,3}\n(?:\s{0,3}\n)?\s{0,3}(?:Microsoft Windows \[Version )?"
                         r"10\.0\.(\d{5})\b", "Windows Version", span=2)),
    # a pinned (page-locked) host allocation failing, which WSL 2 limits: TF's host allocator (gpu_host_allocator.h /
    # device_host_allocator.h "could not allocate pinned host memory of size: %d", cuda_driver.cc HostAllocate "failed
    # to alloc %d bytes on host: %s"), ggml-cuda's "failed to allocate %.2f MB of pinned memory: %s", the runtime's
    # cudaHostAlloc / cudaMallocHost named beside "out of memory"
    ("pinned_alloc_failed", _p(r"(could not allocate pinned host memory of size:? ?\d{1,14}|"
                               r"failed to alloc \d{1,14} bytes on host: CUDA_ERROR_OUT_OF_MEMORY|"
                               r"failed to allocate [\d.,]{1,12} Mi?B of pinned memory: out of memory|"
                               r"cuda(?:HostAlloc|MallocHost)[^\n]{0,40}?(?:out of memory|ret\[2\]))",
                               "pinned host memory", "bytes on host", "of pinned memory", "HostAlloc", "MallocHost")),
    # PyTorch pinning host memory (a traceback frame: pin_memory=True, .pin_memory(), torch/storage.py's pin_memory);
    # with its "CUDA error: out of memory" the failing allocation is the pinned one
    ("pin_memory_frame", _p(r"(pin_memory=True|\.pin_memory\(|, in pin_memory\b)", "pin_memory")),
    ("torch_cuda_oom", _p(r"CUDA error: out of memory")),
    # vLLM turning pinned memory off by itself (vllm/utils.py is_pin_memory_available, cache_engine.py before it):
    # "Using 'pin_memory=False' as WSL is detected. This may slow down the performance."
    ("pin_memory_off_wsl", _p(r"pin_memory=False'? as WSL is detected", "as WSL is detected")),
    # names only WSL 2 has (microsoft/WSL's init and docs): Windows' UNC paths to a distribution (\\wsl$\<distro>,
    # \\wsl.localhost\<distro>), WSLg's /mnt/wslg, the variables WSL's init sets (WSL_DISTRO_NAME, WSL_INTEROP and
    # its /run/WSL/ socket), the dxgkrnl driver's kernel lines ("misc dxg: dxgk: ..."), the .wslconfig file, the
    # Windows folder the NVIDIA driver puts WSL's libraries in (System32\lxss\lib)
    ("wsl_only", _p(r"(\\\\wsl(?:\$|\.localhost)\\|/mnt/wslg\b|\bWSL_DISTRO_NAME=|\bWSL_INTEROP=|/run/WSL/|"
                    r"\bdxgk: |misc dxg: |\.wslconfig\b|(?i:System32\\lxss\\lib))",
                    "\\wsl", "/mnt/wslg", "WSL_DISTRO_NAME", "WSL_INTEROP", "/run/WSL/", "dxgk: ", "misc dxg: ",
                    ".wslconfig", "lxss\\lib", "LXSS\\LIB", "lxss\\LIB")),
    # `wsl --version`'s first line (the Store WSL, whose distributions are WSL 2 unless converted), in every language
    # WSL ships (localization/strings/*/Resources.resw MessagePackageVersions: "WSL version: {}", "WSL 版本： {}" ...)
    ("wsl_only", _p(r"((?:WSL[ -](?:[Vv]ersion|versjon|versie|versio|verzió|版本|バージョン|버전|sürümü)|Версия WSL|"
                    r"Wersja podsystemu WSL|Verze WSL|Versão (?:do )?WSL|Versión de WSL|Versione WSL|Version WSL)"
                    r" ?[:：] ?\d+\.\d+\.\d+)", "WSL")),
    # a RAPIDS program (cuDF, RMM, cuML, cuGraph, dask-cuda: their imports, package paths, libcudf's / RMM's source
    # paths in their CUDA error messages, the Node bindings; libcudf's and RAFT's throw_cuda_error "[Fatal ]CUDA error
    # encountered at: %s:%d: %d %s %s", rapidsai/cudf cpp/include/cudf/utilities/error.hpp, rapidsai/raft
    # cpp/include/raft/core/error.hpp): RAPIDS needs compute capability 7.0+ (in WSL 2 always)
    ("rapids", _p(r"(\b(?:import|from) (?:cudf|cuml|cugraph|rmm|dask_cuda)\b|"
                  r"[/\\](?:cudf|cuml|cugraph|rmm|dask_cuda)[/\\]|\bcudf\.(?:Series|DataFrame|read_\w+)|/include/rmm/|@rapidsai/|libcudf|"
                  r"CUDA error encountered at: [^\n]{1,300}?:\d{1,6}: \d{1,4} cuda\w)",
                  "cudf", "cuml", "cugraph", "rmm", "dask_cuda", "rapidsai", "CUDA error encountered at: ")),
    # nvidia-smi's GPU row with the TCC driver model (the data-center compute mode): WSL's GPU-PV exposes WDDM GPUs only
    ("smi_tcc", _p(r"\|\s{1,6}\d{1,2}\s{1,4}[^|\n]{1,60}?\s(TCC)\s{0,6}\|", " TCC ")),
]
