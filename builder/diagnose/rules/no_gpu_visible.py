"""No GPU device is visible to the process (a container without --gpus, CUDA_VISIBLE_DEVICES).

Which cause wins: in a container built for a GPU (TF opened the image's CUDA libraries, or NVIDIA's CUDA image
paths /usr/local/nvidia are on LD_LIBRARY_PATH), a missing libcuda.so.1 means the container was started without
a GPU request (the NVIDIA toolkit mounts the driver library and the devices together, or neither):
no-gpu-visible, ahead of libcuda-missing and the harmless no-GPU note. Without CUDA libraries in sight, TF's
probe finding no driver is no-gpu-harmless; a driver library missing on a host where the log shows a GPU, or
that stops the import, is libcuda-missing. A `docker run` (or `podman run`) in the log without a GPU request
(`--gpus`, `--runtime=nvidia`, `--device nvidia.com/gpu=...`) followed by a no-driver line (TF's "Could not find
cuda drivers", libcuda.so.1 missing, cuInit's no device / 303, nvidia-smi not found, PyTorch's "Found no NVIDIA
driver") is no-gpu-visible too: the
toolkit mounts the driver only into containers that ask for a GPU. A libcuda.so.1 failure that stops TF 1.x's
import stays libcuda-missing (above; its container fix names `--gpus all` as well)."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules import missing_cuda_runtime
from builder.diagnose.rules._common import tfenv_way, wsl_lib
from builder.diagnose.rules._gpu import LDSO_REFUSED, fatal, libcuda_failures, module_found_no_gpu
from builder.diagnose.versions import family

ID = "no-gpu-visible"


# NVIDIA_VISIBLE_DEVICES asks the nvidia runtime for GPUs where it is Docker's default runtime
GPU_REQUESTS = ("--gpus", "--runtime=nvidia", "--runtime nvidia", "nvidia.com/gpu", "/dev/nvidia",
                "NVIDIA_VISIBLE_DEVICES")


def check(log, ctx):
    no_driver = _no_driver_lines(log)
    if no_driver and started_without_gpu(log):
        return _run_without_gpu(log, ctx, no_driver)
    ngc = log.first("ngc_no_driver")
    # (older images check /dev/nvidiactl only, and say so falsely under WSL 2, whose GPU is /dev/dxg)
    if ngc and not log.has("kernel_wsl2", "dev_dxg", "wsl_lib"):
        return _ngc_no_driver(log, ctx, ngc)
    no_device = [ev for ev in log.all("cuinit") if "NO_DEVICE" in ev.groups[0] or "(-1)" in ev.groups[0]]
    no_device += log.all("no_device")[:1]  # PyTorch's, JAX's, nvidia-smi's and nvidia.ko's "no GPU" lines
    no_device += module_found_no_gpu(log)
    # the runtime's cudaErrorNoDevice (100) by name or text (CuPy, ONNX Runtime, llama.cpp, deviceQuery, TF's status)
    no_device += [ev for ev in log.all("cuda_error") + log.all("cuda_error_text")
                  if ev.groups[0] in ("cudaErrorNoDevice", "no CUDA-capable device is detected")][:1]
    evidence = no_device[:1] + log.all("dev_missing")[:1]
    if no_device or evidence:
        evidence += log.all("no_driver_running")[:1]
    failed = libcuda_failures(log)
    if failed and not _gpu_image_without_gpu(log, ctx):
        return None
    if not (evidence or failed):
        return None
    evidence += [ev for _, ev in failed[:1]]
    if failed:
        cause = t("The image carries CUDA, but the driver's libcuda.so.1 (and the GPU device) is not in the container.")
    else:
        cause = t("The driver library (libcuda) loaded, but no GPU device is visible to this process.")
    if ctx.container:
        cause += " " + t("Inside a container the GPU exists only when it was started with a GPU request.")
        fix = t("start the container with `docker run --gpus all ...` (the host needs the NVIDIA driver and the "
                "NVIDIA container toolkit; docker compose: a GPU device reservation); pointing LD_LIBRARY_PATH at "
                "CUDA's compat libraries does not help")
    elif ctx.windows:
        fix = t("check that Device Manager and nvidia-smi show the GPU and that CUDA_VISIBLE_DEVICES is not set to -1 "
                "or empty; on a laptop, run Python on the NVIDIA GPU (NVIDIA Control Panel)")
    elif ctx.platform.value == "wsl2":  # no /dev/nvidia0 nor kernel module in WSL 2: GPU paravirtualisation
        fix = t("in WSL 2 the GPU comes from the Windows driver: check that nvidia-smi inside WSL "
                "({wsl_lib}/nvidia-smi) lists it, that /dev/dxg exists and that CUDA_VISIBLE_DEVICES is not set to -1 "
                "or empty; if nvidia-smi lists no GPU, update the NVIDIA Windows driver and WSL (`wsl --update` in "
                "Windows), then `wsl --shutdown` and start again", wsl_lib=wsl_lib(ctx))
    elif module_found_no_gpu(log) or any(ev.groups[0].lstrip("> |\t").startswith(("NVRM", "No devices"))
                                         for ev in log.all("no_device")):
        cause = t("The NVIDIA driver is installed but finds no GPU that it drives.")
        fix = t("`lspci | grep -i nvidia` must list the card (if it does not: it is switched off in the firmware "
                "settings or by a laptop's hybrid graphics, or not seated; on a cloud machine, choose an instance "
                "type with an NVIDIA GPU); a GPU newer than the driver needs a newer driver, one older than the "
                "driver's branch its legacy driver (`sudo dmesg | grep NVRM` says which)")
    elif log.has("job_scheduler"):  # Ray and Slurm set CUDA_VISIBLE_DEVICES to the GPUs they assigned, none here
        fix = t("a job scheduler started this process and shows it only the GPUs it assigned: ask it for one (Slurm: "
                "`--gres=gpu:1`; Ray: `num_gpus=1` for the task, actor or trial), and check that nvidia-smi on that "
                "node lists the GPU")
    else:
        fix = t("in a container (Docker, a Jupyter image): it was started without a GPU, start it with `docker run "
                "--gpus all ...`; on the host: check that nvidia-smi lists the GPU, that CUDA_VISIBLE_DEVICES is not "
                "set to -1 or empty, and that /dev/nvidia0 exists (the nvidia kernel module is loaded)")
    return Finding(ID, t("No GPU device is visible to TensorFlow"), [ev.line for ev in evidence], cause, fix,
                   tfenv_way(ctx), rank=30 if failed else 40,  # as libcuda-missing in a container
                   supersedes=("libcuda-missing", "no-gpu-harmless") if failed else ())


def _gpu_image_without_gpu(log, ctx):
    """A container built for a GPU (its CUDA libraries loaded, or NVIDIA's CUDA image paths) without the driver's
    library: the toolkit did not set it up."""
    return bool(ctx.container and (log.has("container_path")
                                   or any(family(n) != "cuda" for n in log.opened_libraries())))


def docker_runs(log):
    """The log's `docker run` lines, less the `docker run --gpus all --ipc=host ...` an NGC image's SHMEM note
    recommends (the two lines after it): advice, not a run."""
    advice = {ev.line + k for ev in log.all("ngc_shmem") for k in (0, 1, 2)}
    return [ev for ev in log.all("docker_run") if ev.line not in advice]


def started_without_gpu(log):
    """Every `docker run` the log shows (its continuation lines too, docker_runs) lacks a GPU request."""
    runs = docker_runs(log)
    for ev in runs:
        number, command = ev.line, log.line_text(ev.line)
        while command.endswith("\\") and number < min(log.line_count, ev.line + 20):
            number += 1
            command += " " + log.line_text(number)
        if any(flag in command for flag in GPU_REQUESTS):
            return False
    return bool(runs)


def _no_driver_lines(log):
    """Lines saying the process found no NVIDIA driver or device."""
    cuinit = [ev for ev in log.all("cuinit") if any(code in ev.groups[0] for code in ("NO_DEVICE", "(303)", "(-1)"))]
    failed = libcuda_failures(log)
    # TF's import stopping on libcuda.so.1 is libcuda-missing (the docstring); PyTorch's check and ld.so refusing to
    # start a program linked against it are no-driver lines
    if any(fatal(log, ev) and ev.kind not in ("torch_no_driver", "nvml_init")
           and LDSO_REFUSED not in log.line_text(ev.line) for _, ev in failed):
        return []
    return (log.all("no_cuda_drivers")[:1] + [ev for _, ev in failed[:1]] + cuinit[:1]
            + log.all("no_driver_running")[:1] + log.all("dev_missing")[:1] + log.all("smi_not_found")[:1]
            + log.all("cuda_error_text")[:1] + log.all("torch_no_driver")[:1] + log.all("no_device")[:1]
            + log.all("ngc_no_driver")[:1] + _ngc_no_gpu(log))


def _ngc_no_gpu(log):
    """NVIDIA's image found no GPU at all at start ("No supported GPU(s)" without its "not yet supported" line for a
    GPU newer than the image: gpu-too-new's)."""
    return [] if log.has("ngc_sm_too_new") else log.all("ngc_no_supported_gpu")[:1]


def _run_without_gpu(log, ctx, no_driver):
    cause = t("The container was started without a GPU request (`docker run` without `--gpus`), so the NVIDIA "
              "container toolkit put neither the driver's libraries nor the GPU devices into it.")
    return _without_gpu(log, ctx, cause, [docker_runs(log)[0].line] + [ev.line for ev in no_driver])


def _ngc_no_driver(log, ctx, ngc):
    """NVIDIA's image found neither the driver's libcuda.so.1 nor /dev/nvidiactl in the container at start (its
    entrypoint's driver check): the container runs without the GPU. Lines showing the toolkit itself missing on
    the host are container-toolkit-missing's, which ranks above this."""
    cause = t("NVIDIA's image checked at start and found no NVIDIA driver in the container (neither libcuda.so.1 "
              "nor /dev/nvidiactl): it was started without a GPU request, so the NVIDIA container toolkit put "
              "neither the driver's libraries nor the GPU devices into it.")
    return _without_gpu(log, ctx, cause, [ngc.line] + [ev.line for ev in log.all("smi_not_found")[:1]])


def _without_gpu(log, ctx, cause, evidence):
    """A container started without a GPU request: the fix, and the findings it explains."""
    fix = t("start the container with `docker run --gpus all ...` (the host needs the NVIDIA driver and the "
            "NVIDIA container toolkit; docker compose: a GPU device reservation); pointing LD_LIBRARY_PATH at "
            "CUDA's compat libraries does not help")
    # TF's unnamed "Cannot dlopen" / "Could not find cuda drivers" follow from it; a CUDA library named is its own
    explained = ("libcuda-missing", "no-gpu-harmless", "cuinit-error")
    if not missing_cuda_runtime.missing(log):
        explained += ("missing-cuda-runtime",)
    return Finding(ID, t("No GPU device is visible to TensorFlow"), evidence, cause, fix, tfenv_way(ctx), rank=30,
                   supersedes=explained)
