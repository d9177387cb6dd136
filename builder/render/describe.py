"""The matrix as data (for --json/--yaml) and as tables for people (rich)."""

from __future__ import annotations

import json

from builder.core import paths
from builder.matrix import tags
from builder.matrix.model import Env, Matrix


def target_dict(m: Matrix, env: Env, os_name: str, repo: str) -> dict:
    target = m.target(env.name, os_name)
    return {
        "os": os_name,
        "base_image": target.os.base_image,
        "python": target.python,
        "cudnn": target.cudnn_version,
        "dockerfile": paths.dockerfile_relpath(target),
        "tags": tags.image_refs(target, repo),
        "jupyter_tags": tags.image_refs(target, repo, jupyter=True),
        "labels": tags.labels(target),
    }


def env_dict(m: Matrix, env: Env, repo: str, os_name: str | None = None) -> dict:
    variants = [os_name] if os_name else list(env.os)
    for name in variants:
        m.target(env.name, name)  # validates the OS name with a clear error
    return {
        "name": env.name,
        "tensorflow": env.tensorflow,
        "python_supported": f"{env.python_min}-{env.python_max}",
        "cuda": env.cuda.full,
        "cudnn_built_with": env.cudnn,
        "driver_min": env.cuda.driver_min,
        "sonames": list(env.sonames),
        "optional_sonames": list(env.optional_sonames),
        "shims": [s.as_dict() for s in env.shims],
        "pins": env.pins,
        "lock_date": env.lock_date,
        "variants": [target_dict(m, env, name, repo) for name in variants],
        "windows": windows_dict(m, env),
    }


def windows_dict(m: Matrix, env: Env) -> dict | None:
    """The native Windows route (`tfenv windows`), or None where the CUDA stack has none."""
    from builder.render import windows

    stack = env.cuda.windows
    if stack is None or m.windows is None:
        return None
    python = windows.python_for(m, env)
    return {
        "route": "pip" if stack.source == "pip" else "guided (NVIDIA's CUDA installer and the cuDNN zip)",
        "python": python,
        "lock": f"locks/{paths.windows_lock_name(env, python)}",
        "script": paths.windows_relpath(env),
        "dlls": list(env.windows_dlls),
        "optional_dlls": list(env.windows_optional_dlls),
        "pip": dict(stack.pip),
        "copies": [{"from": c.source, "to": c.to} for c in stack.copies],
        "path_dirs": windows.hook_dirs(env),  # venv-relative, what the .pth hook puts on PATH
    }


def matrix_dict(m: Matrix) -> dict:
    return {"schema": 1, "repo": m.image.repo, "envs": [env_dict(m, e, m.image.repo) for e in m.envs.values()]}


def dump(data: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    import yaml

    return yaml.safe_dump(data, sort_keys=False)


def markdown_table(m: Matrix) -> str:
    """The matrix as the Markdown table the README carries (tests/unit/render/test_drift.py keeps the two equal)."""
    rows = ["| env | TensorFlow | Python (image / TF supports) | CUDA | cuDNN (apt / debian11) "
            "| min driver Linux / Windows | OS variants |", "|---|---|---|---|---|---|---|"]
    for env in m.envs.values():
        cuda = env.cuda
        pythons = ", ".join(sorted({m.os[o].python for o in env.os}))
        shims = "".join(f" (+ `{s.link}` link)" for s in env.shims)
        debian = f" / {cuda.debian.cudnn}" if cuda.debian and any(m.os[o].family == "debian" for o in env.os) else ""
        driver = f"{cuda.driver_min['linux']} / {cuda.driver_min['windows']}"
        if "compat_linux" in cuda.driver_min:
            driver += f" (11.x compat: {cuda.driver_min['compat_linux']} / {cuda.driver_min['compat_windows']})"
        rows.append(f"| {env.name} | {env.tensorflow} | {pythons} / {env.python_min}–{env.python_max} "
                    f"| {cuda.full}{shims} | {cuda.cudnn}{debian} | {driver} | {', '.join(env.os)} |")
    return "\n".join(rows) + "\n"


def print_matrix_table(m: Matrix) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="tfenv matrix", show_lines=False)
    for column in ("env", "TensorFlow", "Python", "CUDA", "cuDNN", "driver (Linux/Windows)", "OS variants"):
        table.add_column(column)
    for env in m.envs.values():
        pythons = sorted({m.os[o].python for o in env.os})
        table.add_row(
            env.name,
            env.tensorflow,
            f"{'/'.join(pythons)} ({env.python_min}-{env.python_max})",
            env.cuda.full,
            env.cuda.cudnn + (f" / {env.cuda.debian.cudnn} (debian)" if env.cuda.debian else ""),
            f">= {env.cuda.driver_min['linux']} / {env.cuda.driver_min['windows']}",
            ", ".join(env.os),
        )
    Console().print(table)


def print_env(info: dict) -> None:
    from rich.console import Console

    console = Console(highlight=False)
    console.print(f"[bold]{info['name']}[/bold]: TensorFlow {info['tensorflow']} "
                  f"(Python {info['python_supported']}), CUDA {info['cuda']}, cuDNN {info['cudnn_built_with']}")
    drivers = info["driver_min"]
    console.print(f"  driver: Linux >= {drivers['linux']}, Windows >= {drivers['windows']}"
                  + (f" (CUDA 11 minor-version compatibility from {drivers['compat_linux']})"
                     if "compat_linux" in drivers else ""))
    console.print(f"  loads: {', '.join(info['sonames'])}")
    for shim in info["shims"]:
        console.print(f"  shim: {shim['link']} -> {shim['to']}")
    console.print(f"  pins: {', '.join(f'{k}=={v}' for k, v in info['pins'].items())} (lock as of {info['lock_date']})")
    win = info.get("windows")
    if win:
        console.print(f"  [bold]native Windows[/bold] ({win['route']}, Python {win['python']}): {win['script']}")
        console.print(f"    loads: {', '.join(win['dlls'])}")
        for copy in win["copies"]:
            console.print(f"    copy: {copy['from']} -> {copy['to']}")
    for v in info["variants"]:
        console.print(f"  [bold]{v['os']}[/bold] ({v['base_image']}, Python {v['python']}, cuDNN {v['cudnn']})")
        console.print(f"    Dockerfile: {v['dockerfile']}")
        for tag in v["tags"] + v["jupyter_tags"]:
            console.print(f"    {tag}")
