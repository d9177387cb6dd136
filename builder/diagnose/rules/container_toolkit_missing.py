"""Docker cannot hand a GPU to the container: no NVIDIA runtime is registered with the daemon (moby's device
request and runtime-name errors, or the toolkit's hook missing), before TF even starts.

The same cause, "the container runtime is not set up for NVIDIA GPUs", covers the toolkit's other setup faults:
no CDI spec for a CDI device (`unresolvable CDI devices`), CDI not enabled in Docker, the hook started by `--gpus`
in a mode where only the NVIDIA runtime works, a toolkit too old for the image's requirement expression or for
cgroup v2, a host ldconfig path in config.toml that this distribution lacks, and on Kubernetes a node whose device
plugin cannot see the GPU (the node's runtime is not NVIDIA's)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines
from builder.diagnose.rules.container_no_host_driver import host_nvml

ID = "container-toolkit-missing"
CGROUP_V2 = "cgroup subsystem devices not found"
VOLUME_MOUNTS = "/var/run/nvidia-container-devices"  # the device plugin's volume-mounts device list


def _toolkit_faults(log):
    """(evidence, fix) for a toolkit that is installed but not set up for this request; ([], '') if none."""
    if log.has("nvidia_docker1_volume"):
        return log.all("nvidia_docker1_volume")[:1], t(
            "this is nvidia-docker 1.0, whose volume plugin (the nvidia-docker service) failed: `systemctl status "
            "nvidia-docker` says why; nvidia-docker 1.0 is long deprecated: remove it, install the NVIDIA Container "
            "Toolkit (package nvidia-container-toolkit) and start containers with `docker run --gpus all ...`")
    cdi = log.all("cdi_unresolvable")[:1]
    if cdi:
        return cdi, t("generate the CDI spec of the host's GPUs: `sudo nvidia-ctk cdi generate "
                      "--output=/etc/cdi/nvidia.yaml` (again after every driver update), check it with `nvidia-ctk cdi "
                      "list`, then start the container again")
    # Docker 25/26 with CDI off: `--device nvidia.com/gpu=all` asks the "cdi" device driver, which is not there
    cdi_off = log.all("cdi_not_enabled")[:1] + [ev for ev in log.all("select_device_driver") if ev.groups[0] == "cdi"]
    if cdi_off:
        return cdi_off[:1], t(
            "this Docker does not read CDI device names: use `docker run --gpus all ...`, or turn CDI on with "
            "\"features\": {\"cdi\": true} in /etc/docker/daemon.json (Docker 25 or later), restart Docker and "
            "generate the spec with `sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`")
    if log.has("hook_not_legacy") and not log.has("jetson"):  # Jetson's csv mode: jetson-container says it
        return log.all("hook_not_legacy")[:1], t(
            "in this mode the toolkit works only through its runtime: start the container with `--runtime=nvidia` "
            "(register it with `sudo nvidia-ctk runtime configure --runtime=docker` and restart Docker), or set "
            "mode = \"legacy\" in /etc/nvidia-container-runtime/config.toml to keep `--gpus all`")
    ldcache = [ev for ev in log.all("nvc_error") if ev.groups[0] == "ldcache" and "ldconfig" in (ev.groups[1] or "")]
    if ldcache:
        return ldcache[:1], t("the toolkit runs the ldconfig that /etc/nvidia-container-runtime/config.toml names "
                              "(its ldconfig = line) and that failed: point it at the host's own, "
                              "\"@/sbin/ldconfig.real\" on Ubuntu and Debian, \"@/sbin/ldconfig\" on other "
                              "distributions (`ls /sbin/ldconfig*` shows which there is), then start the container "
                              "again")
    mounts = [ev for ev in log.all("nvc_error") if ev.groups[0] == "device" and VOLUME_MOUNTS in (ev.groups[1] or "")]
    if mounts:
        return mounts[:1], t("NVIDIA's device plugin hands the GPUs over as volume mounts under {folder} and this "
                             "toolkit does not read them: set accept-nvidia-visible-devices-as-volume-mounts = true "
                             "in /etc/nvidia-container-runtime/config.toml, or run the device plugin with "
                             "deviceListStrategy envvar", folder=VOLUME_MOUNTS)
    old = [ev for ev in log.all("nvc_error") if CGROUP_V2 in (ev.groups[1] or "")][:1] + log.all(
        "nvc_invalid_requirement")[:1]
    if old:
        return old, t("update the NVIDIA Container Toolkit on the host (nvidia-container-toolkit and "
                      "libnvidia-container1 from NVIDIA's repository; 1.8 or later knows cgroup v2 and current CUDA "
                      "images' requirements), then `sudo systemctl restart docker`")
    return [], ""


def check(log, ctx):
    runtime = [ev for ev in log.all("unknown_runtime") if (ev.groups[0] or "nvidia").lower().startswith("nvidia")]
    drivers = [ev for ev in log.all("select_device_driver") if ev.groups[0] != "cdi"]
    evidence = drivers[:1] + runtime[:1] + log.all("nvc_hook_missing")[:1]
    fault, fault_fix = _toolkit_faults(log)
    k8s = log.all("k8s_no_gpu_resource")[:2]
    # (nvidia-docker 1.x's and nvidia-ctk's CDI generation run on the host: their NVML is the host's)
    nvml = [] if log.has("smi_no_driver", "nvml_init", "kmod_not_found", "cdi_generate_failed") else [
        ev for ev in log.all("nvml_lib_missing") if not host_nvml(log, ev)][:1]
    if not evidence and not fault and not k8s and not nvml:
        return None
    title = t("Docker cannot give this container a GPU (no NVIDIA container runtime)")
    cause = t("Docker has no NVIDIA runtime to give the container a GPU: the NVIDIA Container Toolkit is not "
              "installed on the host, or Docker was not configured and restarted after installing it.")
    fix = _runtime_fix(log, ctx, runtime)
    if not evidence and fault:
        evidence, title = fault, t("The NVIDIA Container Toolkit is not set up for this GPU request")
        cause = t("The NVIDIA Container Toolkit is installed but not set up for this request, so the container "
                  "starts without a GPU or not at all.")
        fix = fault_fix
    elif not evidence and not k8s and not log.has("k8s"):
        evidence, title = nvml, t("The container has no NVIDIA driver libraries (NVML): no NVIDIA runtime set it up")
        cause = t("The program looks for the driver's NVML (libnvidia-ml.so.1) in its container, where NVIDIA's "
                  "container runtime mounts it from the host; the runtime did not run for this container, so the "
                  "driver's libraries are not there.")
        fix = t("start the container through NVIDIA's runtime: `docker run --gpus all ...` (or `--runtime=nvidia`); "
                "for a pod, a DaemonSet or compose service that cannot pass that flag, make it the default runtime: "
                "`sudo nvidia-ctk runtime configure --runtime=docker --set-as-default` (\"default-runtime\": "
                "\"nvidia\" in /etc/docker/daemon.json), or `--runtime=containerd --set-as-default`, then restart "
                "the daemon; a Kubernetes pod can ask for it with `runtimeClassName: nvidia`; this needs the NVIDIA "
                "Container Toolkit on the host")
    elif not evidence:
        evidence, title = k8s or nvml, t("No Kubernetes node offers an NVIDIA GPU")
        cause = t("No Kubernetes node offers an nvidia.com/gpu: NVIDIA's device plugin on the GPU node finds no GPU "
                  "through the node's container runtime, or every GPU is already taken.")
        fix = t("the GPU node needs the NVIDIA driver and the NVIDIA Container Toolkit with NVIDIA's runtime as the "
                "default runtime of containerd (or Docker): `sudo nvidia-ctk runtime configure --runtime=containerd "
                "--set-as-default` and restart containerd (with Docker: `--runtime=docker --set-as-default`, "
                "\"default-runtime\": \"nvidia\" in /etc/docker/daemon.json), or give the device plugin (and GPU "
                "exporters) `runtimeClassName: nvidia`; then "
                "the device plugin lists the GPU and `kubectl describe node` shows nvidia.com/gpu under Allocatable "
                "(NVIDIA's GPU Operator sets all of this up)")
    return Finding(ID, title, lines(evidence), cause, fix,
                   t("`tfenv doctor` checks the host's driver and Docker's GPU support"), rank=3,
                   supersedes=("no-gpu-visible", "libcuda-missing", "no-gpu-harmless"))


def _runtime_fix(log, ctx, runtime):
    """Register NVIDIA's runtime where the container starts: Docker Desktop's WSL 2 backend, a node's containerd (its
    CRI's "no runtime for \"nvidia\""), or the host's Docker."""
    if ctx.windows:
        return t("with Docker Desktop on Windows the GPU comes through its WSL 2 backend: turn on \"Use the WSL 2 "
                 "based engine\", update Docker Desktop and the NVIDIA Windows driver, then restart Docker Desktop; "
                 "start the container with `docker run --gpus all ...`")
    if any("no runtime for" in log.line_text(ev.line) for ev in runtime):  # containerd's CRI, for a pod
        return t("register the nvidia runtime with the node's containerd: install the NVIDIA Container Toolkit "
                 "there and run `sudo nvidia-ctk runtime configure --runtime=containerd`, then restart containerd "
                 "(k3s and MicroK8s keep their own containerd config: their GPU add-on or NVIDIA's GPU Operator "
                 "writes it, e.g. `microk8s enable gpu`); a pod with `runtimeClassName: nvidia` runs only once it "
                 "is there")
    fix = t("install the NVIDIA Container Toolkit on the host (package nvidia-container-toolkit), register it with "
            "`sudo nvidia-ctk runtime configure --runtime=docker` and restart the daemon with `sudo systemctl "
            "restart docker`; then start the container with `docker run --gpus all ...`")
    if runtime:
        fix += t("; `--runtime=nvidia` (and compose's `runtime: nvidia`) works only once that runtime is "
                 "registered, `--gpus all` needs no runtime name")
    if not log.has("linux_shell", "so_name", "python_path"):  # nothing shows the host: Docker Desktop too
        fix += t("; with Docker Desktop on Windows the GPU comes through its WSL 2 backend instead: turn on "
                 "\"Use the WSL 2 based engine\" and update Docker Desktop and the NVIDIA Windows driver")
    return fix
