"""The platform: Windows, Linux, WSL1 (no GPU at all) or WSL2, inside a container or not, and the Python."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, Check, in_container, wsl_version

ID = "platform"


def check(ctx) -> List[Check]:
    host = ctx.host
    py = ".".join(map(str, host.python))
    if host.platform == "windows":
        where = "Windows"
    else:
        wsl = wsl_version(host)
        where = {2: "Linux (WSL2)", 1: "Linux (WSL1)"}.get(wsl, "Linux")
        if in_container(host):
            where = t("{platform}, inside a container", platform=where)
    if wsl_version(host) == 1:
        return [Check(ID, FAIL, t("{platform}, Python {python}: WSL 1 has no GPU support", platform=where,
                                  python=py),
                      t("{command} (in Windows PowerShell), then {shutdown}", command="wsl --set-version <distro> 2",
                        shutdown="wsl --shutdown"))]
    return [Check(ID, OK, t("{platform}, Python {python}", platform=where, python=py))]
