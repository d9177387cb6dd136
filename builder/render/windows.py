"""Native Windows (`tfenv windows`): the Windows lock of each environment and its setup.ps1.

TF 2.5-2.10 take their CUDA DLLs from NVIDIA's win_amd64 wheels alone; TF 2.2-2.4 from NVIDIA's installer
and the cuDNN zip (guided). Both routes put the DLLs in folders the venv owns and a .pth hook puts those
folders on PATH at interpreter start (docs/sources.md §7). The renders are committed under windows/ENV/.
"""

from __future__ import annotations

from pathlib import Path

from builder.core import paths
from builder.core.errors import TfenvError
from builder.matrix.model import Env, Matrix
from builder.render import lock
from builder.render.dockerfiles import exit_codes, jinja_env, powershell_version, wheel_lib_dirs
from builder.render.generated import Generated

HOOK_NAME = "tfenv-cuda-path.pth"
# Where the guided route keeps the CUDA and cuDNN DLLs, relative to the venv.
GUIDED_DLL_DIR = "tfenv/cuda/bin"
# The longest file path inside any wheel a Windows lock installs (TF's own headers, 169 characters in 2.10;
# tests/slow/test_windows_wheels.py checks every wheel against it). Without Windows' long-path support,
# site-packages plus this must stay under MAX_PATH (260), or pip fails halfway through TensorFlow.
LONGEST_WHEEL_PATH = 170
# Free space the script asks for before it starts (GB, rounded up from the sizes of the tf210 lock's
# installed packages plus pip's cache of their wheels, and from NVIDIA's 2.5 GB installer plus what it unpacks).
VENV_SPACE_GB = {"pip": 6, "installer": 4}
DOWNLOAD_SPACE_GB = 6


class WindowsScriptError(TfenvError):
    """The matrix cannot produce a Windows script for this request; one line, with the fix."""


def python_for(matrix: Matrix, env: Env) -> str:
    """The Python line the environment's Windows lock and script use."""
    if matrix.windows is None:
        raise WindowsScriptError(f"{matrix.path.name} has no 'windows' section: it says which Python Windows uses")
    python = matrix.windows.python_for(env)
    if python is None:
        raise WindowsScriptError(f"{env.name} supports Python {env.python_min}-{env.python_max}, none of which "
                                 f"is in {matrix.path.name}'s windows.python")
    return python


def supported(env: Env) -> bool:
    return env.cuda.windows is not None


def lock_path(matrix: Matrix, env: Env, root: Path | None = None) -> Path:
    return paths.windows_lock_path(env, python_for(matrix, env), root)


def read_lock(matrix: Matrix, env: Env, root: Path | None = None) -> lock.Lock:
    path = lock_path(matrix, env, root)
    if not path.is_file():
        raise lock.LockError(f"no Windows lock {path.name} for {env.name}: run `tfenv lock {env.name}`")
    return lock.parse(path)


def resolve_lock(matrix: Matrix, env: Env, root: Path | None = None) -> Path:
    """Resolve the environment's package set for win_amd64 as of its lock_date (the Windows wheels'
    dependencies differ from Linux's) and write locks/ENV-win-pyX.Y.txt."""
    python = python_for(matrix, env)
    out = lock_path(matrix, env, root)
    lock.check_writable(out)
    pins = lock.compile_pins(lock.env_requirements(env), python, lock.WINDOWS_PLATFORM, env.lock_date, out.name)
    title = f"tfenv Windows lock for {env.name} on Python {python} (win_amd64)"
    return lock.write(out, lock.lock_text(title, env.lock_date, lock.WINDOWS_PLATFORM, python, pins))


def wheel_pythons(matrix: Matrix) -> list[str]:
    """The Pythons of the Windows scripts: each needs pip (and its CUDA wheels) hashed for win_amd64."""
    return sorted({python_for(matrix, e) for e in matrix.envs.values() if supported(e)})


def resolve_wheels(matrix: Matrix, root: Path | None = None) -> list[Path]:
    return [lock.resolve_wheels(matrix, py, lock.WINDOWS_PLATFORM, True, root) for py in wheel_pythons(matrix)]


def wheel_dll_dirs(env: Env) -> list[str]:
    """site-packages-relative folders holding the NVIDIA wheels' DLLs (nvidia/<pkg>/bin on Windows)."""
    return wheel_lib_dirs(env.cuda.windows.pip, leaf="bin")


def hook_dirs(env: Env) -> list[str]:
    """venv-relative folders the .pth hook puts on PATH, in order."""
    if env.cuda.windows.source == "pip":
        return [f"Lib/site-packages/{d}" for d in wheel_dll_dirs(env)]
    return [GUIDED_DLL_DIR]


def hook_line(env: Env) -> str:
    """The .pth line: run by site.py at every interpreter start (also Jupyter kernels and IDEs, which skip
    activate scripts). It prepends the DLL folders to PATH, which TF's LoadLibrary searches, once each,
    and adds them for Python's own restricted DLL search (3.8+). Python-3.6-safe, one line, no locals
    leaking into comprehensions (site.py execs it inside a function)."""
    dirs = ", ".join(
        "os.path.join(sys.prefix, " + ", ".join(repr(part) for part in d.split("/")) + ")" for d in hook_dirs(env)
    )
    return (
        "import os, sys; (lambda os, ds: [os.environ.__setitem__('PATH', os.pathsep.join("
        "[d for d in ds if d not in os.environ.get('PATH', '').split(os.pathsep)] + [os.environ.get('PATH', '')]))]"
        " + [os.add_dll_directory(d) for d in ds if hasattr(os, 'add_dll_directory') and os.path.isdir(d)])"
        f"(os, [{dirs}])"
    )


def copies(env: Env) -> list[dict]:
    """DLLs the script copies under the name TF asks for, with the venv-relative folder they go to."""
    stack = env.cuda.windows
    optional = set(env.windows_optional_dlls)
    out = []
    for copy in stack.copies:
        if stack.source == "pip":
            # beside the wheel DLL it copies: the one wheel folder that holds it (checked by the slow test)
            folder = next(d for d in hook_dirs(env) if d.endswith(_COPY_WHEEL.get(copy.source, "")))
        else:
            folder = GUIDED_DLL_DIR
        out.append({"source": copy.source, "to": copy.to, "dir": folder, "optional": copy.to in optional})
    return out


# Which wheel folder ships a DLL the pip route copies (the wheel test proves it from the wheel itself).
_COPY_WHEEL = {"cupti64_2022.3.0.dll": "nvidia/cuda_cupti/bin"}


def driver_min(env: Env) -> str:
    """The Windows driver TF's CUDA build needs (also the floor for PTX JIT on newer GPUs)."""
    return powershell_version(env.cuda.driver_min["windows"])


def context(matrix: Matrix, env: Env, locks_root: Path | None = None) -> dict:
    stack = env.cuda.windows
    if stack is None:
        raise WindowsScriptError(f"CUDA {env.cuda.version} has no 'windows' section in {matrix.path.name}: "
                                 f"{env.name} has no native Windows route")
    python = python_for(matrix, env)
    pins = read_lock(matrix, env, locks_root).hashed()
    wheels = lock.wheel_pins(python, [f"pip=={matrix.image.pip}"] + [f"{n}=={v}" for n, v in stack.pip.items()],
                             windows=True, root=locks_root)
    nvidia = [p.hashed for p in wheels[1:]]
    installer = stack.installer
    return {
        "env": env,
        "cuda": env.cuda,
        "stack": stack,
        "guided": stack.source == "installer",
        "python": python,
        "python_release": matrix.windows.python[python],
        "python_url": _python_url(matrix.windows.python[python]),
        "lock_name": paths.windows_lock_name(env, python),
        "requirements": pins + nvidia,
        "pip_pin": wheels[0].hashed,
        "dlls": list(env.windows_dlls),
        "optional_dlls": list(env.windows_optional_dlls),
        "vc_runtime": list(matrix.windows.vc_runtime),
        "vc_runtime_url": matrix.windows.vc_runtime_url,
        "hook_name": HOOK_NAME,
        "hook_line": hook_line(env),
        "hook_dirs": [d.replace("/", "\\") for d in hook_dirs(env)],
        "copies": [dict(c, dir=c["dir"].replace("/", "\\")) for c in copies(env)],
        "driver_min": driver_min(env),
        "compat_driver": env.cuda.driver_min.get("compat_windows", ""),
        "built_cuda": env.built_cuda,
        "cudnn_major": env.cudnn.split(".")[0],
        "installer_url": installer.url if installer else "",
        "installer_md5": installer.md5 if installer else "",
        "installer_md5_source": (installer.md5_source if installer and installer.md5 else
                                 "no published checksum could be sourced for this installer") if installer else "",
        "cudnn_zip_sha256": stack.cudnn_zip_sha256 or "",
        "installer_file": installer.url.rsplit("/", 1)[1] if installer else "",
        "installer_components": list(installer.components) if installer else [],
        "installer_dll_dirs": [d.replace("/", "\\") for d in installer.dll_dirs] if installer else [],
        "cudnn_zip": stack.cudnn_zip or "",
        "guided_dll_dir": GUIDED_DLL_DIR.replace("/", "\\"),
        "toolkit_cudart": _toolkit_cudart(env),
        "longest_wheel_path": LONGEST_WHEEL_PATH,
        "cudnn_dlls": list(stack.cudnn_dlls),
        "exit_codes": exit_codes("windows"),
        "venv_space_gb": VENV_SPACE_GB[stack.source],
        "download_space_gb": DOWNLOAD_SPACE_GB,
    }


def _toolkit_cudart(env: Env) -> str:
    """The cudart DLL NVIDIA's installer ships: the one a copy renames, else the one TF loads."""
    cudart = next(d for d in env.windows_dlls if d.startswith("cudart"))
    return next((c.source for c in env.cuda.windows.copies if c.to == cudart), cudart)


def _no_quotes(values: dict) -> None:
    """The script puts matrix and lock values into single-quoted PowerShell strings: a quote would end one."""
    for key in ("requirements", "dlls", "cudnn_dlls", "optional_dlls", "vc_runtime", "hook_dirs",
                "installer_components", "installer_dll_dirs", "cudnn_zip", "installer_url", "copies",
                "installer_md5_source", "pip_pin"):
        items = values[key] if isinstance(values[key], list) else [values[key]]
        for item in items:
            for text in item.values() if isinstance(item, dict) else [item]:
                if "'" in str(text):
                    raise WindowsScriptError(f"{values['env'].name}: {key} value {text!r} has a quote, which "
                                             f"would break setup.ps1's strings: fix matrix.yaml or the lock")


def _python_url(release: str) -> str:
    return f"https://www.python.org/downloads/release/python-{release.replace('.', '')}/"


def render(matrix: Matrix, env: Env, locks_root: Path | None = None) -> Generated:
    values = context(matrix, env, locks_root)
    _no_quotes(values)
    text = jinja_env("windows").get_template(paths.WINDOWS_SCRIPT + ".j2").render(**values)
    if not text.isascii():  # Windows PowerShell 5.1 reads a BOM-less script as ANSI: keep it ASCII
        raise WindowsScriptError(f"{paths.WINDOWS_SCRIPT} render has non-ASCII text: fix the template")
    return Generated(paths.windows_relpath(env), text)


def render_all(matrix: Matrix, envs: list[str] | None = None) -> list[Generated]:
    """setup.ps1 for every environment whose CUDA stack has a Windows route: what windows/ commits."""
    return [render(matrix, matrix.env(n)) for n in envs or list(matrix.envs) if supported(matrix.env(n))]
