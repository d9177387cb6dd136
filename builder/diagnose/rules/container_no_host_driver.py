"""libnvidia-container could not reach the host's NVIDIA driver: its NVML library is missing, the kernel module
is not loaded, or the driver does not answer (src/driver.c "nvml error", xfuncs.h "load library failed",
rpc.h "rpc error"); nvidia-ctk finding no NVML when it generates a CDI spec. In rootless Docker or Podman the
toolkit cannot write the device cgroup (src/cgroup.c, cgroup_legacy.c): the host driver is there but out of
reach the same way, and the fix is the toolkit's no-cgroups setting. Docker refusing a `--device /dev/nvidia...` the
host does not have (moby's "error gathering device information") is the kernel module not loaded yet."""

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
        return _finding(t("The container toolkit cannot reach the host's NVIDIA driver"), rootless, cause, fix, "")
    # nvidia-docker 1.x on the host (tools/src/nvidia-docker-plugin/main.go: "Loading NVIDIA management library",
    # then log.Panicln("Error:", err) of its NVML binding's "could not load NVML library"): the host's own NVML
    plugin = [ev for ev in log.all("nvml_lib_missing") if host_nvml(log, ev)][:1]
    if plugin and not evidence:
        return _host_nvml(plugin)
    node = log.first("device_node_missing")
    if node and not evidence:
        return _device_node_missing(node)
    uvm = log.first("uvm_load_failed")
    if uvm and not evidence:
        return _uvm_load_failed(log, uvm)
    if not evidence:
        return None
    detail = evidence[0].groups[1] if evidence[0].kind == "nvc_error" else evidence[0].groups[0]
    detail = detail or ""
    if "load library failed" in detail or "LIBRARY_NOT_FOUND" in detail:
        cause = t("The NVIDIA container toolkit cannot load the host driver's NVML library ({detail}): no NVIDIA "
                  "driver is installed where the toolkit looks.", detail=detail)
    elif _rpc_failed(detail):
        cause = t("The NVIDIA container toolkit started but the host driver did not answer ({detail}): the driver "
                  "is hung or half installed.", detail=detail)
    else:
        cause = t("The NVIDIA container toolkit found the driver's libraries but not a working kernel driver "
                  "({detail}).", detail=detail)
    if _rpc_failed(detail):
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
    return _finding(t("The container toolkit cannot reach the host's NVIDIA driver"), evidence, cause, fix)


def _rpc_failed(detail):
    """The toolkit's call to its driver service failed (rpc.h call_rpc "rpc error: %s"; libnvidia-container 1.0's
    "driver error: timed out"): the driver did not answer in time."""
    return "rpc error" in detail or ("driver error" in detail and "timed out" in detail)


def host_nvml(log, ev):
    """A "could not load NVML library" of nvidia-docker 1.x, a host process (its "Error: " prefix or its name in the
    log), not of a GPU exporter or device plugin inside a container."""
    text = log.line_text(ev.line)
    return "nvidia-docker" in text or ("Error: " in text and not log.has("k8s_no_gpu_resource")
                                       and "Fatal:" not in text and "gonvml" not in text)


def _host_nvml(evidence):
    cause = t("nvidia-docker (1.x) runs on the host and could not load the host driver's NVML library "
              "(libnvidia-ml.so.1): the driver is not installed, or its library folder is not in the loader's cache.")
    fix = t("check that `ldconfig -p | grep libnvidia-ml` lists it: when the driver sits in its own folder (Ubuntu's "
            "nvidia-NNN packages: /usr/lib/nvidia-NNN), add that folder to a file under /etc/ld.so.conf.d/ and run "
            "`sudo ldconfig` (LD_LIBRARY_PATH in a profile does not reach the service); without a driver, install it "
            "and check that `nvidia-smi` works; nvidia-docker 1.x is long retired: the NVIDIA Container Toolkit "
            "replaces it")
    return _finding(t("nvidia-docker cannot load the host driver's NVML library"), evidence, cause, fix,
                    also=("container-toolkit-missing",))


def _device_node_missing(ev):
    """Docker found no /dev/nvidia* node on the host for a device the container asks for: the kernel module that
    makes it is not loaded. nvidia-uvm loads only when a CUDA program first runs; `nvidia-modprobe -u -c=0` loads it
    and makes /dev/nvidia-uvm and /dev/nvidia-uvm-tools (NVIDIA/nvidia-modprobe modprobe-utils nvidia_uvm_mknod)."""
    node = ev.groups[0]
    cause = t("The container asks for {node}, which the host does not have: the NVIDIA kernel module that makes it is "
              "not loaded (after a reboot nvidia-uvm loads only when a CUDA program first runs), or the host has no "
              "NVIDIA driver (Docker Desktop's VM and WSL 2 have no /dev/nvidia* at all).", node=node)
    fix = t("on the host run `sudo nvidia-modprobe -u -c=0` (it loads nvidia-uvm and makes /dev/nvidia-uvm and "
            "/dev/nvidia-uvm-tools) or any CUDA program, check that `nvidia-smi` lists the GPU, then start the "
            "container; better, ask for the GPU with `--gpus all` instead of `--device /dev/nvidia...`: the NVIDIA "
            "container toolkit then loads the modules and passes the devices itself (the only way on Docker Desktop "
            "and WSL 2)")
    return _finding(t("The host has no {node} for the container", node=node), [ev], cause, fix)


def _uvm_load_failed(log, ev):
    """nvidia-docker 1.x could not load nvidia-uvm: nvidia-modprobe missing, or the driver's modules absent (the
    kernel's or nvidia-smi's lines beside it say so)."""
    evidence = [ev] + log.all("kmod_not_found")[:1] + log.all("smi_no_driver")[:1]
    cause = t("nvidia-docker (1.x) runs `nvidia-modprobe -u -c=0` on the host to load the NVIDIA Unified Memory "
              "module (nvidia-uvm), and it failed: nvidia-modprobe is not installed, or the driver's kernel modules "
              "are missing or do not load (a kernel update without the driver rebuilt for it, a failed install).")
    fix = t("make the host driver work first: `nvidia-smi` on the host must list the GPU (if it cannot communicate "
            "with the driver, reinstall the NVIDIA driver for the running kernel and reboot); install nvidia-modprobe "
            "(it comes with NVIDIA's driver packages) and check that `sudo nvidia-modprobe -u -c=0` succeeds, then "
            "restart nvidia-docker; nvidia-docker 1.x is long retired: the NVIDIA Container Toolkit (`docker run "
            "--gpus all`) replaces it")
    return _finding(t("nvidia-docker cannot load the NVIDIA Unified Memory module"), evidence, cause, fix,
                    also=("container-toolkit-missing", "libcuda-missing"))


def _finding(title, evidence, cause, fix, tfenv=None, also=()):
    return Finding(ID, title, lines(evidence), cause, fix,
                   t("`tfenv doctor` checks the host driver before a container starts") if tfenv is None else tfenv,
                   rank=6, supersedes=("no-gpu-visible", "libcuda-missing", "no-gpu-harmless") + also)
