"""Which of the matrix's CUDA versions and environments a driver runs: shared by the checks and the report."""

from typing import List, Optional, Tuple

from builder.doctor.facts import env_order
from builder.doctor.host import vkey


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
