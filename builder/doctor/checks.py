"""The checks on the host: platform, GPU, driver against the matrix's minimums, TensorFlow, Python, WSL."""

import glob
import os
import re
from typing import List, Optional, Tuple

from builder.diagnose.i18n import t
from builder.doctor.facts import env_order
from builder.doctor.host import FAIL, OK, WARN, WSL_LIB, Check, GpuInfo, Host, in_container, vkey, wsl_version

TF_MIN_COMPUTE_CAPABILITY = (3, 5)  # no TF 2.x GPU wheel has code for older GPUs
# Linux driver packages that must not be installed inside WSL (the Windows driver provides libcuda there).
WSL_FORBIDDEN_PACKAGES = re.compile(r"^(nvidia-driver-\S+|cuda-drivers\S*|libnvidia-compute-\S+|nvidia-dkms-\S+)$")


def check_platform(host: Host) -> Check:
    py = ".".join(map(str, host.python))
    if host.platform == "windows":
        where = "Windows"
    else:
        wsl = wsl_version(host)
        where = {2: "Linux (WSL2)", 1: "Linux (WSL1)"}.get(wsl, "Linux")
        if in_container(host):
            where = t("{platform}, inside a container", platform=where)
    if wsl_version(host) == 1:
        return Check("platform", FAIL, t("{platform}, Python {python}: WSL 1 has no GPU support", platform=where,
                                         python=py),
                     t("{command} (in Windows PowerShell), then {shutdown}", command="wsl --set-version <distro> 2",
                       shutdown="wsl --shutdown"))
    return Check("platform", OK, t("{platform}, Python {python}", platform=where, python=py))


def check_gpu(host: Host, info: GpuInfo) -> Check:
    if not info.gpus:
        if info.error == "nvidia-smi not found":
            fix = (t("start the container with --gpus all (NVIDIA container toolkit on the host)")
                   if in_container(host)
                   else t("install the NVIDIA driver on Windows (R495+) and run {command}", command="wsl --shutdown")
                   if wsl_version(host)
                   else t("install the NVIDIA driver (it brings nvidia-smi); TensorFlow runs on the CPU only"))
            return Check("gpu", FAIL, t("no NVIDIA GPU visible: nvidia-smi not found"), fix)
        return Check("gpu", FAIL, t("nvidia-smi failed: {error}", error=info.error),
                     t("the driver is not loaded: reboot after installing it; check Secure Boot and "
                       "`dmesg | grep -i nvrm`"))
    gpu = info.gpus[0]
    name = t("{gpu} (+{more} more)", gpu=gpu.name, more=len(info.gpus) - 1) if len(info.gpus) > 1 else gpu.name
    if not gpu.compute_cap:
        return Check("gpu", OK, t("{gpu}; compute capability not reported by this driver", gpu=name))
    if vkey(gpu.compute_cap) < TF_MIN_COMPUTE_CAPABILITY:
        return Check("gpu", FAIL, t("{gpu}, compute capability {cc}: TensorFlow 2 needs 3.5+", gpu=name,
                                    cc=gpu.compute_cap),
                     t("use a newer GPU, or run TensorFlow on the CPU"))
    return Check("gpu", OK, t("{gpu}, compute capability {cc}", gpu=name, cc=gpu.compute_cap))


def supported_cuda(facts: dict, driver: str, key: str) -> List[Tuple[str, bool]]:
    """Matrix CUDA versions this driver runs, newest first, each with 'only through minor-version compatibility'."""
    out = []
    for version, stack in sorted(facts["cuda"].items(), key=lambda kv: vkey(kv[0]), reverse=True):
        mins = stack["driver_min"]
        if vkey(driver) >= vkey(mins[key]):
            out.append((version, False))
        elif mins.get(f"compat_{key}") and vkey(driver) >= vkey(mins[f"compat_{key}"]):
            out.append((version, True))
    return out


def check_cuda_max(facts: dict, info: GpuInfo, key: str) -> Check:
    driver = info.gpus[0].driver
    ok = supported_cuda(facts, driver, key)
    runs = ", ".join(v for v, _ in ok)
    if info.cuda_max:
        message = (t("driver {driver} supports CUDA up to {cuda}; of the matrix's CUDA versions it runs {runs}",
                     driver=driver, cuda=info.cuda_max, runs=runs) if ok
                   else t("driver {driver} supports CUDA up to {cuda}", driver=driver, cuda=info.cuda_max))
        return Check("cuda-max", OK, message)
    if ok:
        return Check("cuda-max", OK, t("driver {driver} supports at least CUDA {cuda}; of the matrix's CUDA versions "
                                       "it runs {runs}", driver=driver, cuda=ok[0][0], runs=runs))
    oldest = min(facts["cuda"], key=vkey)
    return Check("cuda-max", FAIL, t("driver {driver} is older than every CUDA in the matrix", driver=driver),
                 t("update the driver to >= {need} (CUDA {cuda})", need=facts["cuda"][oldest]["driver_min"][key],
                   cuda=oldest))


def check_driver(facts: dict, env: str, info: GpuInfo, key: str) -> Check:
    e = facts["envs"][env]
    mins = facts["cuda"][e["cuda"]]["driver_min"]
    driver, table = info.gpus[0].driver, "Windows" if key == "windows" else "Linux"
    need, compat = mins[key], mins.get(f"compat_{key}")
    fields = {"driver": driver, "need": need, "table": table, "cuda": e["cuda_full"], "compat": compat}
    if vkey(driver) >= vkey(need):
        return Check("driver", OK, t("driver {driver} >= {need}, the {table} minimum for CUDA {cuda}", **fields))
    best = recommend(facts, driver, key)
    if compat and vkey(driver) >= vkey(compat):
        return Check("driver", WARN,
                     t("driver {driver} < {need} ({table}, CUDA {cuda}) but >= {compat}: runs through CUDA 11 "
                       "minor-version compatibility, without PTX JIT for newer PTX", **fields),
                     t("update the driver to >= {need} for full support", need=need))
    message = (t("driver {driver} is too old for CUDA {cuda} ({table} minimum {need}, {compat} with minor-version "
                 "compatibility)", **fields) if compat
               else t("driver {driver} is too old for CUDA {cuda} ({table} minimum {need})", **fields))
    fix = (t("update the driver to >= {need}, or use {env} (the newest environment this driver runs)",
             need=compat or need, env=best[0]) if best and best[0] != env
           else t("update the driver to >= {need}", need=compat or need))
    return Check("driver", FAIL, message, fix)


def recommend(facts: dict, driver: str, key: str) -> Optional[Tuple[str, bool]]:
    """The newest environment whose CUDA this driver runs; True when only through minor-version compatibility."""
    runs = dict(supported_cuda(facts, driver, key))
    for name in env_order(facts):
        cuda = facts["envs"][name]["cuda"]
        if cuda in runs:
            return name, runs[cuda]
    return None


def env_for_tensorflow(facts: dict, version: str) -> List[str]:
    return [n for n in env_order(facts) if vkey(facts["envs"][n]["tensorflow"])[:2] == vkey(version)[:2]]


def check_tensorflow(facts: dict, env: Optional[str], tf: Optional[Tuple[str, str]]) -> Optional[Check]:
    if not tf:
        return None
    dist, version = tf
    if dist == "tensorflow-cpu":
        return Check("tensorflow", FAIL, t("{dist} {version} is installed: a build without GPU support", dist=dist,
                                           version=version),
                     t("{uninstall}, then install tensorflow (or tensorflow-gpu for 2.2-2.3)",
                       uninstall="pip uninstall tensorflow-cpu"))
    if env and vkey(facts["envs"][env]["tensorflow"])[:2] != vkey(version)[:2]:
        wanted = facts["envs"][env]["tensorflow"]
        return Check("tensorflow", WARN, t("{dist} {version} is installed, {env} is TensorFlow {wanted}", dist=dist,
                                           version=version, env=env, wanted=wanted),
                     t("check with --env for {version}'s line, or install {requirement}", version=version,
                       requirement="tensorflow==" + wanted))
    if not env_for_tensorflow(facts, version):
        return Check("tensorflow", WARN, t("{dist} {version} is installed; the matrix has no environment for it",
                                           dist=dist, version=version),
                     t("use one of the matrix environments ({command})", command="tfenv matrix"))
    return Check("tensorflow", OK, t("{dist} {version} installed", dist=dist, version=version))


def check_python(facts: dict, env: str, host: Host) -> Check:
    e = facts["envs"][env]
    py = ".".join(map(str, host.python[:2]))
    fields = {"python": py, "tf": e["tensorflow"], "range": "{}-{}".format(e["python_min"], e["python_max"])}
    if vkey(e["python_min"]) <= host.python[:2] <= vkey(e["python_max"]):
        return Check("python", OK, t("Python {python} is in TensorFlow {tf}'s {range}", **fields))
    return Check("python", WARN, t("Python {python} is outside TensorFlow {tf}'s {range}: pip cannot install it here",
                                   **fields),
                 t("use Python {range} in a venv, or the Docker image", range=fields["range"]))


def check_wsl(host: Host) -> List[Check]:
    if wsl_version(host) != 2:
        return []
    checks = []
    if host.exists("/dev/dxg"):
        checks.append(Check("wsl:dxg", OK, t("/dev/dxg present (GPU paravirtualization)")))
    else:
        checks.append(Check("wsl:dxg", FAIL, t("/dev/dxg missing: this WSL has no GPU"),
                            t("Windows 11 or 10 21H2+, the NVIDIA Windows driver R495+, then {update} and {shutdown}",
                              update="wsl --update", shutdown="wsl --shutdown")))
    libcuda = WSL_LIB + "/libcuda.so.1"
    if host.exists(libcuda):
        checks.append(Check("wsl:libcuda", OK, t("{path} present (from the Windows driver)", path=libcuda)))
    else:
        checks.append(Check("wsl:libcuda", FAIL, t("{path} missing", path=libcuda),
                            t("install the NVIDIA Windows driver R495+ (on Windows, not in WSL), then {shutdown}",
                              shutdown="wsl --shutdown")))
    inside = _linux_driver_in_wsl(host)
    if inside:
        pkgs = [p for p in inside if not p.startswith("/")]
        fields = {"purge": "sudo apt-get purge " + " ".join(pkgs), "shutdown": "wsl --shutdown"}
        fix = (t("{purge}; install only cuda-toolkit-X-Y or runtime libraries (never cuda, cuda-X-Y or "
                 "cuda-drivers), then {shutdown}", **fields) if pkgs
               else t("remove the Linux NVIDIA driver; install only cuda-toolkit-X-Y or runtime libraries (never "
                      "cuda, cuda-X-Y or cuda-drivers), then {shutdown}", **fields))
        checks.append(Check("wsl:linux-driver", FAIL, t("a Linux NVIDIA driver is installed inside WSL: {found}",
                                                        found=", ".join(inside)), fix))
    else:
        checks.append(Check("wsl:linux-driver", OK, t("no Linux NVIDIA driver inside WSL")))
    return checks


def _linux_driver_in_wsl(host: Host) -> List[str]:
    found = []
    status = host.read("/var/lib/dpkg/status")
    for block in status.split("\n\n"):
        name = re.search(r"^Package: (\S+)", block, re.M)
        if name and WSL_FORBIDDEN_PACKAGES.match(name.group(1)) and "install ok installed" in block:
            found.append(name.group(1))
    for pattern in ("/usr/lib/x86_64-linux-gnu/libcuda.so.*", "/usr/lib64/libcuda.so.*", "/usr/bin/nvidia-smi"):
        for p in sorted(glob.glob(host.path(pattern))):
            found.append(pattern.rsplit("/", 1)[0] + "/" + os.path.basename(p))
    return found
