"""The matrix facts doctor reads: --facts FILE, else the copy bundled into the standalone doctor, else a
doctor-facts.json beside the standalone file. (`tfenv doctor` passes them from matrix.yaml directly.)"""

import json
import os
import pkgutil
from typing import List, Optional

from builder.diagnose.versions import vkey
from builder.doctor.host import DoctorError

BUNDLED = "doctor-facts.json"  # inside the standalone zip, beside this module


def load_facts(path: Optional[str] = None, beside: Optional[str] = None) -> Optional[dict]:
    """--facts FILE, else the bundled facts, else doctor-facts.json in the folder `beside`."""
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError) as exc:
            raise DoctorError(f"cannot read facts file {path}: {exc}") from None
    try:
        data = pkgutil.get_data("builder.doctor", BUNDLED)
    except OSError:
        data = None
    if data:
        return json.loads(data.decode("utf-8"))
    if beside and os.path.isfile(os.path.join(beside, BUNDLED)):
        return load_facts(os.path.join(beside, BUNDLED))
    return None


def env_order(facts: dict) -> List[str]:
    """Environment names, newest TensorFlow (then newest CUDA) first."""
    envs = facts["envs"]
    return sorted(envs, key=lambda n: (vkey(envs[n]["tensorflow"]), vkey(envs[n]["cuda"])), reverse=True)


def check_env_name(facts: dict, name: str) -> None:
    if name not in facts["envs"]:
        raise DoctorError(f"unknown environment {name!r} (known: {', '.join(facts['envs'])})")
