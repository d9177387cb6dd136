"""The one container lifecycle: start, stream, stop, remove. run, Jupyter, test and build use it; and what
an interrupted or refused build leaves (its step's container, its new layers).

Every container tfenv starts carries MANAGED_LABEL (its value says which command started it), so
`tfenv ps`, `tfenv stop` and CI's last-resort cleanup find them; each command removes its own containers
in a `finally`, which also runs on Ctrl-C and, through signals_as_interrupt(), on SIGTERM and SIGHUP.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import List, Tuple

MANAGED_LABEL = "io.tfenv.managed"  # value: run, jupyter or test
ENV_LABEL = "io.tfenv.env"
URL_LABEL = "io.tfenv.jupyter-url"


def start(client, kw: dict):
    """containers.run(detach=True, **kw); a half-created container is removed before the error (or an
    interrupt that lands between create and start) propagates."""
    from docker.errors import APIError

    try:
        return client.containers.run(detach=True, **kw)
    except (APIError, KeyboardInterrupt):  # KeyboardInterrupt: also SIGTERM/SIGHUP between create and start
        if kw.get("name"):
            remove(client, kw["name"])
        raise


def stream(container, out, err) -> int:
    """Copy stdout and stderr live until the container exits; its exit code, or 130 after Ctrl-C (stopped)."""
    threads = [
        threading.Thread(target=_pump, args=(container, True, out), daemon=True),
        threading.Thread(target=_pump, args=(container, False, err), daemon=True),
    ]
    try:
        for t in threads:
            t.start()
        code = int(container.wait().get("StatusCode", 1))
        for t in threads:
            t.join(timeout=10)
        return code
    except KeyboardInterrupt:
        stop(container)
        return 130


def _pump(container, stdout: bool, sink) -> None:
    try:
        for chunk in container.logs(stdout=stdout, stderr=not stdout, stream=True, follow=True):
            sink.write(chunk)
            sink.flush()
    except Exception:  # noqa: BLE001 - the container went away; wait() reports the outcome
        pass


def stop(container, timeout: int = 5) -> None:
    """Ask the container to stop; already gone is fine (a forced remove follows)."""
    with contextlib.suppress(Exception):
        container.stop(timeout=timeout)


def remove(client, container_or_name) -> None:
    """Force-remove a container (object or name); gone already is fine, anything else is one warning line."""
    from docker.errors import DockerException, NotFound

    name = getattr(container_or_name, "name", container_or_name)
    try:
        target = container_or_name if not isinstance(container_or_name, str) else client.containers.get(name)
        target.remove(force=True)
    except NotFound:
        pass  # never created, or already gone
    except DockerException as exc:
        if "already in progress" in str(exc):
            return
        print(f"tfenv: warning: could not remove container {name} ({exc}): run `docker rm -f {name}`",
              file=sys.stderr)


def remove_ids(client, ids: List[str]) -> List[str]:
    """Force-remove containers by id (a build step's), retrying while the daemon tears them down."""
    from docker.errors import DockerException, NotFound

    removed = []
    for cid in ids:
        for _ in range(10):
            try:
                client.api.remove_container(cid, force=True)
                removed.append(cid)
                break
            except NotFound:
                break
            except DockerException:
                time.sleep(0.5)
    return removed


def remove_build_leftovers(container_ids: List[str], layer_ids: List[str]) -> Tuple[List[str], int]:
    """After Ctrl-C, with a fresh client (the build's was closed to cancel it): the step's container, then the
    stage's new layers, so no <none> image is left (cache hits stay). The ids removed, the layers removed."""
    from builder.core.errors import TfenvError
    from builder.docker import daemon

    try:
        c = daemon.client()
        removed, left = remove_ids(c, container_ids), list(layer_ids)
        for _ in range(10):  # the daemon may still be tearing the cancelled step down: a conflict meanwhile
            remove_layers(c, left)
            left = [layer for layer in left if daemon.has_image(c, layer)]
            if not left:
                break
            time.sleep(0.5)
        return removed, len(layer_ids) - len(left)
    except TfenvError:
        return [], 0


def remove_layers(c, layer_ids: list[str]) -> int:
    """Remove layers a build made that nothing uses any more (a stage's cache); the number removed.
    Layers under a tagged image or another layer are refused by the daemon (conflict) and stay."""
    from docker.errors import DockerException

    removed = 0
    for layer in reversed(layer_ids):
        with contextlib.suppress(DockerException):
            c.images.remove(layer, noprune=False)
            removed += 1
    return removed


def remove_untagged(c, image_id: str) -> bool:
    """Remove an image that carries no tag, with its untagged parents (an earlier build stage's result, which
    nothing refers to: the next build runs that stage again, and the steps that copy from it stay cached, by
    content). A tagged image, or one that a container or a child image uses, is left alone. Whether it went."""
    from docker.errors import DockerException

    try:
        if c.images.get(image_id).tags:
            return False
        c.images.remove(image_id, noprune=False)
        return True
    except DockerException:
        return False


def list_managed(client, kind: str) -> list:
    """Every container of one kind tfenv started, running or not (a detached Jupyter can exit on its own)."""
    return client.containers.list(all=True, filters={"label": f"{MANAGED_LABEL}={kind}"})


@contextlib.contextmanager
def signals_as_interrupt():
    """SIGTERM, SIGHUP (and Ctrl-Break on Windows) end the block like Ctrl-C, so `finally` removes containers
    and temporary folders; the CLI then exits 143/129 (builder.core.exitcodes). `tfenv` installs the same handlers
    for its whole run; this also covers callers that use builder as a library."""
    from builder.core import exitcodes

    previous = exitcodes.install_signal_handlers(clear=False)
    try:
        yield
    finally:
        exitcodes.restore_signal_handlers(previous)
