"""WSL2: /dev/dxg, the Windows driver's libcuda, and no Linux NVIDIA driver installed inside WSL."""

import glob
import os
import re
from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, Check, Host, wsl_fact, wsl_version

ID = "wsl"


def check(ctx) -> List[Check]:
    host, lib_dir = ctx.host, wsl_fact(ctx.facts, "lib_dir")
    if wsl_version(host) != 2 or lib_dir is None:  # no facts: wsl_fact says why nothing is checked then
        return []
    driver = wsl_fact(ctx.facts, "driver_min_windows")
    checks = []
    if host.exists("/dev/dxg"):
        checks.append(Check("wsl:dxg", OK, t("/dev/dxg present (GPU paravirtualization)")))
    else:
        checks.append(Check("wsl:dxg", FAIL, t("/dev/dxg missing: this WSL has no GPU"),
                            t("Windows 11 or 10 21H2+, the NVIDIA Windows driver {driver} or newer, then {update} and "
                              "{shutdown}", driver=driver, update="wsl --update", shutdown="wsl --shutdown")))
    libcuda = lib_dir + "/libcuda.so.1"
    if host.exists(libcuda):
        checks.append(Check("wsl:libcuda", OK, t("{path} present (from the Windows driver)", path=libcuda)))
    else:
        checks.append(Check("wsl:libcuda", FAIL, t("{path} missing", path=libcuda),
                            t("install the NVIDIA Windows driver {driver} or newer (on Windows, not in WSL), then "
                              "{shutdown}", driver=driver, shutdown="wsl --shutdown")))
    return checks + [_linux_driver_check(host, re.compile(wsl_fact(ctx.facts, "linux_driver_packages")))]


def _linux_driver_check(host: Host, packages) -> Check:
    inside = _linux_driver_in_wsl(host, packages)
    if not inside:
        return Check("wsl:linux-driver", OK, t("no Linux NVIDIA driver inside WSL"))
    pkgs = [p for p in inside if not p.startswith("/")]
    fields = {"purge": "sudo apt-get purge " + " ".join(pkgs), "shutdown": "wsl --shutdown"}
    fix = (t("{purge}; install only cuda-toolkit-X-Y or runtime libraries (never cuda, cuda-X-Y or "
             "cuda-drivers), then {shutdown}", **fields) if pkgs
           else t("remove the Linux NVIDIA driver; install only cuda-toolkit-X-Y or runtime libraries (never "
                  "cuda, cuda-X-Y or cuda-drivers), then {shutdown}", **fields))
    return Check("wsl:linux-driver", FAIL, t("a Linux NVIDIA driver is installed inside WSL: {found}",
                                             found=", ".join(inside)), fix)


def _linux_driver_in_wsl(host: Host, packages) -> List[str]:
    found = []
    status = host.read("/var/lib/dpkg/status")
    for block in status.split("\n\n"):
        name = re.search(r"^Package: (\S+)", block, re.M)
        if name and packages.match(name.group(1)) and "install ok installed" in block:
            found.append(name.group(1))
    for pattern in ("/usr/lib/x86_64-linux-gnu/libcuda.so.*", "/usr/lib64/libcuda.so.*", "/usr/bin/nvidia-smi"):
        for p in sorted(glob.glob(host.path(pattern))):
            found.append(pattern.rsplit("/", 1)[0] + "/" + os.path.basename(p))
    return found
