"""The matrix facts doctor reads: --facts FILE, else the copy bundled into the standalone doctor, else a
doctor-facts.json beside the standalone file. (`tfenv doctor` passes them from matrix.yaml directly.)"""

import json
import os
import pkgutil
from typing import List, Optional

from builder.diagnose.i18n import t
from builder.diagnose.versions import vkey
from builder.doctor.host import DoctorError

BUNDLED = "doctor-facts.json"  # inside the standalone zip, beside this module


FACTS_MAX = 1 << 20  # bytes; the facts of every environment are ~15 KiB
# What each environment must carry (what `tfenv doctor --write-facts` writes); other keys are optional.
WSL_FACTS = ("lib_dir", "linux_driver_packages", "driver_min_windows")
_ENV_FACTS = {"tensorflow": str, "python_min": str, "python_max": str, "cuda": str, "cuda_full": str,
              "cudnn": str, "sonames": list, "optional_sonames": list, "shims": list, "lib_dirs": list}


def load_facts(path: Optional[str] = None, beside: Optional[str] = None) -> Optional[dict]:
    """--facts FILE, else the bundled facts, else doctor-facts.json in the folder `beside`."""
    if path:
        try:
            if not os.path.isfile(path):  # a folder, a fifo or /dev/zero: refused before reading
                raise DoctorError(f"cannot read facts file {path}: not a regular file")
            with open(path, encoding="utf-8-sig") as f:
                text = f.read(FACTS_MAX + 1)
            if len(text) > FACTS_MAX:
                raise DoctorError(f"cannot read facts file {path}: larger than {FACTS_MAX // 1024} KiB")
            return check_facts(json.loads(text), path)
        except (OSError, ValueError, RecursionError) as exc:
            raise DoctorError(f"cannot read facts file {path}: {exc}") from None
    try:
        data = pkgutil.get_data("builder.doctor", BUNDLED)
    except OSError:
        data = None
    if data:
        return check_facts(json.loads(data.decode("utf-8")), "the bundled facts")
    if beside and os.path.isfile(os.path.join(beside, BUNDLED)):
        return load_facts(os.path.join(beside, BUNDLED))
    return None


def check_facts(facts, source: str) -> dict:
    """The facts schema doctor reads; one line naming the key that is missing or wrong."""

    def fail(where: str, what: str):
        raise DoctorError(f"{source}: {where}: {what} (write it again with `tfenv doctor --write-facts`)")

    if not isinstance(facts, dict):
        fail("top level", "expected a JSON object")
    if facts.get("schema") != 1:
        fail("schema", "expected 1, got {!r}".format(facts.get("schema")))
    for key in ("envs", "cuda"):
        if not isinstance(facts.get(key), dict) or not facts[key]:
            fail(key, "missing, or not a non-empty object")
    for key in WSL_FACTS if "wsl" in facts else ():  # the WSL checks' facts come whole (matrix.yaml wsl:)
        if not isinstance(facts["wsl"], dict) or not isinstance(facts["wsl"].get(key), str):
            fail(f"wsl.{key}", "missing, or not a string")
    for version, stack in facts["cuda"].items():
        mins = stack.get("driver_min") if isinstance(stack, dict) else None
        if not isinstance(mins, dict) or not all(isinstance(mins.get(k), str) for k in ("linux", "windows")):
            fail(f"cuda.{version}.driver_min", "expected an object with 'linux' and 'windows' versions")
        if not isinstance(stack.get("full"), str):
            fail(f"cuda.{version}.full", "expected a version string")
    for name, env in facts["envs"].items():
        if not isinstance(env, dict):
            fail(f"envs.{name}", "expected an object")
        for key, kind in _ENV_FACTS.items():
            if not isinstance(env.get(key), kind):
                fail(f"envs.{name}.{key}", "missing" if key not in env else "expected a " + kind.__name__)
        if env["cuda"] not in facts["cuda"]:
            fail(f"envs.{name}.cuda", "CUDA {} is not under 'cuda'".format(env["cuda"]))
        for i, shim in enumerate(env["shims"]):
            if not isinstance(shim, dict) or not all(isinstance(shim.get(k), str) for k in ("link", "to")):
                fail(f"envs.{name}.shims[{i}]", "expected an object with 'link' and 'to'")
    return facts


def env_order(facts: dict) -> List[str]:
    """Environment names, newest TensorFlow (then newest CUDA) first."""
    envs = facts["envs"]
    return sorted(envs, key=lambda n: (vkey(envs[n]["tensorflow"]), vkey(envs[n]["cuda"])), reverse=True)


def check_env_name(facts: dict, name: str) -> None:
    if name not in facts["envs"]:
        raise DoctorError(t("unknown environment {name} (known: {known})", name=repr(name),
                            known=", ".join(facts["envs"])))
