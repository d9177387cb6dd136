"""Build, tag and push tfenv images with the Docker SDK for Python.

The build context is a small in-memory tar: the Dockerfile rendered fresh from the matrix (so an installed
tfenv needs no checkout) and, with --ca-cert, the certificate as extra-ca.crt. The daemon's JSON stream is
parsed into a Display (builder.core.progress). Labels come from the Dockerfile itself: labels passed through the
API would add a final layer, and a changing one (a build date) would make every rebuild a new image.
"""

from __future__ import annotations

import io
import re
import tarfile
import time
from dataclasses import dataclass, field

from builder.core.errors import TfenvError
from builder.core.progress import Display
from builder.docker import containers, daemon
from builder.docker.containers import remove_layers
from builder.matrix import tags
from builder.matrix.model import Matrix, Target
from builder.render import dockerfiles, lock

_STEP = re.compile(r"^Step (\d+)/(\d+) : (.*)$")
_RUNNING = re.compile(r"^ ---> Running in ([0-9a-f]{12,64})$")
_LAYER = re.compile(r"^ ---> [0-9a-f]{12,64}$")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # the daemon colours a step's stderr


class BuildFailed(TfenvError):
    """A Dockerfile step failed; the display has shown its last output lines."""

    exit_code = 1


class BaseImageMissing(TfenvError):
    """The FROM image is not local and cannot be pulled."""


class PushFailed(TfenvError):
    """The registry refused a push (or cannot be reached)."""


@dataclass(frozen=True)
class BuildOptions:
    repo: str | None = None  # None: the matrix's image.repo
    jupyter: bool = False
    base_image: str | None = None
    pip_index_url: str | None = None
    apt_mirror: str | None = None
    ca_cert: str | None = None  # the path, for tools on the host (uv resolving a project's lock)
    no_cache: bool = False
    pull: bool | None = None  # None: pull the base only when it is missing; False: never; True: always
    push: bool = False
    network: str | None = None  # the RUN steps' network: "host" reaches a mirror on this machine's 127.0.0.1
    ca_pem: bytes | None = None  # its bytes, read once where the command starts (builder.core.config)


@dataclass
class StageResult:
    stage: str
    refs: list[str]
    image_id: str
    steps: int = 0  # Dockerfile steps the daemon went through
    cacheable: int = 0  # of those, the ones that can come from the layer cache (not FROM, not a global ARG)
    cached: int = 0  # layer cache hits
    seconds: float = 0.0
    new_layers: list[str] = field(default_factory=list)  # layers this build made (not cache hits)
    step_output: list[str] = field(default_factory=list)  # the current step's output lines
    cached_steps: list[str] = field(default_factory=list)  # the instructions that were cache hits
    # Each earlier stage (the `ca` one): the image it ended at, its cacheable steps and its cache hits.
    stage_ends: list[tuple[str, int, int]] = field(default_factory=list)
    stages_seen: int = field(default=0, repr=False)
    _last_image: str = field(default="", repr=False)
    _stage_start: tuple[int, int] = field(default=(0, 0), repr=False)  # cacheable, cached when the stage began
    _step_cached: bool = field(default=False, repr=False)
    _step_from: bool = field(default=False, repr=False)


@dataclass
class BuildResult:
    target: Target
    repo: str
    base_image: str
    stages: list[StageResult] = field(default_factory=list)

    @property
    def refs(self) -> list[str]:
        return self.stages[0].refs

    @property
    def jupyter_refs(self) -> list[str]:
        return self.stages[1].refs if len(self.stages) > 1 else []


# --- context and arguments ----------------------------------------------------------------------


def context_tar(dockerfile: str, ca_cert: bytes | None = None) -> io.BytesIO:
    """The build context: Dockerfile and optional extra-ca.crt, with fixed metadata so it hashes the same."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        files = {"Dockerfile": dockerfile.encode("utf-8")}
        if ca_cert is not None:
            files["extra-ca.crt"] = ca_cert
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    return buf


def build_args(base_image: str, options: BuildOptions, base_arg: str = "BASE_IMAGE") -> dict[str, str]:
    """The image to build FROM (environment images: BASE_IMAGE, project images: TFENV_BASE) always; the
    mirrors only when given, so an unset ARG leaves each tool's default."""
    args = {base_arg: base_image}
    if options.apt_mirror:
        args["TFENV_APT_MIRROR"] = options.apt_mirror
    if options.pip_index_url:
        args["PIP_INDEX_URL"] = options.pip_index_url
    return args


# --- base image -----------------------------------------------------------------------------------


def pull(c, ref: str, display: Display) -> None:
    """Pull one image with download progress; any failure becomes a one-line BaseImageMissing reason."""
    from docker.errors import DockerException
    from docker.utils import parse_repository_tag

    repo, tag = parse_repository_tag(ref)
    display.note(f"pulling {ref}")
    try:
        for event in c.api.pull(repo, tag=tag or "latest", stream=True, decode=True):
            if "error" in event:
                raise BaseImageMissing(_one_line(event["error"]))
            if "status" in event and "id" in event:
                detail = event.get("progressDetail") or {}
                display.download(event["id"], event["status"], detail.get("current"), detail.get("total"))
    except DockerException as exc:
        raise BaseImageMissing(_one_line(getattr(exc, "explanation", None) or str(exc))) from None


def missing_base_hint(target: Target, ref: str) -> str:
    if target.os.suite:  # `tfenv base` makes it
        tag = "" if ref == target.os.local_base else f" --tag {ref}"
        return f"create it with `tfenv base {target.os.name}{tag}`"
    return (f"run `docker pull {ref}` on a machine that can, then `docker save {ref} -o base.tar` there "
            f"and `docker load -i base.tar` here")


def resolve_base(c, target: Target, options: BuildOptions, display: Display) -> str:
    """The FROM image to build on, pulled if needed, or BaseImageMissing saying how to make it."""
    ref = options.base_image or target.os.base_image
    local = daemon.has_image(c, ref)
    made = target.os.local_base  # what `tfenv base` makes when no registry is reachable
    if not options.base_image and not local and made and options.pull is not True and daemon.has_image(c, made):
        display.note(f"{ref} is not local: building on {made} (made by `tfenv base`)")
        return made
    if options.pull is True or (options.pull is None and not local):
        try:
            pull(c, ref, display)
            return ref
        except BaseImageMissing as exc:
            if local:
                display.note(f"warning: cannot pull {ref} ({exc}); using the local copy")
                return ref
            reason = str(exc)
    elif local:
        return ref
    else:
        reason = "pulling is off (--no-pull)"
    raise BaseImageMissing(
        f"base image {ref} is not available locally and cannot be pulled ({_short(reason)}): "
        f"{missing_base_hint(target, ref)}"
    )


# --- one `docker build` ------------------------------------------------------------------------


def run_build(c, context: io.BytesIO, *, tag: str, display: Display, stage: str | None = None,
              buildargs: dict | None = None, nocache: bool = False, network: str | None = None) -> StageResult:
    """Build one stage from a tar context and tag it; BuildFailed with the step on failure.

    forcerm removes intermediate containers also when a step fails. On Ctrl-C the connection is closed
    (the daemon then cancels the build) and the step's container is removed here.
    """
    result = StageResult(stage or "", [tag], "")
    step_containers: list[str] = []
    current = (0, 0, "")
    start = time.monotonic()
    stream = c.api.build(
        fileobj=context, custom_context=True, tag=tag, target=stage, buildargs=buildargs or {},
        nocache=nocache, rm=True, forcerm=True, pull=False, decode=True, network_mode=network,
    )
    pending = ""
    try:
        for event in stream:
            if "error" in event:
                if lock.hash_mismatch(result.step_output):  # other bytes than a lock's: this build's layers go
                    display.finish()
                    remove_layers(c, result.new_layers)  # (the failed step's container is gone already: forcerm)
                    raise lock.SubstitutedFile(lock.hash_mismatch(result.step_output))
                _fail(display, current, event)
            if "stream" in event:
                pending += event["stream"]
                *lines, pending = pending.split("\n")
                for line in lines:
                    line = _ANSI.sub("", line).split("\r")[-1]
                    current = _stream_line(line, display, result, step_containers, current)
            elif "status" in event and "id" in event:
                detail = event.get("progressDetail") or {}
                display.download(event["id"], event["status"], detail.get("current"), detail.get("total"))
            elif "aux" in event and "ID" in (event["aux"] or {}):
                result.image_id = event["aux"]["ID"]
    except KeyboardInterrupt:  # also SIGTERM and SIGHUP (builder.core.exitcodes)
        c.api.close()  # dropping the connection makes the daemon cancel the build
        removed, layers = containers.remove_build_leftovers(step_containers, result.new_layers)
        display.finish()
        what = f"removed its container {', '.join(r[:12] for r in removed)}" if removed else "no container was left"
        display.note(f"build interrupted at step {current[0]}/{current[1]}: {what}"
                     + (f", and the {layers} untagged layer(s) it had made" if layers else ""))
        raise
    from docker.errors import DockerException

    try:
        if not result.image_id:
            result.image_id = c.images.get(tag).id
    except DockerException as exc:
        raise BuildFailed(f"the build of {tag} ended without an image: {_one_line(str(exc))}") from None
    result.seconds = time.monotonic() - start
    _drop_earlier_stages(c, result)
    return result


def _drop_earlier_stages(c, result: StageResult) -> None:
    """The classic builder keeps an earlier stage's last image untagged: one <none> image per build otherwise.
    Removed, that stage runs again next time (two small steps) and is not counted as cacheable."""
    for image, cacheable, cached in result.stage_ends:
        if image and image not in result.image_id and containers.remove_untagged(c, image):
            result.cacheable -= cacheable
            result.cached -= cached


def _stream_line(line: str, display: Display, result: StageResult, step_containers: list, current):
    step = _STEP.match(line)
    if step:
        current = (int(step.group(1)), int(step.group(2)), step.group(3))
        result.steps += 1
        result._step_cached = False
        result._step_from = current[2].upper().startswith("FROM ")
        result.step_output = []
        if result._step_from:
            if result.stages_seen:
                cacheable, cached = result._stage_start
                result.stage_ends.append((result._last_image, result.cacheable - cacheable, result.cached - cached))
                result._stage_start = (result.cacheable, result.cached)
            result.stages_seen += 1
        elif result.stages_seen:
            result.cacheable += 1
        display.step(*current)
        return current
    running = _RUNNING.match(line)
    if running:
        step_containers.append(running.group(1))
    elif line.strip() == "---> Using cache":
        result.cached += 1
        result._step_cached = True
        result.cached_steps.append(current[2])
        display.cached()
    elif _LAYER.match(line):
        result._last_image = line.split()[-1]
        if not (result._step_cached or result._step_from):
            result.new_layers.append(result._last_image)
    elif line.startswith((" ---> ", "Removing intermediate container", "Successfully built",
                          "Successfully tagged")):
        pass  # the daemon's bookkeeping, not the step's output
    elif line.strip():
        display.output(line.rstrip())
        result.step_output.append(line.rstrip())
    return current


def _fail(display: Display, current, event) -> None:
    number, total, instruction = current
    detail = event.get("errorDetail") or {}
    tail = list(display.tail)
    display.finish()
    if tail:
        display.note(f"--- last output of step {number}/{total} ---")
        for line in tail:
            display.note(f"  {line}")
    message = _one_line(event.get("error") or detail.get("message") or "unknown error")
    if detail.get("code") is not None and "returned a non-zero code" in message:
        message = f"exit code {detail['code']}"  # the daemon repeats the whole RUN command; the step says it
    where = f" at step {number}/{total} ({_short(instruction, 80)})" if number else ""
    raise BuildFailed(f"build failed{where}: {_short(message)}")


def tag(c, image_id: str, ref: str) -> None:
    from docker.utils import parse_repository_tag

    repo, tag_ = parse_repository_tag(ref)
    c.api.tag(image_id, repo, tag_)


def push(c, refs: list[str], display: Display) -> None:
    """Push each ref; the first error (auth, unreachable registry) is one line."""
    from docker.errors import DockerException
    from docker.utils import parse_repository_tag

    for ref in refs:
        repo, tag_ = parse_repository_tag(ref)
        display.note(f"pushing {ref}")
        try:
            for event in c.images.push(repo, tag=tag_, stream=True, decode=True):
                if "error" in event:
                    raise PushFailed(f"push of {ref} failed: {_short(_one_line(event['error']))}")
                if "status" in event and "id" in event:
                    detail = event.get("progressDetail") or {}
                    display.download(event["id"], event["status"], detail.get("current"), detail.get("total"))
        except DockerException as exc:
            raise PushFailed(f"push of {ref} failed: {_short(_one_line(str(exc)))}") from None


# --- the whole job: tfenv build ENV ---------------------------------------------------------------


def build_stage(c, dockerfile: str, refs: list[str], options: BuildOptions, display: Display,
                buildargs: dict[str, str], stage: str | None = None, what: str = "") -> StageResult:
    """One image of a build: the context (Dockerfile and --ca-cert's bytes), the build, every ref tagged, and
    the line that says how much came from the cache. Environment and project images both build here."""
    context = context_tar(dockerfile, options.ca_pem)
    display.start(f"{what} -> {refs[0]}")
    built = run_build(c, context, tag=refs[0], stage=stage, buildargs=buildargs, nocache=options.no_cache,
                      display=display, network=options.network)
    for ref in refs[1:]:
        tag(c, built.image_id, ref)
    built.refs = list(refs)
    display.note(f"built {built.image_id[7:19]} ({built.cached}/{built.cacheable} steps cached, "
                 f"{built.seconds:.0f} s): {', '.join(refs)}")
    return built


def build(matrix: Matrix, target: Target, options: BuildOptions, display: Display, c=None) -> BuildResult:
    """Render, build the tensorflow stage (and jupyter), tag both refs of each, push if asked."""
    c = c or daemon.client()
    repo = matrix.repo(options.repo)
    base = resolve_base(c, target, options, display)
    dockerfile = dockerfiles.render_target(target, matrix).text
    args = build_args(base, options)
    result = BuildResult(target, repo, base)
    stages = [("tensorflow", False)] + ([("jupyter", True)] if options.jupyter else [])
    try:
        for stage, jupyter in stages:
            refs = tags.image_refs(target, repo, jupyter=jupyter)
            result.stages.append(build_stage(c, dockerfile, refs, options, display, args, stage=stage,
                                             what=f"{target.key} stage {stage}"))
        if options.push:
            push(c, [r for s in result.stages for r in s.refs], display)
    finally:
        display.finish()
    return result


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
