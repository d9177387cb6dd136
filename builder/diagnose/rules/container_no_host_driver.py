"""libnvidia-container could not reach the host's NVIDIA driver: its NVML library is missing, the kernel module
is not loaded, or the driver does not answer (src/driver.c "nvml error", xfuncs.h "load library failed",
rpc.h "rpc error"); nvidia-ctk finding no NVML when it generates a CDI spec. In rootless Docker or Podman the
toolkit cannot write the device cgroup (src/cgroup.c, cgroup_legacy.c): the host driver is there but out of
reach the same way, and the fix is the toolkit's no-cgroups setting."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "container-no-host-driver"
# a version mismatch is driver-dso-mismatch; WSL's own refusals are wsl-gpu-unavailable
SEEN_ELSEWHERE = ("version mismatch", "WSL environment", "failed to process request")


# the device cgroup the toolkit could not write: rootless Docker / Podman (cgroup v2 BPF filters, v1 devices.allow)
CGROUP_REFUSED = ("failed to add device rules", "bpf_prog_query", "devices.allow")


def check(log, ctx):
    # (a paste that wrapped the line after "initialization error:" loses the detail; the kernel's or NVML's own
    # mismatch lines elsewhere say the same)
    mismatch = log.has("nvml_mismatch", "nvrm_api_mismatch", "kernel_dso_mismatch")
    evidence = [ev for ev in log.all("nvc_error") if ev.groups[0] in ("initialization", "detection")
                and not any(w in (ev.groups[1] or "") for w in SEEN_ELSEWHERE) and not mismatch][:1]
    evidence += [ev for ev in log.all("cdi_generate_failed") if "NVML" in (ev.groups[0] or "")][:1]
    rootless = [ev for ev in log.all("nvc_error") if ev.groups[0] == "mount"
                and any(w in (ev.groups[1] or "") for w in CGROUP_REFUSED)][:1]
    if rootless and not evidence:
        cause = t("The NVIDIA container toolkit could not set up the container's device cgroup ({detail}): rootless "
                  "Docker or Podman may not change cgroups.", detail=rootless[0].groups[1])
        fix = t("for rootless containers set no-cgroups = true under [nvidia-container-cli] in "
                "/etc/nvidia-container-runtime/config.toml (`sudo nvidia-ctk config --set "
                "nvidia-container-cli.no-cgroups --in-place`), or use CDI: `sudo nvidia-ctk cdi generate "
                "--output=/etc/cdi/nvidia.yaml` and `--device nvidia.com/gpu=all`")
        return Finding(ID, t("The container toolkit cannot reach the host's NVIDIA driver"), lines(rootless), cause,
                       fix, "", rank=6, supersedes=("no-gpu-visible", "libcuda-missing", "no-gpu-harmless"))
    if not evidence:
        return None
    detail = evidence[0].groups[1] if evidence[0].kind == "nvc_error" else evidence[0].groups[0]
    detail = detail or ""
    if "load library failed" in detail or "LIBRARY_NOT_FOUND" in detail:
        cause = t("The NVIDIA container toolkit cannot load the host driver's NVML library ({detail}): no NVIDIA "
                  "driver is installed where the toolkit looks.", detail=detail)
    elif "rpc error" in detail:
        cause = t("The NVIDIA container toolkit started but the host driver did not answer ({detail}): the driver "
                  "is hung or half installed.", detail=detail)
    else:
        cause = t("The NVIDIA container toolkit found the driver's libraries but not a working kernel driver "
                  "({detail}).", detail=detail)
    if "rpc error" in detail:
        fix = t("turn on persistence mode so the driver stays initialised between uses: run the nvidia-persistenced "
                "service (NVIDIA's recommendation) or `sudo nvidia-smi -pm 1`; if `nvidia-smi` on the host hangs "
                "too, reboot")
    elif ctx.wsl or ctx.windows:
        fix = t("in WSL 2 the driver is the Windows one: update the NVIDIA Windows driver and Docker Desktop (or "
                "the toolkit inside WSL), check that `nvidia-smi` works inside WSL, then run `wsl --shutdown` and "
                "start again; never install a Linux NVIDIA driver inside WSL")
    else:
        fix = t("make the host driver work first: `nvidia-smi` on the host must list the GPU (install the NVIDIA "
                "driver, or reboot after an update so its kernel module loads; Secure Boot can block an unsigned "
                "module); Docker installed as a snap does not see the host's driver libraries: use Docker's own "
                "docker-ce packages; for rootless Docker set no-cgroups = true in "
                "/etc/nvidia-container-runtime/config.toml")
    return Finding(ID, t("The container toolkit cannot reach the host's NVIDIA driver"), lines(evidence), cause, fix,
                   t("`tfenv doctor` checks the host driver before a container starts"), rank=6,
                   supersedes=("no-gpu-visible", "libcuda-missing", "no-gpu-harmless"))
