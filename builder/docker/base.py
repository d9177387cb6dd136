"""`tfenv base OS`: make a Debian variant's base image from debootstrap when no registry is reachable.

The result matches what the official debian images do about size: no .deb files or package lists left,
an apt configuration that keeps it so in every later layer (docker-clean), and no documentation, manual
pages or translations installed by dpkg (path-exclude, as the -slim images do). Needs root, Linux and the
`debootstrap` package. No mirror is written here: without --mirror, debootstrap uses its own default.

A mirror cannot change what is installed: debootstrap checks the suite's Release file against Debian's
archive keyring (the debian-archive-keyring package, passed with --keyring, never --no-check-gpg) and
every package against the hashes that signed file lists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from builder.core.errors import TfenvError
from builder.core.progress import Display
from builder.matrix.model import OsVariant

KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")  # from the debian-archive-keyring package

# As in the official images (debuerreotype's docker-clean): caches go away after every dpkg run and update.
_RM_CACHES = "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"
APT_CLEAN = f"""\
# tfenv base: keep apt's caches out of image layers (as the official Debian images do)
DPkg::Post-Invoke {{ "{_RM_CACHES}"; }};
APT::Update::Post-Invoke {{ "{_RM_CACHES}"; }};
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
"""
APT_SMALL = """\
Acquire::Languages "none";
Acquire::GzipIndexes "true";
Acquire::CompressionTypes::Order:: "gz";
APT::AutoRemove::SuggestsImportant "false";
"""
# dpkg skips these for every package installed later too; copyright files stay (licences).
DPKG_EXCLUDE = """\
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
"""


class BaseError(TfenvError):
    """The base image cannot be made here (not root, no debootstrap, debootstrap failed)."""


def check_host() -> str:
    """The debootstrap path, or BaseError saying what is missing."""
    if not sys.platform.startswith("linux"):
        raise BaseError("tfenv base needs Linux (debootstrap); on Windows run it inside WSL2")
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        raise BaseError("tfenv base needs root (debootstrap creates device files and chroots): run it with sudo")
    path = shutil.which("debootstrap")
    if not path:
        raise BaseError("debootstrap is not installed: `sudo apt-get install debootstrap`")
    if not KEYRING.is_file():
        raise BaseError(f"no {KEYRING}, the keyring that proves the archive is Debian's: "
                        f"`sudo apt-get install debian-archive-keyring`")
    return path


def keyring_description() -> str:
    """Which keyring debootstrap trusts, with its package version when dpkg knows it."""
    try:
        version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "debian-archive-keyring"],
                                 capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        version = ""
    return f"{KEYRING} (debian-archive-keyring {version})" if version else str(KEYRING)


def debootstrap_command(debootstrap: str, suite: str, root: Path, mirror: str | None) -> list[str]:
    cmd = [debootstrap, "--variant=minbase", "--components=main,contrib,non-free", f"--keyring={KEYRING}",
           suite, str(root)]
    return cmd + ([mirror] if mirror else [])


def trim(root: Path) -> None:
    """Remove what debootstrap leaves that an image does not need, and keep later layers small."""
    for pattern in ("var/cache/apt/archives/*.deb", "var/cache/apt/archives/partial/*", "var/cache/apt/*.bin",
                    "var/lib/apt/lists/*", "var/log/*.log", "var/log/apt/*", "usr/share/info/*",
                    "usr/share/man/*", "usr/share/groff/*", "usr/share/lintian/*"):
        for path in root.glob(pattern):
            _remove(path)
    for path in (root / "usr/share/doc").glob("*/*"):
        if path.name != "copyright":
            _remove(path)
    for path in (root / "usr/share/locale").glob("*"):
        if path.name != "locale.alias":
            _remove(path)
    (root / "etc/apt/apt.conf.d/docker-clean").write_text(APT_CLEAN, encoding="utf-8")
    (root / "etc/apt/apt.conf.d/docker-small").write_text(APT_SMALL, encoding="utf-8")
    (root / "etc/dpkg/dpkg.cfg.d").mkdir(parents=True, exist_ok=True)
    (root / "etc/dpkg/dpkg.cfg.d/docker-exclude").write_text(DPKG_EXCLUDE, encoding="utf-8")


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def write_tar(root: Path, out: Path) -> None:
    """The root file system as a tar; /dev, /proc and /sys stay empty (Docker provides them)."""

    def keep(info: tarfile.TarInfo):
        parts = info.name.split("/")
        return None if len(parts) > 2 and parts[1] in ("dev", "proc", "sys") else info

    with tarfile.open(out, "w") as tar:
        tar.add(str(root), arcname=".", filter=keep)


def create(variant: OsVariant, tag: str | None, mirror: str | None, display: Display, c=None) -> str:
    """debootstrap the variant's suite, trim, import with CMD bash (as `tag`, else the variant's local_base);
    the image id. The work folder is always removed."""
    if variant.suite is None:
        raise BaseError(f"tfenv base makes Debian bases only; {variant.name}'s comes from `docker pull` "
                        f"(or docker save/load from a machine that can pull)")
    debootstrap = check_host()
    from builder.docker import daemon

    c = c or daemon.client()
    tag = tag or variant.local_base
    from builder.core import files

    try:
        # /var/tmp: a root file system does not fit in a tmpfs /tmp. An interrupted debootstrap can leave
        # proc/sys mounted in the target: unmounted before the folder is removed.
        with files.temp_dir("base", parent="/var/tmp", before_remove=_unmount_below) as work:
            root = work / "root"
            cmd = debootstrap_command(debootstrap, variant.suite, root, mirror)
            display.start(f"debootstrap {variant.suite} (minbase) -> {tag}")
            display.note(f"verifying the archive's signatures with {keyring_description()}")
            _run(cmd, display)
            trim(root)
            display.note("importing into Docker")
            tar_path = work / "rootfs.tar"
            write_tar(root, tar_path)
            from docker.utils import parse_repository_tag

            repo, version = parse_repository_tag(tag)
            with open(tar_path, "rb") as data:
                c.api.import_image_from_data(data, repository=repo, tag=version or "latest",
                                             changes=['CMD ["bash"]'])
            image = c.images.get(tag)
            display.note(f"created {tag} ({image.id[7:19]}, {image.attrs['Size'] / 1e6:.0f} MB)")
            return image.id
    finally:
        display.finish()


def _unmount_below(folder: Path) -> None:
    try:
        mounts = Path("/proc/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return
    prefix = str(folder.resolve()) + "/"
    points = [line.split()[1] for line in mounts if len(line.split()) > 1 and line.split()[1].startswith(prefix)]
    for point in sorted(points, key=len, reverse=True):  # deepest first
        subprocess.run(["umount", "-l", point], check=False)


def _run(cmd: list[str], display: Display) -> None:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in proc.stdout:
            display.output(line.rstrip())
        code = proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        proc.wait()
        raise
    if code != 0:
        for line in display.tail:
            display.note(f"  {line}")
        raise BaseError(f"debootstrap failed with exit code {code} (last lines above)")
