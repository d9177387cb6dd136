"""The check registry: one module per check, each with ID and check(ctx) -> List[Check] (empty: nothing to say).

Unlike diagnose/rules/, order matters: the report prints the checks in the order of CHECKS. ctx is a Context:
what diagnose() learned once (the installed TensorFlow, the target environment, nvidia-smi's answer), so that
no check asks the machine twice.
"""

from typing import List, Optional, Tuple

from builder.doctor.checks import (
    cuda_max,
    docker,
    driver,
    gpu,
    host_platform,
    libraries,
    no_facts,
    python_version,
    tf_import,
    tf_installed,
    wsl,
)
from builder.doctor.host import Check, GpuInfo, Host

CHECKS = [host_platform, gpu, cuda_max, driver, tf_installed, python_version, libraries, no_facts, wsl, docker,
          tf_import]


class Context:
    """host; facts (None: host only); env (None: no target); tf: (distribution, version) or None; info: the GPUs;
    key: the driver table ('linux' or 'windows'); do_import: --import."""

    def __init__(self, host: Host, facts: Optional[dict], env: Optional[str], tf: Optional[Tuple[str, str]],
                 info: GpuInfo, key: str, do_import: bool = False):
        self.host, self.facts, self.env, self.tf = host, facts, env, tf
        self.info, self.key, self.do_import = info, key, do_import


def run_checks(ctx: Context) -> List[Check]:
    """Every check's results, in the registry's order."""
    out = []  # type: List[Check]
    for module in CHECKS:
        out += module.check(ctx)
    return out
