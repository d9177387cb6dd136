"""The checks on the host: platform, GPU, driver against the matrix's minimums, TensorFlow, Python, WSL."""

import glob
import os
import re
from typing import List, Optional, Tuple

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
            where += ", inside a container"
    if wsl_version(host) == 1:
        return Check("platform", FAIL, f"{where}, Python {py}: WSL 1 has no GPU support",
                     "wsl --set-version <distro> 2 (in Windows PowerShell), then wsl --shutdown")
    return Check("platform", OK, f"{where}, Python {py}")


def check_gpu(host: Host, info: GpuInfo) -> Check:
    if not info.gpus:
        if info.error == "nvidia-smi not found":
            fix = ("start the container with --gpus all (NVIDIA container toolkit on the host)" if in_container(host)
                   else "install the NVIDIA driver on Windows (R495+) and run wsl --shutdown" if wsl_version(host)
                   else "install the NVIDIA driver (it brings nvidia-smi); TensorFlow runs on the CPU only")
            return Check("gpu", FAIL, "no NVIDIA GPU visible: nvidia-smi not found", fix)
        return Check("gpu", FAIL, f"nvidia-smi failed: {info.error}",
                     "the driver is not loaded: reboot after installing it; check Secure Boot and "
                     "`dmesg | grep -i nvrm`")
    gpu = info.gpus[0]
    more = f" (+{len(info.gpus) - 1} more)" if len(info.gpus) > 1 else ""
    if not gpu.compute_cap:
        return Check("gpu", OK, f"{gpu.name}{more}; compute capability not reported by this driver")
    if vkey(gpu.compute_cap) < TF_MIN_COMPUTE_CAPABILITY:
        return Check("gpu", FAIL, f"{gpu.name}{more}, compute capability {gpu.compute_cap}: TensorFlow 2 needs 3.5+",
                     "use a newer GPU, or run TensorFlow on the CPU")
    return Check("gpu", OK, f"{gpu.name}{more}, compute capability {gpu.compute_cap}")


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
    matrix = f"; of the matrix's CUDA versions it runs {', '.join(v for v, _ in ok)}" if ok else ""
    if info.cuda_max:
        return Check("cuda-max", OK, f"driver {driver} supports CUDA up to {info.cuda_max}{matrix}")
    if ok:
        return Check("cuda-max", OK, f"driver {driver} supports at least CUDA {ok[0][0]}{matrix}")
    oldest = min(facts["cuda"], key=vkey)
    return Check("cuda-max", FAIL, f"driver {driver} is older than every CUDA in the matrix",
                 f"update the driver to >= {facts['cuda'][oldest]['driver_min'][key]} (CUDA {oldest})")


def check_driver(facts: dict, env: str, info: GpuInfo, key: str) -> Check:
    e = facts["envs"][env]
    mins = facts["cuda"][e["cuda"]]["driver_min"]
    driver, table = info.gpus[0].driver, "Windows" if key == "windows" else "Linux"
    need, compat = mins[key], mins.get(f"compat_{key}")
    if vkey(driver) >= vkey(need):
        return Check("driver", OK, f"driver {driver} >= {need}, the {table} minimum for CUDA {e['cuda_full']}")
    best = recommend(facts, driver, key)
    other = f", or use {best[0]} (the newest environment this driver runs)" if best and best[0] != env else ""
    if compat and vkey(driver) >= vkey(compat):
        return Check("driver", WARN,
                     f"driver {driver} < {need} ({table}, CUDA {e['cuda_full']}) but >= {compat}: runs through CUDA 11 "
                     "minor-version compatibility, without PTX JIT for newer PTX",
                     f"update the driver to >= {need} for full support")
    return Check("driver", FAIL, f"driver {driver} is too old for CUDA {e['cuda_full']} ({table} minimum {need}"
                 + (f", {compat} with minor-version compatibility" if compat else "") + ")",
                 f"update the driver to >= {compat or need}{other}")


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
        return Check("tensorflow", FAIL, f"{dist} {version} is installed: a build without GPU support",
                     "pip uninstall tensorflow-cpu, then install tensorflow (or tensorflow-gpu for 2.2-2.3)")
    if env and vkey(facts["envs"][env]["tensorflow"])[:2] != vkey(version)[:2]:
        return Check("tensorflow", WARN, f"{dist} {version} is installed, {env} is TensorFlow "
                     f"{facts['envs'][env]['tensorflow']}", f"check with --env for {version}'s line, or install "
                     f"tensorflow=={facts['envs'][env]['tensorflow']}")
    if not env_for_tensorflow(facts, version):
        return Check("tensorflow", WARN, f"{dist} {version} is installed; the matrix has no environment for it",
                     "use one of the matrix environments (tfenv matrix)")
    return Check("tensorflow", OK, f"{dist} {version} installed")


def check_python(facts: dict, env: str, host: Host) -> Check:
    e = facts["envs"][env]
    py = ".".join(map(str, host.python[:2]))
    if vkey(e["python_min"]) <= host.python[:2] <= vkey(e["python_max"]):
        return Check("python", OK, f"Python {py} is in TensorFlow {e['tensorflow']}'s "
                     f"{e['python_min']}-{e['python_max']}")
    return Check("python", WARN, f"Python {py} is outside TensorFlow {e['tensorflow']}'s "
                 f"{e['python_min']}-{e['python_max']}: pip cannot install it here",
                 f"use Python {e['python_min']}-{e['python_max']} in a venv, or the Docker image")


def check_wsl(host: Host) -> List[Check]:
    if wsl_version(host) != 2:
        return []
    checks = []
    if host.exists("/dev/dxg"):
        checks.append(Check("wsl:dxg", OK, "/dev/dxg present (GPU paravirtualization)"))
    else:
        checks.append(Check("wsl:dxg", FAIL, "/dev/dxg missing: this WSL has no GPU",
                            "Windows 11 or 10 21H2+, the NVIDIA Windows driver R495+, then wsl --update and "
                            "wsl --shutdown"))
    if host.exists(WSL_LIB + "/libcuda.so.1"):
        checks.append(Check("wsl:libcuda", OK, f"{WSL_LIB}/libcuda.so.1 present (from the Windows driver)"))
    else:
        checks.append(Check("wsl:libcuda", FAIL, f"{WSL_LIB}/libcuda.so.1 missing",
                            "install the NVIDIA Windows driver R495+ (on Windows, not in WSL), then wsl --shutdown"))
    inside = _linux_driver_in_wsl(host)
    if inside:
        pkgs = [p for p in inside if not p.startswith("/")]
        fix = (f"sudo apt-get purge {' '.join(pkgs)}; " if pkgs else "remove the Linux NVIDIA driver; ")
        checks.append(Check("wsl:linux-driver", FAIL, f"a Linux NVIDIA driver is installed inside WSL: "
                            f"{', '.join(inside)}", fix + "install only cuda-toolkit-X-Y or runtime libraries "
                            "(never cuda, cuda-X-Y or cuda-drivers), then wsl --shutdown"))
    else:
        checks.append(Check("wsl:linux-driver", OK, "no Linux NVIDIA driver inside WSL"))
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
