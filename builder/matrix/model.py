"""The version matrix as frozen dataclasses (builder.matrix.validate reads matrix.yaml into them)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from builder.core.errors import TfenvError


class MatrixError(TfenvError):
    """matrix.yaml is not valid; the message is one line, ready for the user."""


class UnknownEnvError(MatrixError):
    """An environment or OS variant name that the matrix does not know."""


@dataclass(frozen=True)
class OsVariant:
    name: str
    family: str  # "ubuntu" or "debian"
    base_image: str
    python: str
    packages: dict[str, str]
    glibc: str = "2.17"  # the C library's version: which manylinux wheels the variant installs (the locks' hashes)
    suite: str | None = None  # Debian: the release debootstrap makes (`tfenv base OS`)
    local_base: str | None = None  # Debian: the image `tfenv base OS` makes, used when base_image cannot be pulled


@dataclass(frozen=True)
class UbuntuCuda:
    repos: dict[str, str]  # OS variant -> NVIDIA apt repository
    lib_dirs: tuple[str, ...]
    packages: dict[str, str]
    ml_repo: bool = False  # cuDNN 7 lives only in NVIDIA's deprecated machine-learning repository


@dataclass(frozen=True)
class DebianCuda:
    packages: dict[str, str]
    pip: dict[str, str]
    cudnn: str
    path_exclude: tuple[str, ...] = ()  # dpkg path-exclude globs: package files another layer provides


@dataclass(frozen=True)
class Shim:
    link: str
    to: str

    def as_dict(self) -> dict[str, str]:
        """{"link": ..., "to": ...}: the shape the suites, doctor's facts and `tfenv show` use."""
        return {"link": self.link, "to": self.to}


@dataclass(frozen=True)
class WslCuda:
    """Where a WSL2 venv takes this CUDA stack's runtime from (`tfenv wsl`)."""

    source: str  # "pip": NVIDIA's wheels into the venv; "apt": the ubuntu section's packages
    pip: dict[str, str] = field(default_factory=dict)
    cudnn: str | None = None  # cuDNN the pip route installs
    links: tuple[Shim, ...] = ()  # soname links in the venv for names the wheels spell differently


@dataclass(frozen=True)
class Copy:
    """A DLL the Windows script copies under the name TF asks for (Windows has no symlinks without admin)."""

    source: str
    to: str


@dataclass(frozen=True)
class WindowsInstaller:
    """NVIDIA's local CUDA installer, run silently with runtime components only (the guided route)."""

    url: str
    components: tuple[str, ...]  # setup.exe -s switches, e.g. cudart_10.2
    dll_dirs: tuple[str, ...]  # folders under the toolkit root whose DLLs the venv takes, e.g. bin
    md5: str = ""  # the MD5 NVIDIA publishes for the installer ("" where none could be sourced)
    md5_source: str = ""  # where that checksum was read


@dataclass(frozen=True)
class WindowsCuda:
    """Where a native Windows venv takes this CUDA stack's DLLs from (`tfenv windows`)."""

    source: str  # "pip": NVIDIA's win_amd64 wheels; "installer": NVIDIA's installer and the cuDNN zip (guided)
    pip: dict[str, str] = field(default_factory=dict)
    cudnn: str | None = None  # cuDNN the pip route installs
    installer: WindowsInstaller | None = None
    cudnn_zip: str | None = None  # the file name NVIDIA's cuDNN archive (login required) has
    cudnn_zip_sha256: str | None = None  # its known sha256; None: none could be sourced (the script asks)
    copies: tuple[Copy, ...] = ()
    cudnn_dlls: tuple[str, ...] = ()  # cuDNN 8's parts, which its loader DLL opens at the first convolution


@dataclass(frozen=True)
class CudaStack:
    version: str  # "11.2"
    full: str  # "11.2.2"
    cudnn: str  # cuDNN from NVIDIA's apt repository, e.g. "8.1.1"
    driver_min: dict[str, str]
    ubuntu: UbuntuCuda | None
    debian: DebianCuda | None
    wsl: WslCuda | None = None
    windows: WindowsCuda | None = None


@dataclass(frozen=True)
class Env:
    name: str
    tensorflow: str
    python_min: str
    python_max: str
    cuda: CudaStack
    cudnn: str  # what TF was built against, major.minor
    sonames: tuple[str, ...]
    optional_sonames: tuple[str, ...]
    shims: tuple[Shim, ...]
    os: tuple[str, ...]
    pins: dict[str, str]
    lock_date: str
    windows_dlls: tuple[str, ...] = ()  # what the win_amd64 wheel loads by bare name (driver's nvcuda.dll aside)
    windows_optional_dlls: tuple[str, ...] = ()  # CUPTI: the profiler only
    ecosystem: dict[str, str] = field(default_factory=dict)  # TF ecosystem package -> bound or default version

    @property
    def tf_short(self) -> str:
        """'2.9' for TF 2.9.3."""
        return ".".join(self.tensorflow.split(".")[:2])

    @property
    def built_cuda(self) -> str:
        """The CUDA TF was built against: the stack's, unless a shim stands in for TF's cudart soname
        (tf22 runs CUDA 10.2 but TF 2.2 was built against 10.1, the version its cudart soname names)."""
        for soname in self.sonames:
            if soname.startswith("libcudart.so.") and any(s.link == soname for s in self.shims):
                return soname.split(".so.", 1)[1]
        return self.cuda.version

    def supports_python(self, python: str) -> bool:
        return version_key(self.python_min) <= version_key(python) <= version_key(self.python_max)


@dataclass(frozen=True)
class Target:
    """One buildable image: an environment on one OS variant."""

    env: Env
    os: OsVariant

    @property
    def python(self) -> str:
        return self.os.python

    @property
    def cudnn_version(self) -> str:
        """The cuDNN actually installed on this variant."""
        if self.os.family == "debian":
            return self.env.cuda.debian.cudnn
        return self.env.cuda.cudnn

    @property
    def key(self) -> str:
        return f"{self.env.name}/{self.os.name}"


@dataclass(frozen=True)
class ImageSettings:
    repo: str
    user: str
    uid: int
    venv: str
    workdir: str
    pip: str  # the pip every venv is upgraded to first


@dataclass(frozen=True)
class WslDistro:
    name: str  # as `wsl --install -d NAME` spells it, e.g. "Ubuntu-20.04"
    os: str  # the OS variant it matches, e.g. "ubuntu20.04"
    id: str  # /etc/os-release ID
    version_id: str  # /etc/os-release VERSION_ID


@dataclass(frozen=True)
class WslSettings:
    windows_build_min: int
    driver_min_windows: str
    distros: dict[str, WslDistro]
    lib_dir: str  # where the Windows driver's libcuda.so is inside WSL 2
    linux_driver_packages: str  # regex of the Linux driver packages never to install in WSL
    kernel_min: str  # the first WSL kernel CUDA runs on


@dataclass(frozen=True)
class NvidiaTables:
    driver_min: dict[str, dict[str, str]] = field(default_factory=dict)  # CUDA release -> {linux, windows} minimum
    first_cuda_for_arch: dict[str, str] = field(default_factory=dict)  # compute capability -> first CUDA release
    last_cuda_for_arch: dict[str, str] = field(default_factory=dict)  # compute capability -> last CUDA release
    cuda_for_ptx_isa: dict[str, str] = field(default_factory=dict)  # PTX ISA version -> its first CUDA release
    nvenc_driver_min: dict[str, dict[str, str]] = field(default_factory=dict)  # NVENC API -> {linux, windows} driver


@dataclass(frozen=True)
class TfTested:
    """One TF release line as TensorFlow's tested build configurations give it (matrix.yaml tensorflow:)."""
    python: tuple[str, str]  # the Python 3 range of its Linux wheels, (min, max)
    windows_python: tuple[str, str]  # the same for Windows (most lines: the Linux range)
    cuda: str  # the CUDA and cuDNN of its Linux GPU build
    cudnn: str


@dataclass(frozen=True)
class WindowsSettings:
    python: dict[str, str]  # Python line -> python.org's last Windows installer of it, e.g. "3.10" -> "3.10.11"
    vc_runtime: tuple[str, ...]  # the Visual C++ runtime DLLs TF needs
    vc_runtime_url: str

    def python_for(self, env: Env) -> str | None:
        """The newest Python line with a python.org Windows installer that the environment supports."""
        fits = [v for v in self.python if env.supports_python(v)]
        return max(fits, key=version_key) if fits else None


@dataclass(frozen=True)
class Matrix:
    path: Path
    image: ImageSettings
    os: dict[str, OsVariant]
    cuda: dict[str, CudaStack]
    envs: dict[str, Env]
    jupyter_packages: tuple[str, ...]
    wsl: WslSettings | None = None
    windows: WindowsSettings | None = None
    projects: dict = field(default_factory=dict)  # a user's project: breakages, bounds, backports, windows_only
    nvidia: NvidiaTables = field(default_factory=NvidiaTables)
    tensorflow: dict[str, TfTested] = field(default_factory=dict)  # TF line -> its tested configuration

    def repo(self, given: str | None = None) -> str:
        """The image repository: the one given (--repo, TFENV_REPO, the config file), else image.repo."""
        return given or self.image.repo

    def env(self, name: str) -> Env:
        if name not in self.envs:
            raise UnknownEnvError(unknown_name("environment", name, self.envs))
        return self.envs[name]

    def target(self, env_name: str, os_name: str | None = None) -> Target:
        env = self.env(env_name)
        os_name = os_name or env.os[0]
        if os_name not in env.os:
            raise UnknownEnvError(
                f"{env_name} has no OS variant {os_name!r} (it has: {', '.join(env.os)})"
            )
        return Target(env, self.os[os_name])

    def targets(self) -> list[Target]:
        return [Target(env, self.os[o]) for env in self.envs.values() for o in env.os]

    def select(self, envs=(), os_names=()) -> list[Target]:
        """Targets of the named environments (all by default) on the named OS variants (all by default)."""
        for os_name in os_names:
            if os_name not in self.os:
                raise UnknownEnvError(unknown_name("OS variant", os_name, self.os))
        for name in envs:
            self.env(name)  # unknown names fail with the nearest match
        wanted = set(envs) or set(self.envs)
        targets = [t for t in self.targets() if t.env.name in wanted and (not os_names or t.os.name in os_names)]
        if not targets:
            among = f" among {', '.join(envs)}" if envs else ""
            raise MatrixError(f"no environment{among} has the OS variant(s) {', '.join(os_names)}")
        return targets


def unknown_name(what: str, name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {what} {name!r}{hint} (known: {', '.join(known)})"


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))
