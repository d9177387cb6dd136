"""The GPU: does nvidia-smi see one, and is its compute capability one TensorFlow 2 has code for."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, Check, in_container, vkey, wsl_fact, wsl_version

ID = "gpu"
TF_MIN_COMPUTE_CAPABILITY = (3, 5)  # no TF 2.x GPU wheel has code for older GPUs


def check(ctx) -> List[Check]:
    host, info = ctx.host, ctx.info
    if not info.gpus:
        if info.error == "nvidia-smi not found":
            fix = (t("start the container with --gpus all (NVIDIA container toolkit on the host)")
                   if in_container(host)
                   else _wsl_driver_fix(ctx) if wsl_version(host)
                   else t("install the NVIDIA driver (it brings nvidia-smi); TensorFlow runs on the CPU only"))
            return [Check(ID, FAIL, t("no NVIDIA GPU visible: nvidia-smi not found"), fix)]
        return [Check(ID, FAIL, t("nvidia-smi failed: {error}", error=info.error),
                      t("the driver is not loaded: reboot after installing it; check Secure Boot and "
                        "`dmesg | grep -i nvrm`"))]
    gpu = info.gpus[0]
    name = t("{gpu} (+{more} more)", gpu=gpu.name, more=len(info.gpus) - 1) if len(info.gpus) > 1 else gpu.name
    if not gpu.compute_cap:
        return [Check(ID, OK, t("{gpu}; compute capability not reported by this driver", gpu=name))]
    if vkey(gpu.compute_cap) < TF_MIN_COMPUTE_CAPABILITY:
        return [Check(ID, FAIL, t("{gpu}, compute capability {cc}: TensorFlow 2 needs 3.5+", gpu=name,
                                  cc=gpu.compute_cap),
                      t("use a newer GPU, or run TensorFlow on the CPU"))]
    return [Check(ID, OK, t("{gpu}, compute capability {cc}", gpu=name, cc=gpu.compute_cap))]


def _wsl_driver_fix(ctx) -> str:
    driver = wsl_fact(ctx.facts, "driver_min_windows")
    if driver is None:  # no facts: the driver minimum is theirs to say
        return t("install the NVIDIA driver on Windows and run {command}", command="wsl --shutdown")
    return t("install the NVIDIA driver on Windows ({driver} or newer) and run {command}", driver=driver,
             command="wsl --shutdown")
