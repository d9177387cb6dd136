"""FAKE hosts for doctor tests: directory trees standing in for a machine's root, and the fake nvidia-smi.

Each builder returns a doctor.Host whose root is the tree; files are empty (doctor only looks at names).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from builder.doctor import Host

FAKE_SMI = Path(__file__).resolve().parent / "nvidia-smi"

CUDA112_DEBIAN = ["libcudart.so.11.0", "libcublas.so.11", "libcublasLt.so.11", "libcufft.so.10", "libcurand.so.10",
                  "libcusolver.so.11", "libcusparse.so.11", "libcudnn.so.8", "libcupti.so.11.2"]
CUDA102 = ["libcudart.so.10.2", "libcublas.so.10", "libcufft.so.10", "libcurand.so.10", "libcusolver.so.10",
           "libcusparse.so.10"]


def tree(root: Path, files, text: dict | None = None) -> Path:
    for f in files:
        path = root / f.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    for f, content in (text or {}).items():
        path = root / f.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


def install_smi(dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(FAKE_SMI, dest)
    dest.chmod(0o755)


def smi_env(gpu="NVIDIA GeForce RTX 3080", driver="470.82.01", cc="8.6", cuda="11.4", fail=False) -> dict:
    env = {"FAKE_SMI_GPU": gpu, "FAKE_SMI_DRIVER": driver, "FAKE_SMI_CC": cc, "FAKE_SMI_CUDA": cuda}
    return dict(env, FAKE_SMI_FAIL="1") if fail else env


def linux_host(root: Path, files=(), smi: dict | None = None, environ=None, text=None, python=(3, 8, 10)) -> Host:
    """A Linux host; smi: the fake nvidia-smi's answers (None: no driver installed)."""
    tree(root, files, text)
    (root / "usr/bin").mkdir(parents=True, exist_ok=True)
    env = {"PATH": "/usr/bin"}
    if smi is not None:
        install_smi(root / "usr/bin/nvidia-smi")
        env.update(smi)
    env.update(environ or {})
    return Host(root=str(root), platform="linux", environ=env, python=python, site_dirs=[])


def old_driver_host(root: Path) -> Host:
    """CUDA 11.2 libraries installed Debian-style, but a 418 driver (CUDA 10.1) that predates compute_cap."""
    return linux_host(root, ["/usr/lib/x86_64-linux-gnu/" + n for n in CUDA112_DEBIAN + ["libcuda.so.1"]],
                      smi_env("GeForce GTX 1080", "418.87.01", cc="", cuda="10.1"))


def cuda102_host(root: Path, ld_conf: bool = True) -> Host:
    """NVIDIA's CUDA 10.2 under /usr/local/cuda-10.2 (in the ld.so cache when ld_conf), cuDNN 7, driver 440."""
    lib = "/usr/local/cuda-10.2/targets/x86_64-linux/lib/"
    files = [lib + n for n in CUDA102 + ["libcudart.so.10.2.89", "libcudart.so"]]
    files += ["/usr/local/cuda-10.2/extras/CUPTI/lib64/libcupti.so.10.2",
              "/usr/lib/x86_64-linux-gnu/libcudnn.so.7", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"]
    text = {"/etc/ld.so.conf": "include /etc/ld.so.conf.d/*.conf\n"}
    if ld_conf:
        text["/etc/ld.so.conf.d/cuda-10-2.conf"] = lib.rstrip("/") + "\n"
    return linux_host(root, files, smi_env("GeForce RTX 2080", "440.33.01", cc="7.5", cuda="10.2"), text=text)


def windows_cudart102_host(root: Path) -> Host:
    """Native Windows with CUDA 10.2's cudart64_102.dll as the only CUDA library, on PATH as the installer sets it."""
    windir, program_files = root / "Windows", root / "Program Files"
    cuda = program_files / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v10.2"
    for dll in (cuda / "bin" / "cudart64_102.dll", windir / "System32" / "nvcuda.dll"):
        tree(root, [str(dll.relative_to(root))])
    install_smi(windir / "System32" / "nvidia-smi.exe")
    env = {"PATH": ";".join([str(cuda / "bin"), str(windir / "System32")]), "SystemRoot": str(windir),
           "ProgramFiles": str(program_files), "CUDA_PATH": str(cuda), "CUDA_PATH_V10_2": str(cuda)}
    env.update(smi_env("NVIDIA GeForce GTX 1660", "442.50", cc="7.5", cuda="10.2"))
    return Host(root=str(root), platform="windows", environ=env, python=(3, 8, 10), site_dirs=[])


WSL_PROC_VERSION = ("Linux version 5.10.102.1-microsoft-standard-WSL2 (oe-user@oe-host) (x86_64-msft-linux-gcc "
                    "(GCC) 9.3.0, GNU ld (GNU Binutils) 2.34.0.20200220) #1 SMP Wed Mar 2 00:30:59 UTC 2022\n")
DPKG_LINUX_DRIVER = """Package: nvidia-driver-470
Status: install ok installed
Version: 470.103.01-0ubuntu0.20.04.1

Package: cuda-toolkit-11-2
Status: install ok installed
Version: 11.2.2-1

Package: nvidia-driver-460
Status: deinstall ok config-files
Version: 460.91.03-0ubuntu0.20.04.1
"""


def wsl_host(root: Path, linux_driver: bool = False, dxg: bool = True) -> Host:
    """WSL2 with the Windows driver's /usr/lib/wsl/lib; linux_driver: someone also installed nvidia-driver-470."""
    files = ["/usr/lib/wsl/lib/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so"]
    files += ["/usr/lib/x86_64-linux-gnu/" + n for n in CUDA112_DEBIAN]
    text = {"/proc/version": WSL_PROC_VERSION, "/etc/ld.so.conf": "include /etc/ld.so.conf.d/*.conf\n",
            "/etc/ld.so.conf.d/ld.wsl.conf": "/usr/lib/wsl/lib\n"}
    if dxg:
        files.append("/dev/dxg")
    if linux_driver:
        files += ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.470.103.01"]
        text["/var/lib/dpkg/status"] = DPKG_LINUX_DRIVER
    host = linux_host(root, files, smi_env("NVIDIA GeForce RTX 3060", "511.65", cc="8.6", cuda="11.6"), text=text)
    (root / "usr/bin/nvidia-smi").rename(root / "usr/lib/wsl/lib/nvidia-smi")  # where the Windows driver puts it
    if linux_driver:
        install_smi(root / "usr/bin/nvidia-smi")
    host.environ["WSL_DISTRO_NAME"] = "Ubuntu-20.04"
    return host


def sys_python_without_site() -> str:
    """This interpreter, for a subprocess that cannot see TensorFlow (tfenv's own venv has none)."""
    import sys

    return sys.executable
