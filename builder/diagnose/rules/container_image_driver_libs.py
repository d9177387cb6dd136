"""The image itself holds NVIDIA driver files (libnvidia-ml.so.1, libcuda.so.1, ...) where the container toolkit
mounts the host's: libnvidia-container refuses to create its mount point over them (src/utils.c "file creation
failed: %s" with EEXIST, "file exists"). They come from a driver package installed in the image (libnvidia-compute-*,
which some -dev packages pull in), from `docker commit` of a container that had the GPU, or from a build run with
nvidia as Docker's default runtime (the toolkit's files, left behind as empty "ghost" files).

On Jetson the same refusal comes from an L4T image that carries what the CSV lists mount: jetson-container says it.
Inside WSL 2 a Linux driver package the log shows is the root cause (its files are what collides):
wsl-linux-driver supersedes this finding."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "container-image-driver-libs"


def check(log, ctx):
    exists = [ev for ev in log.all("nvc_error") if ev.groups[0] == "mount"
              and "file creation failed" in (ev.groups[1] or "") and "file exists" in ev.groups[1]][:1]
    path = _file_path(exists[0].groups[1]) if exists else ""
    if not exists:  # a wrap cut the mount error: its "<driver library>: file exists" on one of the next rows
        mounts = [ev for ev in log.all("nvc_error") if ev.groups[0] == "mount"]
        tails = [ev for ev in log.all("driver_file_exists") for m in mounts[:1] if 0 <= ev.line - m.line <= 4][:1]
        exists, path = (mounts[:1] + tails, "/" + tails[0].groups[0].lstrip("/")) if tails else ([], "")
    if not exists or log.has("jetson"):
        return None
    path = path.rsplit("/merged", 1)[-1]
    cause = t("The image already has a file where the NVIDIA container toolkit mounts the host's driver ({path}): "
              "the image carries NVIDIA driver files, from a driver package installed in it, a `docker commit` of a "
              "container that had the GPU, or a build with nvidia as Docker's default runtime.", path=path)
    fix = t("remove the driver's files from the image: build a new one `FROM` it with `RUN rm -f {path}` (and the "
            "other driver libraries it has, such as libcuda.so.1), or drop the driver package from the Dockerfile "
            "(the libnvidia-compute-* package that a -dev package pulled in); build images without "
            "nvidia as the default runtime in /etc/docker/daemon.json and never `docker commit` a GPU container; "
            "the CUDA runtime libraries in the image are fine, the driver's come from the host", path=path)
    return Finding(ID, t("The image contains NVIDIA driver files the toolkit must mount from the host"),
                   lines(exists), cause, fix, "", rank=5,
                   supersedes=("no-gpu-visible", "libcuda-missing", "no-gpu-harmless", "container-no-host-driver"))


def _file_path(detail):
    """The path of "file creation failed: PATH: file exists"."""
    rest = detail.split("file creation failed: ", 1)[-1]
    return rest.split(": file exists", 1)[0]
