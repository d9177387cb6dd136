"""Load and validate matrix.yaml into the dataclasses of builder.matrix.model.

Every error names the file, the key path and what was expected, in one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builder.core import paths
from builder.core.errors import TfenvError
from builder.matrix import projects
from builder.matrix.checker import Checker, type_name
from builder.matrix.model import (
    Copy,
    CudaStack,
    DebianCuda,
    Env,
    ImageSettings,
    Matrix,
    MatrixError,
    NvidiaTables,
    OsVariant,
    Shim,
    TfTested,
    UbuntuCuda,
    WindowsCuda,
    WindowsInstaller,
    WindowsSettings,
    WslCuda,
    WslDistro,
    WslSettings,
    version_key,
)

# --- parsing ------------------------------------------------------------------------------------


def load(path: Path | str | None = None) -> Matrix:
    """Read and validate a matrix file (the packaged matrix.yaml by default)."""
    from builder.core import yamlfile

    path = Path(path) if path else paths.matrix_file()
    try:
        data = yamlfile.load(path, "matrix file")
    except TfenvError as exc:
        raise MatrixError(str(exc)) from None
    return parse(data, path)


def parse(data: Any, path: Path) -> Matrix:
    c = Checker(path.name)
    top = c.mapping(data, "", required=("schema", "image", "os", "sonames", "cuda", "jupyter", "envs"),
                    optional=("wsl", "windows", "projects", "nvidia", "tensorflow"))
    if type(top["schema"]) is not int or top["schema"] != 1:  # `true == 1` in Python
        c.fail("schema", f"expected 1, got {top['schema']!r}")
    image = _parse_image(c, top["image"])
    os_variants = {
        name: _parse_os(c, name, v) for name, v in c.names(top["os"], "os").items()
    }
    sonames = {
        name: _parse_sonames(c, name, v)
        for name, v in c.names(top["sonames"], "sonames").items()
    }
    cuda = {
        str(name): _parse_cuda(c, str(name), v, os_variants)
        for name, v in c.mapping(top["cuda"], "cuda", optional=top["cuda"] or ()).items()
    }
    jupyter = c.mapping(top["jupyter"], "jupyter", required=("packages",))
    envs_raw = c.names(top["envs"], "envs")
    if not envs_raw:
        c.fail("envs", "expected at least one environment")
    envs = {name: _parse_env(c, name, v, os_variants, sonames, cuda) for name, v in envs_raw.items()}
    return Matrix(
        path=path,
        image=image,
        os=os_variants,
        cuda=cuda,
        envs=envs,
        jupyter_packages=c.strings(jupyter["packages"], "jupyter.packages"),
        wsl=_parse_wsl(c, top["wsl"], os_variants) if "wsl" in top else None,
        windows=_parse_windows(c, top["windows"]) if "windows" in top else None,
        projects=projects.parse_projects(c, top.get("projects") or {}),
        nvidia=_parse_nvidia(c, top.get("nvidia") or {}, cuda),
        tensorflow=_parse_tensorflow(c, top.get("tensorflow") or {}),
    )


def _parse_nvidia(c: Checker, raw: Any, cuda: dict) -> NvidiaTables:
    """NVIDIA's driver minimums of the CUDA releases without a stack, the first and last CUDA of each GPU generation,
    the CUDA of each PTX ISA version and the first driver of each NVENC API."""
    cudas = ("first_cuda_for_arch", "last_cuda_for_arch", "cuda_for_ptx_isa")  # NvidiaTables' fields, as named
    m = c.mapping(raw, "nvidia", optional=("driver_min", "nvenc_driver_min") + cudas)
    drivers = _driver_table(c, m, "driver_min")
    for release in (r for r in drivers if r in cuda):
        c.fail(f"nvidia.driver_min.{release}", f"CUDA {release} is under 'cuda:', its driver minimum lives there")
    return NvidiaTables(driver_min=drivers, nvenc_driver_min=_driver_table(c, m, "nvenc_driver_min"),
                        **{key: _cuda_table(c, m, key) for key in cudas})


def _driver_table(c: Checker, m: dict, key: str) -> dict[str, dict[str, str]]:
    """nvidia.<key>: a version (a CUDA release, an NVENC API) -> its first driver {linux, windows}."""
    out, table = {}, m.get(key) or {}
    for version, mins in c.mapping(table, f"nvidia.{key}", optional=table).items():
        p = f"nvidia.{key}.{version}"
        d = c.mapping(mins, p, required=("linux", "windows"))
        out[c.version(version, p)] = {k: c.version(d[k], f"{p}.{k}") for k in ("linux", "windows")}
    return out


def _cuda_table(c: Checker, m: dict, key: str) -> dict[str, str]:
    """nvidia.<key>: a version (a compute capability, a PTX ISA) -> CUDA release, both checked as versions."""
    table = c.mapping(m.get(key) or {}, f"nvidia.{key}", optional=m.get(key) or ())
    return {c.version(k, f"nvidia.{key}"): c.version(v, f"nvidia.{key}.{k}") for k, v in table.items()}


def _parse_tensorflow(c: Checker, raw: Any) -> dict[str, TfTested]:
    """TensorFlow's tested build configurations: per TF line its Python range (Linux, Windows), CUDA and cuDNN."""
    out = {}
    for line, row in c.mapping(raw, "tensorflow", optional=raw or ()).items():
        p = f"tensorflow.{line}"
        m = c.mapping(row, p, required=("python", "cuda", "cudnn"), optional=("windows_python",))
        python = _python_range(c, m["python"], f"{p}.python")
        windows = _python_range(c, m["windows_python"], f"{p}.windows_python") if "windows_python" in m else python
        out[c.version(line, p)] = TfTested(python, windows, c.version(m["cuda"], f"{p}.cuda"),
                                           c.version(m["cudnn"], f"{p}.cudnn"))
    return out


def _python_range(c: Checker, raw: Any, p: str) -> tuple[str, str]:
    """'3.3-3.6' -> ('3.3', '3.6'); one version is a range of one."""
    low, _, high = c.string(raw, p).partition("-")
    low, high = c.version(low, p), c.version(high or low, p)
    if version_key(low) > version_key(high):
        c.fail(p, f"expected a range low-high, got {raw!r}")
    return low, high


def _parse_windows(c: Checker, raw: Any) -> WindowsSettings:
    m = c.mapping(raw, "windows", required=("python", "vc_runtime", "vc_runtime_url"))
    python = c.str_map(m["python"], "windows.python")
    for line, release in python.items():
        c.version(line, f"windows.python.{line}")
        if not c.version(release, f"windows.python.{line}").startswith(line + "."):
            c.fail(f"windows.python.{line}", f"expected a {line}.N release, got {release!r}")
    return WindowsSettings(
        python=python,
        vc_runtime=c.dll_names(m["vc_runtime"], "windows.vc_runtime"),
        vc_runtime_url=c.https(m["vc_runtime_url"], "windows.vc_runtime_url"),
    )


def _parse_windows_cuda(c: Checker, p: str, raw: Any) -> WindowsCuda:
    m = c.mapping(raw, p, required=("source",), optional=("pip", "cudnn", "installer", "cudnn_zip", "copies",
                                                              "cudnn_dlls", "cudnn_zip_sha256"))
    source = c.one_of(m["source"], f"{p}.source", ("pip", "installer"), "Windows CUDA source")
    needs = ("pip", "cudnn") if source == "pip" else ("installer", "cudnn_zip")
    for key in needs:
        if key not in m:
            c.fail(f"{p}.{key}", f"missing required key (source {source!r} needs {' and '.join(needs)})")
    for key in sorted(set(m) - set(needs) - {"source", "copies", "cudnn_dlls", "cudnn_zip_sha256"}):
        c.fail(f"{p}.{key}", f"belongs to source {'installer' if source == 'pip' else 'pip'}, not {source!r}")
    installer = None
    if "installer" in m:
        i = c.mapping(m["installer"], f"{p}.installer", required=("url", "components", "dll_dirs"),
                      optional=("md5", "md5_source"))
        installer = WindowsInstaller(
            url=c.https(i["url"], f"{p}.installer.url"),
            components=c.strings(i["components"], f"{p}.installer.components"),
            dll_dirs=c.strings(i["dll_dirs"], f"{p}.installer.dll_dirs"),
            md5=c.hex(i.get("md5", ""), f"{p}.installer.md5", 32),
            md5_source=c.https(i["md5_source"], f"{p}.installer.md5_source") if i.get("md5") else "",
        )
    copies = []
    for i, raw_copy in enumerate(c.items(m.get("copies", []), f"{p}.copies")):
        cp = c.mapping(raw_copy, f"{p}.copies[{i}]", required=("from", "to"))
        copies.append(Copy(c.dll_names([cp["from"]], f"{p}.copies[{i}].from")[0],
                           c.dll_names([cp["to"]], f"{p}.copies[{i}].to")[0]))
    return WindowsCuda(
        source=source,
        pip=c.str_map(m["pip"], f"{p}.pip") if "pip" in m else {},
        cudnn=c.version(m["cudnn"], f"{p}.cudnn") if "cudnn" in m else None,
        installer=installer,
        cudnn_zip=c.string(m["cudnn_zip"], f"{p}.cudnn_zip") if "cudnn_zip" in m else None,
        cudnn_zip_sha256=c.hex(m["cudnn_zip_sha256"], f"{p}.cudnn_zip_sha256", 64) or None
        if m.get("cudnn_zip_sha256") else None,
        copies=tuple(copies),
        cudnn_dlls=c.dll_names(m.get("cudnn_dlls", []), f"{p}.cudnn_dlls"),
    )


def _parse_wsl(c: Checker, raw: Any, os_variants: dict[str, OsVariant]) -> WslSettings:
    m = c.mapping(raw, "wsl", required=("windows_build_min", "driver_min_windows", "lib_dir", "linux_driver_packages",
                                        "distros", "kernel_min"))
    build = m["windows_build_min"]
    if not isinstance(build, int) or isinstance(build, bool) or build <= 0:
        c.fail("wsl.windows_build_min", f"expected a positive integer, got {type_name(build)}")
    distros = {}
    for name, d in c.names(m["distros"], "wsl.distros").items():
        p = f"wsl.distros.{name}"
        d = c.mapping(d, p, required=("os", "id", "version_id"))
        distros[str(name)] = WslDistro(
            name=str(name),
            os=c.one_of(d["os"], f"{p}.os", os_variants, "OS variant"),
            id=c.string(d["id"], f"{p}.id"),
            version_id=c.string(d["version_id"], f"{p}.version_id"),
        )
    if not distros:
        c.fail("wsl.distros", "expected at least one distribution")
    facts = {k: c.string(m[k], f"wsl.{k}") for k in ("lib_dir", "linux_driver_packages")}
    return WslSettings(build, c.version(m["driver_min_windows"], "wsl.driver_min_windows"), distros, **facts,
                       kernel_min=c.version(m["kernel_min"], "wsl.kernel_min"))


def _parse_wsl_cuda(c: Checker, p: str, raw: Any, has_ubuntu: bool) -> WslCuda:
    m = c.mapping(raw, p, required=("source",), optional=("pip", "cudnn", "links"))
    source = c.one_of(m["source"], f"{p}.source", ("pip", "apt"), "WSL CUDA source")
    if source == "pip":
        for key in ("pip", "cudnn"):
            if key not in m:
                c.fail(f"{p}.{key}", "missing required key (the pip route installs NVIDIA's wheels)")
    elif not has_ubuntu:
        c.fail(f"{p}.source", "'apt' takes the packages of the 'ubuntu' section, which this CUDA stack lacks")
    elif "pip" in m or "cudnn" in m:
        c.fail(p, "'pip' and 'cudnn' belong to source 'pip' only")
    return WslCuda(
        source=source,
        pip=c.str_map(m["pip"], f"{p}.pip") if "pip" in m else {},
        cudnn=c.version(m["cudnn"], f"{p}.cudnn") if "cudnn" in m else None,
        links=tuple(_parse_shim(c, f"{p}.links[{i}]", s)
                    for i, s in enumerate(c.items(m.get("links", []), f"{p}.links"))),
    )


def _parse_image(c: Checker, raw: Any) -> ImageSettings:
    m = c.mapping(raw, "image", required=("repo", "user", "uid", "venv", "workdir", "pip"))
    if not isinstance(m["uid"], int) or isinstance(m["uid"], bool) or m["uid"] <= 0:
        c.fail("image.uid", f"expected a positive integer, got {type_name(m['uid'])}")
    return ImageSettings(
        repo=c.reference(m["repo"], "image.repo", repository=True),
        user=c.string(m["user"], "image.user"),
        uid=m["uid"],
        venv=c.string(m["venv"], "image.venv"),
        workdir=c.string(m["workdir"], "image.workdir"),
        pip=c.version(m["pip"], "image.pip"),
    )


def _parse_os(c: Checker, name: str, raw: Any) -> OsVariant:
    p = f"os.{name}"
    m = c.mapping(raw, p, required=("family", "base_image", "python", "packages"),
                  optional=("glibc", "suite", "local_base"))
    family = c.one_of(m["family"], f"{p}.family", ("ubuntu", "debian"), "OS family")
    if ("suite" in m) != ("local_base" in m) or ("suite" in m) != (family == "debian"):
        c.fail(p, "a Debian variant has suite and local_base (what `tfenv base` makes), an Ubuntu one neither")
    return OsVariant(
        name=name,
        family=family,
        base_image=c.reference(m["base_image"], f"{p}.base_image"),
        python=c.version(m["python"], f"{p}.python"),
        packages=c.str_map(m["packages"], f"{p}.packages"),
        glibc=c.version(m["glibc"], f"{p}.glibc") if m.get("glibc") is not None else "2.17",
        suite=c.string(m["suite"], f"{p}.suite") if "suite" in m else None,
        local_base=c.reference(m["local_base"], f"{p}.local_base") if "local_base" in m else None,
    )


def _parse_sonames(c: Checker, name: str, raw: Any) -> tuple[tuple[str, ...], ...]:
    """(required, optional, windows, windows_optional) for one soname set."""
    p = f"sonames.{name}"
    m = c.mapping(raw, p, required=("required",), optional=("optional", "windows", "windows_optional"))
    required = c.strings(m["required"], f"{p}.required")
    for i, so in enumerate(required):
        if ".so." not in so:
            c.fail(f"{p}.required[{i}]", f"expected a soname like 'libcudart.so.11.0', got {so!r}")
    return (required, c.strings(m.get("optional", []), f"{p}.optional"),
            c.dll_names(m.get("windows", []), f"{p}.windows"),
            c.dll_names(m.get("windows_optional", []), f"{p}.windows_optional"))


def _parse_cuda(c: Checker, version: str, raw: Any, os_variants: dict[str, OsVariant]) -> CudaStack:
    p = f"cuda.{version}"
    c.version(version, p)
    m = c.mapping(raw, p, required=("full", "cudnn", "driver_min"), optional=("ubuntu", "debian", "wsl", "windows"))
    driver = c.mapping(
        m["driver_min"], f"{p}.driver_min", required=("linux", "windows"), optional=("compat_linux", "compat_windows")
    )
    for key, value in driver.items():
        c.version(value, f"{p}.driver_min.{key}")
    ubuntu = debian = None
    if "ubuntu" in m:
        u = c.mapping(m["ubuntu"], f"{p}.ubuntu", required=("repos", "lib_dirs", "packages"), optional=("ml_repo",))
        repos = c.str_map(u["repos"], f"{p}.ubuntu.repos")
        for os_name in repos:
            c.one_of(os_name, f"{p}.ubuntu.repos.{os_name}", os_variants, "OS variant")
        if not isinstance(u.get("ml_repo", False), bool):
            c.fail(f"{p}.ubuntu.ml_repo", f"expected a boolean, got {type_name(u['ml_repo'])}")
        ubuntu = UbuntuCuda(
            repos,
            c.strings(u["lib_dirs"], f"{p}.ubuntu.lib_dirs"),
            c.str_map(u["packages"], f"{p}.ubuntu.packages"),
            u.get("ml_repo", False),
        )
    if "debian" in m:
        d = c.mapping(m["debian"], f"{p}.debian", required=("packages", "pip", "cudnn"), optional=("path_exclude",))
        debian = DebianCuda(
            c.str_map(d["packages"], f"{p}.debian.packages"),
            c.str_map(d["pip"], f"{p}.debian.pip"),
            c.version(d["cudnn"], f"{p}.debian.cudnn"),
            c.strings(d.get("path_exclude", []), f"{p}.debian.path_exclude"),
        )
    if not ubuntu and not debian:
        c.fail(p, "expected an 'ubuntu' or 'debian' section saying where the libraries come from")
    return CudaStack(
        version=version,
        full=c.version(m["full"], f"{p}.full"),
        cudnn=c.version(m["cudnn"], f"{p}.cudnn"),
        driver_min=dict(driver),
        ubuntu=ubuntu,
        debian=debian,
        wsl=_parse_wsl_cuda(c, f"{p}.wsl", m["wsl"], ubuntu is not None) if "wsl" in m else None,
        windows=_parse_windows_cuda(c, f"{p}.windows", m["windows"]) if "windows" in m else None,
    )


_ENV_KEYS = ("tensorflow", "python", "cuda", "cudnn", "sonames", "os", "pins", "lock_date")


def _parse_env(c, name, raw, os_variants, sonames, cuda) -> Env:
    p = f"envs.{name}"
    m = c.mapping(raw, p, required=_ENV_KEYS, optional=("shims", "ecosystem"))
    py = c.mapping(m["python"], f"{p}.python", required=("min", "max"))
    cuda_version = c.one_of(str(m["cuda"]) if isinstance(m["cuda"], (int, float)) else m["cuda"],
                            f"{p}.cuda", cuda, "CUDA version")
    stack = cuda[cuda_version]
    cudnn = c.version(m["cudnn"], f"{p}.cudnn")
    _check_cudnn(c, f"{p}.cudnn", cudnn, stack)
    soname_set = c.one_of(m["sonames"], f"{p}.sonames", sonames, "soname set")
    os_names = c.strings(m["os"], f"{p}.os")
    env = Env(
        name=name,
        tensorflow=c.version(m["tensorflow"], f"{p}.tensorflow"),
        python_min=c.version(py["min"], f"{p}.python.min"),
        python_max=c.version(py["max"], f"{p}.python.max"),
        cuda=stack,
        cudnn=cudnn,
        sonames=sonames[soname_set][0],
        optional_sonames=sonames[soname_set][1],
        windows_dlls=sonames[soname_set][2],
        windows_optional_dlls=sonames[soname_set][3],
        shims=tuple(_parse_shim(c, f"{p}.shims[{i}]", s) for i, s in enumerate(c.items(m.get("shims", []),
                                                                                            f"{p}.shims"))),
        os=os_names,
        pins=c.str_map(m["pins"], f"{p}.pins"),
        lock_date=c.date(m["lock_date"], f"{p}.lock_date"),
        ecosystem=c.str_map(m.get("ecosystem", {}), f"{p}.ecosystem"),
    )
    for package, spec in env.ecosystem.items():
        where = f"{p}.ecosystem.{package}"
        projects.specifier(c, spec if spec[:1] in "<>=!~" else f"=={spec}", where)
    if stack.windows:
        wanted = env.windows_dlls + env.windows_optional_dlls
        if not env.windows_dlls:
            c.fail(f"{p}.sonames", f"CUDA {stack.version} has a Windows route, so soname set {soname_set!r} "
                                   f"needs 'windows': the DLLs TF loads there")
        for copy in stack.windows.copies:
            if copy.to not in wanted:
                c.fail(f"cuda.{stack.version}.windows.copies", f"{copy.to} is not a DLL TF {env.tensorflow} loads "
                                                               f"(sonames.{soname_set}.windows)")
    for i, os_name in enumerate(os_names):
        where = f"{p}.os[{i}]"
        variant = os_variants[c.one_of(os_name, where, os_variants, "OS variant")]
        if variant.family == "ubuntu" and (not stack.ubuntu or os_name not in stack.ubuntu.repos):
            c.fail(where, f"CUDA {stack.version} has no NVIDIA repository for {os_name}")
        if variant.family == "debian" and not stack.debian:
            packaged = ", ".join(v for v, s in cuda.items() if s.debian)
            c.fail(where, f"CUDA {stack.version} has no Debian packages (only CUDA {packaged} is in {variant.suite})")
        if not env.supports_python(variant.python):
            c.fail(where, f"{os_name} has Python {variant.python}, outside TF {env.tensorflow}'s "
                          f"{env.python_min}-{env.python_max}")
    return env


def _check_cudnn(c: Checker, path: str, wanted: str, stack: CudaStack) -> None:
    """TF accepts a cuDNN of the same major version whose minor is at least its build's."""
    installed = [stack.cudnn] + ([stack.debian.cudnn] if stack.debian else [])
    if stack.wsl and stack.wsl.cudnn:
        installed.append(stack.wsl.cudnn)
    if stack.windows and stack.windows.cudnn:
        installed.append(stack.windows.cudnn)
    for have in installed:
        if version_key(have)[0] != version_key(wanted)[0] or version_key(have)[:2] < version_key(wanted)[:2]:
            c.fail(path, f"TF needs cuDNN {wanted}.x with the same major version; CUDA {stack.version} "
                         f"installs cuDNN {have}")


def _parse_shim(c: Checker, path: str, raw: Any) -> Shim:
    m = c.mapping(raw, path, required=("link", "to"))
    return Shim(c.string(m["link"], f"{path}.link"), c.string(m["to"], f"{path}.to"))
