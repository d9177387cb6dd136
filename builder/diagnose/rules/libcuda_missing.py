"""libcuda.so.1 / nvcuda.dll (the NVIDIA driver's own library) is not loadable where a GPU is expected."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, tfenv_way, wsl_lib
from builder.diagnose.rules._gpu import (
    driver_not_loaded,
    fatal,
    gpu_expected,
    libcuda_failures,
    link_step_failures,
    module_failures,
    module_found_no_gpu,
    singularity_without_nv,
)

ID = "libcuda-missing"
WINDOWS_NAMES = {"libcuda.so.1": "nvcuda.dll", "libnvidia-ml.so.1": "nvml.dll"}


def check(log, ctx):
    video = _video_library(log, ctx)
    if video:
        return video
    failed = libcuda_failures(log)
    if not failed:
        return _no_kernel_module(log, ctx) or _link_step(log, ctx)
    # Singularity/Apptainer without --nv: the host driver's libraries are never in the container, so that is the
    # cause whether or not the log shows the GPU
    unbound = singularity_without_nv(log)
    if not (gpu_expected(log, ctx) or fatal(log, failed[0][1]) or unbound):
        return None
    name = failed[0][0]
    if ctx.windows and failed[0][1].kind in ("torch_no_driver", "nvml_init"):  # no loader line named it
        name = WINDOWS_NAMES.get(name, name)
    evidence = [ev.line for _, ev in failed[:1]] + [ev.line for ev in log.all("cuinit")[:1]]
    cause = t("{name} is the NVIDIA driver's library, never part of CUDA or an image, and it is not loadable here.",
              name=name)
    if ctx.wsl:
        fix = t("in WSL2 the Windows driver provides it in {wsl_lib}: `export "
                "LD_LIBRARY_PATH={wsl_lib}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}`; never install a Linux NVIDIA "
                "driver inside WSL", wsl_lib=wsl_lib(ctx))
    elif ctx.windows:
        fix = t("install the NVIDIA display driver for this GPU (it installs nvcuda.dll in System32), then restart")
    elif unbound or log.has("apptainer_no_nv"):
        evidence += [(unbound or log.all("apptainer_no_nv"))[0].line]
        cause = t("{name} is the NVIDIA driver's library: Singularity/Apptainer bind the host's copy into the "
                  "container (/.singularity.d/libs) only when it is started with --nv (or --nvccli).", name=name)
        fix = t("start the container with `singularity exec --nv ...` (`apptainer exec --nv ...`; `--nvccli` sets the "
                "GPU up through nvidia-container-cli instead)")
        if unbound and unbound[0].groups[0][:1] not in "sa":  # no start line: --nv may have been given already
            fix += "; " + t("if it was started with --nv, this host has no NVIDIA driver that Singularity finds: run "
                            "it on a GPU node, where `nvidia-smi` works")
        if not fatal(log, failed[0][1]):
            fix += "; " + t("if you meant to run on the CPU, the message is harmless")
        if log.has("apptainer_no_nv"):  # --nv was given and found no driver files on this host
            cause = t("{name} is the NVIDIA driver's library; Singularity/Apptainer's --nv found no NVIDIA driver "
                      "files on this host to bind in (\"Could not find any nv files\").", name=name)
            fix = t("run it on a host (a cluster node or job) that has an NVIDIA GPU and driver, where `nvidia-smi` "
                    "works; if the driver is installed outside the loader's cache, list its libraries in "
                    "nvliblist.conf (or use --nvccli)")
    elif ctx.container:
        fix = t("start the container with `docker run --gpus all ...` (the NVIDIA container toolkit mounts the host "
                "driver's libcuda.so.1 at start)")
    elif driver_not_loaded(failed[0][1]):
        cause = t("NVML, the NVIDIA driver's management library, loaded but reports that the NVIDIA kernel driver "
                  "is not loaded.")
        fix = t("load or install the NVIDIA driver: `sudo modprobe nvidia` says why it does not load (with Secure "
                "Boot the module must be signed or Secure Boot turned off); after installing a driver, reboot; "
                "nvidia-smi must work afterwards")
    else:
        fix = t("install the NVIDIA driver (nvidia-smi must work afterwards), or add the folder holding {name} to "
                "LD_LIBRARY_PATH", name=name)
    return Finding(ID, t("The NVIDIA driver library {name} cannot be loaded", name=name), evidence, cause, fix,
                   tfenv_way(ctx), rank=30 if ctx.container else 38, supersedes=("no-gpu-harmless",))


def _no_kernel_module(log, ctx):
    """No NVIDIA kernel driver answering: on Linux modprobe finds no module for the running kernel or refuses it, or
    nvidia-smi cannot reach the driver; on Windows nvidia-smi's same words mean no working display driver (WSL and
    containers have their own causes for the same lines)."""
    if ctx.wsl or ctx.container:
        return None
    if ctx.windows:
        return _windows_no_driver(log, ctx)
    no_gpu = module_found_no_gpu(log)  # no-gpu-visible's: the driver is there, the GPU is not
    modules = [ev for ev in module_failures(log) if ev not in no_gpu]
    refused = [ev for ev in modules if ev.kind == "modprobe_refused"]
    evidence = modules + log.all("smi_no_driver")[:1]
    if not evidence:
        return _no_driver_installed(log, ctx)
    reason = refused[0].groups[0] if refused else ""
    fix = t("reinstall the NVIDIA driver for the running kernel (`uname -r`), preferably the distribution's package "
            "or the .run file with --dkms, so that DKMS rebuilds the module on every kernel update (`dkms status` "
            "lists it); `sudo modprobe nvidia` says why a module does not load; reboot, and nvidia-smi must work")
    if "rejected" in reason or "Required key" in reason:
        cause = t("Secure Boot refuses to load the NVIDIA kernel module: it is not signed with a key the firmware "
                  "trusts.")
        fix = t("enroll the module's signing key (the distribution's driver package asks for a MOK password and "
                "enrolls it at the next boot; `sudo mokutil --import` with the key DKMS signs with) or turn Secure "
                "Boot off in the firmware settings, then reboot")
    elif any(ev.kind == "kmod_not_found" for ev in modules):
        cause = t("There is no NVIDIA kernel module for the running kernel: after a kernel update, a driver that was "
                  "installed without DKMS (the .run file) has no module built for the new kernel.")
    else:
        cause = t("nvidia-smi cannot reach the NVIDIA kernel driver: its module is not loaded (not built for the "
                  "running kernel, blocked by Secure Boot, or never installed).")
    return Finding(ID, t("The NVIDIA kernel driver is not loaded"), [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx), rank=38, supersedes=("no-gpu-harmless",))


def _no_driver_installed(log, ctx):
    """No nvidia-smi at all: the driver (which installs it; the CUDA toolkit does not) is not installed."""
    evidence = log.all("smi_not_found")[:1]
    if not evidence:
        return None
    cause = t("nvidia-smi does not exist here: no NVIDIA driver is installed (the driver installs nvidia-smi; the "
              "CUDA toolkit does not).")
    fix = t("install the NVIDIA driver (Ubuntu: `sudo ubuntu-drivers install`, or the distribution's "
            "nvidia-driver-<branch> package), reboot, and nvidia-smi must work")
    if not ctx.platform:  # Linux or WSL 2, the log cannot tell: both, each labelled
        fix = t("on Linux: {linux}; in WSL 2: install or update the NVIDIA driver in Windows (WSL 2 gets nvidia-smi "
                "from it in {wsl_lib}), never a Linux driver inside WSL", linux=fix, wsl_lib=wsl_lib(ctx))
    return Finding(ID, t("The NVIDIA driver is not installed"), [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx), rank=38, supersedes=("no-gpu-harmless",))


def _windows_no_driver(log, ctx):
    evidence = log.all("smi_no_driver")[:1] + log.all("smi_not_found")[:1]
    if not evidence:
        return None
    cause = t("nvidia-smi cannot reach the NVIDIA driver: no working NVIDIA display driver is installed for this GPU.")
    fix = t("install the NVIDIA display driver for this GPU (it installs nvcuda.dll in System32), then restart")
    return Finding(ID, t("The NVIDIA driver is not installed or not working"), [ev.line for ev in evidence], cause,
                   fix, tfenv_way(ctx), rank=38, supersedes=("no-gpu-harmless",))


def _link_step(log, ctx):
    """A build or JIT step that links the driver's unversioned libcuda.so (`-lcuda`, CMake's FindCUDA, Triton's
    launcher) and finds none: Linux and containers (WSL 2 is wsl-lib-path, Windows links cuda.lib)."""
    evidence = link_step_failures(log)
    if not evidence or ctx.wsl or ctx.windows:
        return None
    cause = t("A link step (`-lcuda`: a build, CMake's FindCUDA, Triton's or torch.compile's launcher) needs the "
              "unversioned libcuda.so, and the linker's path has none: the driver installs libcuda.so.1 (the "
              "unversioned name may be missing or outside the ld cache), and a machine without a driver has only "
              "CUDA's link-time stub.")
    fix = t("with the driver installed, `ldconfig -p | grep libcuda` shows its folder: put it on `LIBRARY_PATH` (or "
            "`sudo ln -s libcuda.so.1 libcuda.so` there, then `sudo ldconfig`); on a build machine or image without "
            "a driver, link against CUDA's stub: `LIBRARY_PATH=/usr/local/cuda/lib64/stubs` (CMake: "
            "`-DCMAKE_LIBRARY_PATH=/usr/local/cuda/lib64/stubs`), never on LD_LIBRARY_PATH at run time")
    return Finding(ID, t("The linker cannot find the NVIDIA driver library libcuda.so"), lines(evidence), cause, fix,
                   tfenv_way(ctx), rank=38, supersedes=("no-gpu-harmless",))


def _video_library(log, ctx):
    """FFmpeg (and Plex, Jellyfin, OBS: their FFmpeg) cannot load the driver's NVENC or NVDEC library: the driver
    part that encodes video is not installed, or the container was not given the video capability."""
    missing = log.first("nvenc_lib_missing")
    if not missing:
        return None
    name = missing.groups[0]
    cause = t("FFmpeg could not load {name}, the NVIDIA driver's video encode/decode library: it comes with the "
              "driver, not with CUDA, and is not there.", name=name)
    if ctx.windows:
        fix = t("install the NVIDIA display driver from NVIDIA (a CUDA toolkit does not bring {name}), then restart "
                "the program", name=name)
    else:
        fix = t("in a container the NVIDIA runtime mounts the driver's video libraries only for the video capability: "
                "set NVIDIA_DRIVER_CAPABILITIES=compute,video,utility (or all) or start it with `--gpus "
                "'all,\"capabilities=compute,utility,video\"'`; on the host install the driver's encode and decode "
                "libraries with it (Debian and Ubuntu package them apart: libnvidia-encode-<branch> / "
                "libnvidia-encode1, libnvidia-decode-<branch> / libnvcuvid1)")
    return Finding(ID, t("The NVIDIA driver's video library {name} cannot be loaded", name=name),
                   lines([missing] + log.all("nvenc_driver_min")[:1]), cause, fix, "", rank=30)
