"""WSL2 without the GPU: the paravirtualised device (/dev/dxg, libdxcore) is absent or refuses access."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "wsl-gpu-unavailable"
WSL_REFUSALS = ("WSL environment detected but no adapters", "failed to process request")


def check(log, ctx):
    # the toolkit in WSL says so itself (libnvidia-container src/dxcore.c, nvc_info.c)
    toolkit = [ev for ev in log.all("nvc_error") if any(w in (ev.groups[1] or "") for w in WSL_REFUSALS)][:1]
    if not toolkit and (ctx.platform.value != "wsl2" or log.has("linux_driver_pkg")):
        return None
    dxg = [ev for ev in log.all("dev_missing") if ev.groups[0] == "/dev/dxg"]
    # CUDA says "driver insufficient" while no driver version is known: WSL's libcuda without a GPU behind it
    unknown_driver = [] if ctx.driver else log.all("insufficient_driver")[:1]
    evidence = toolkit + dxg[:1] + log.all("dxcore_missing")[:1] + log.all("gpu_access_blocked")[:1] + unknown_driver
    evidence += log.all("wsl_lib_missing")[:1]
    if not evidence:
        return None
    wsl = (ctx.facts or {}).get("wsl") or {}
    cause = t("The GPU reaches WSL 2 only through the Windows NVIDIA driver (the /dev/dxg device and the libraries "
              "in /usr/lib/wsl/lib), and here that device is missing or refuses access.")
    fix = t("check on the Windows side: Windows build {build} or later (Windows 10 or 11; `winver` shows it), the "
            "NVIDIA Windows driver {driver} or newer, and a current WSL (`wsl --update`; a custom WSL kernel needs "
            "CONFIG_DXGKRNL, the stock kernel has it); a data-center GPU must run in WDDM mode, not TCC (`nvidia-smi "
            "-g 0 -dm 0` in an elevated prompt); then `wsl --shutdown` and start again",
            build=wsl.get("windows_build_min", "?"), driver=wsl.get("driver_min_windows", "?"))
    return Finding(ID, t("WSL 2 does not see the GPU"), lines(evidence), cause, fix,
                   t("`tfenv doctor` in WSL checks /dev/dxg and the Windows driver"), rank=10,
                   supersedes=("no-gpu-visible", "libcuda-missing", "no-gpu-harmless", "container-nvml-lost",
                               "driver-too-old", "container-no-host-driver"))
