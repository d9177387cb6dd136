"""WSL2 without the GPU: the paravirtualised device (/dev/dxg, libdxcore) is absent or refuses access.

Which WSL cause wins (the definitions, in this order): a Linux NVIDIA driver the log shows inside WSL (a driver
package, its libraries in the ld cache, a driver/library mismatch: wsl-linux-driver) comes first; then the Windows
side not giving the GPU (this rule: /dev/dxg or libdxcore missing, NVML's "GPU access blocked by the operating
system", a GPU in the TCC driver model, the runtime finding the device busy or unavailable or no driver version
behind "driver insufficient", a loader missing WSL's own libdxcore / libd3d12, the container toolkit's "dxcore
initialization failed" in an otherwise WSL 2 log, `ls /usr/lib/wsl/lib` without a libcuda.so, WSL's own
nvidia-smi whose NVML finds no driver ("Failed to properly shut down NVML: Driver Not Loaded" after "couldn't
communicate"), a release Windows build below wsl.windows_build_min or a Windows driver below
wsl.driver_min_windows, even without a failure line;
beside a failure, an Insider build, or a WSL kernel before wsl.kernel_min beside a failure other than a library
not found); then the process not loading WSL's libcuda
or NVML (wsl-lib-path: PyTorch's "Found no NVIDIA driver", NVML's init errors 9 / 12, a service's "nvidia-smi
command failed" count as that). A failure
that names no side (nvidia-smi "couldn't communicate", cuInit NO_DEVICE) goes to this rule only with Windows-side
evidence.
"""

from builder.diagnose import cuda_results
from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines, wsl_facts, wsl_lib
from builder.diagnose.versions import vkey

ID = "wsl-gpu-unavailable"
WSL_REFUSALS = ("WSL environment detected but no adapters", "failed to process request")
# Windows' release builds (Microsoft's Windows 10/11 and Server release information): a WSL 2 log from any
# other build number is an Insider (pre-release) build, where WSL's GPU support has broken more than once.
RELEASE_BUILDS = {10240, 10586, 14393, 15063, 16299, 17134, 17763, 18362, 18363, 19041, 19042, 19043, 19044, 19045,
                  20348, 22000, 22621, 22631, 25398, 26100, 26200}
# what a GPU failure looks like, whichever side caused it
FAILURES = ("smi_no_driver", "nvml_failed", "cuinit", "cuda_error", "cuda_error_text", "no_driver_running",
            "insufficient_driver", "dev_missing", "load_fail", "gpu_none", "libcuda_unversioned", "torch_no_driver",
            "nvml_init")
SUPERSEDES = ("no-gpu-visible", "libcuda-missing", "no-gpu-harmless", "container-nvml-lost", "driver-too-old",
              "container-no-host-driver", "cuinit-error", "wsl-lib-path", "numa-harmless")


def windows_build(log, ctx):
    """(the Windows build event, 'old' | 'insider') when the log shows a build WSL 2's GPU support fails on."""
    minimum = wsl_facts(ctx).get("windows_build_min") or 0
    for ev in log.all("windows_build"):
        build = int(ev.groups[0])
        if build < minimum:
            return ev, "old"
        if build not in RELEASE_BUILDS:
            return ev, "insider"
    return None, ""


def old_kernel(log, ctx):
    """The WSL 2 kernel (`uname -r`, /proc/version) when it is below wsl.kernel_min (Microsoft's minimum for CUDA),
    else None."""
    minimum, kernel = wsl_facts(ctx).get("kernel_min"), log.first("kernel_wsl2")
    if minimum and kernel and vkey(kernel.groups[0].split("-")[0]) < vkey(minimum):
        return kernel
    return None


def no_gpu_pv_listing(log):
    """A listing of WSL's driver folder (lxss\\lib) with the NVIDIA driver's libcuda but none of WSL's own DirectX
    parts (libdxcore, libd3d12): this Windows build gives WSL no GPU paravirtualisation."""
    return [ev for ev in log.all("wsl_lib_listing") if "libcuda" in ev.groups[0]
            and "d3d12" not in ev.groups[0] and "dxcore" not in ev.groups[0]][:1]


def no_cuda_listing(log):
    """`ls /usr/lib/wsl/lib` showing WSL's DirectX parts but no libcuda: the Windows driver gives WSL no CUDA."""
    return [ev for ev in log.all("wsl_lib_listing") if ("d3d12" in ev.groups[0] or "dxcore" in ev.groups[0])
            and "libcuda" not in ev.groups[0]][:1]


def windows_side(log, ctx):
    """The events that put the failure on the Windows side of WSL 2 (empty: none)."""
    dxg = [ev for ev in log.all("dev_missing") if ev.groups[0] == "/dev/dxg"]
    # CUDA says "driver insufficient" while no driver version is known: WSL's libcuda without a GPU behind it
    unknown_driver = [] if ctx.driver else log.all("insufficient_driver")[:1]
    # no compute modes in WSL 2 (nvidia-smi -c is not supported there): "busy or unavailable" is the GPU-PV
    busy = [ev for ev in log.all("cuda_error_text") + log.all("cuda_error") + log.all("cuinit")
            if "busy" in ev.groups[0] or "CUDA_ERROR_DEVICE_UNAVAILABLE" in cuda_results.names_in(ev.groups[0])
            or "(46)" in ev.groups[0]][:1]
    # WSL's own libcuda loaded and found no device (ollama: "no nvidia devices detected by library
    # /usr/lib/wsl/lib/libcuda.so.1"): no GPU is paravirtualised into this WSL
    wsl_none = [ev for ev in log.all("cuinit") if "CUDA_ERROR_NO_DEVICE" in cuda_results.names_in(ev.groups[0])
                and "/usr/lib/wsl/" in log.line_text(ev.line)][:1]
    evidence = dxg[:1] + log.all("dxcore_missing")[:1] + log.all("gpu_access_blocked")[:1] + unknown_driver + busy
    evidence += wsl_none
    evidence += log.all("wsl_lib_missing")[:1] + log.all("smi_tcc")[:1] + log.all("nvc_dxcore_failed")[:1]
    evidence += no_cuda_listing(log) + no_gpu_pv_listing(log)
    # WSL's nvidia-smi reached its NVML (the Windows driver's), which found no driver behind it: no GPU given to WSL
    shutdown = log.all("smi_nvml_shutdown")[:1]
    evidence += (log.all("smi_no_driver")[:1] + shutdown) if shutdown else []
    # nvidia-smi's "No devices were found": in WSL 2 its NVML is the Windows driver's, which paravirtualises no GPU
    evidence += [ev for ev in log.all("no_device") if "No devices were found" in ev.groups[0]][:1]
    # a release build below WSL's GPU minimum has no GPU paravirtualisation at all: the cause whatever else failed
    build, why = windows_build(log, ctx)
    if build and (evidence or why == "old" or log.has(*FAILURES)):
        evidence.append(build)
    # a kernel below CUDA's minimum beside a GPU failure, unless the failure is a library the loader did not find
    # (libcuda.so.1 not found is a path to fix whatever the kernel: wsl-lib-path)
    kernel = old_kernel(log, ctx)
    if kernel and log.has(*FAILURES) and not log.has("load_fail", "libcuda_unversioned"):
        evidence.append(kernel)
    # nvidia-smi's header in WSL 2 shows the Windows driver: below the first one with CUDA for WSL 2
    minimum = wsl_facts(ctx).get("driver_min_windows")
    # (a Windows driver without CUDA for WSL 2, e.g. a 465/466 preview driver: no GPU in WSL whatever failed)
    smi = log.first("smi_header")
    if smi and minimum and vkey(smi.groups[0]) < vkey(minimum):
        evidence.append(smi)
    return evidence


def check(log, ctx):
    # the toolkit in WSL says so itself (libnvidia-container src/dxcore.c, nvc_info.c)
    toolkit = ([ev for ev in log.all("nvc_error") if any(w in (ev.groups[1] or "") for w in WSL_REFUSALS)]
               + log.all("wsl_no_adapters"))[:1]
    if not toolkit and (ctx.platform.value != "wsl2" or log.has("linux_driver_pkg")):
        return None
    evidence = toolkit + (windows_side(log, ctx) if ctx.platform.value == "wsl2" else [])
    if not evidence:
        return None
    wsl = wsl_facts(ctx)
    cause = t("The GPU reaches WSL 2 only through the Windows NVIDIA driver (the /dev/dxg device and the libraries "
              "in {wsl_lib}), and here that device is missing or refuses access.", wsl_lib=wsl_lib(ctx))
    build, why = windows_build(log, ctx)
    if why == "insider":
        cause += " " + t("Windows build {build} is an Insider (pre-release) build; WSL's GPU support has broken on "
                         "such builds before.", build=build.groups[0])
    elif why == "old":
        cause += " " + t("Windows build {build} is older than WSL 2's GPU support needs.", build=build.groups[0])
    kernel = next((ev for ev in evidence if ev.kind == "kernel_wsl2"), None)
    if kernel:
        cause += " " + t("The WSL kernel {kernel} is older than CUDA in WSL 2 needs ({minimum}): `wsl --update` "
                         "installs a current one.", kernel=kernel.groups[0], minimum=wsl["kernel_min"])
    fix = t("check on the Windows side: Windows build {build} or later (Windows 10 or 11; `winver` shows it), the "
            "NVIDIA Windows driver {driver} or newer, and a current WSL (`wsl --update`; a custom WSL kernel needs "
            "CONFIG_DXGKRNL, the stock kernel has it); a data-center GPU must run in WDDM mode, not TCC (`nvidia-smi "
            "-g 0 -dm 0` in an elevated prompt); then `wsl --shutdown` and start again",
            build=wsl.get("windows_build_min", "?"), driver=wsl.get("driver_min_windows", "?"))
    if no_cuda_listing(log):
        cause = t("{wsl_lib} holds WSL's DirectX parts (libdxcore, libd3d12) but no libcuda.so: the Windows "
                  "NVIDIA driver does not provide CUDA to WSL (its Linux libraries come from "
                  "C:\\Windows\\System32\\lxss\\lib).", wsl_lib=wsl_lib(ctx))
        fix = t("reinstall a current NVIDIA Windows driver ({driver} or newer, a clean install) so that it puts "
                "libcuda.so into C:\\Windows\\System32\\lxss\\lib, then `wsl --shutdown` and check `ls "
                "{wsl_lib}` again; never install a Linux NVIDIA driver inside WSL",
                driver=wsl.get("driver_min_windows", "?"), wsl_lib=wsl_lib(ctx))
    if kernel and all(ev.line == kernel.line for ev in evidence):  # the old kernel is all the Windows side shows
        fix = t("update WSL's kernel to {minimum} or later: `wsl --update` in Windows (PowerShell or cmd), then "
                "`wsl --shutdown` and start again (`uname -r` shows the kernel); the NVIDIA Windows driver "
                "({driver} or newer) is the only driver WSL 2 needs", minimum=wsl["kernel_min"],
                driver=wsl.get("driver_min_windows", "?"))
    if why == "insider":
        fix = t("install the next Windows build through Windows Update (or leave the Insider channel for a release "
                "build), then `wsl --update` and `wsl --shutdown`; a current NVIDIA Windows driver ({driver} or "
                "newer) is the only driver WSL 2 needs", driver=wsl.get("driver_min_windows", "?"))
    if log.has("smi_nvml_shutdown"):  # WSL's own nvidia-smi answered: the GPU is not given to this WSL session
        fix += "; " + t("if it works when WSL is started from another terminal, WSL gives the GPU only to the session "
                        "kind (elevated or not) that started its VM: after `wsl --shutdown`, start WSL from "
                        "non-administrator terminals only")
    if toolkit:  # the container toolkit said it: Docker Desktop's (or WSL's) Docker is in the path too
        fix += "; " + t("with Docker Desktop, update it too (single Docker Desktop releases have broken its WSL 2 GPU "
                        "support; the next release, or the one before, works)")
    if log.has("wsl_no_adapters"):  # dxcore found no NVIDIA adapter at all
        fix += "; " + t("a machine without an NVIDIA GPU has no adapter to give: run the container without --gpus, "
                        "on the CPU")
    return Finding(ID, t("WSL 2 does not see the GPU"), lines(evidence), cause, fix,
                   t("`tfenv doctor` in WSL checks /dev/dxg and the Windows driver"), rank=10, supersedes=SUPERSEDES)
