"""FAKE Docker daemon that hangs: a Unix socket that accepts connections and never answers.

A hung daemon (Docker Desktop half started, a broken WSL integration) cannot be made on purpose with the real
one. `answer` lists the paths it does answer, as a live daemon would (the API version and the ping), so
that the calls after the first contact are the ones left waiting.
"""

from __future__ import annotations

import json
import socket
import threading

VERSION = {"ApiVersion": "1.41", "Version": "20.10.0", "MinAPIVersion": "1.12", "Os": "linux"}
FIRST_CONTACT = ("/version", "/_ping")


class HungDaemon:
    def __init__(self, path: str, answer: tuple[str, ...] = ()):
        self.path = path
        self.answer = answer
        self.requests: list[str] = []  # "GET /v1.41/containers/json" for each request line seen
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._server = socket.socket(socket.AF_UNIX)
        self._server.bind(path)
        self._server.listen(16)
        self._server.settimeout(0.2)
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> HungDaemon:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        for conn in self._held:
            conn.close()
        self._server.close()

    @property
    def docker_host(self) -> str:
        return f"unix://{self.path}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except OSError:
                continue
            self._held.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        """Answer the paths in `answer` (keep-alive), then hold the connection at the first other request."""
        buf = b""
        try:
            while not self._stop.is_set():
                while b"\r\n\r\n" not in buf:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    buf += chunk
                head, buf = buf.split(b"\r\n\r\n", 1)
                method, target = head.split(b"\r\n", 1)[0].decode().split(" ")[:2]
                self.requests.append(f"{method} {target}")
                path = target.split("?", 1)[0]
                if not any(path.endswith(p) for p in self.answer):
                    return  # never answered: the connection stays open until the test ends
                body = json.dumps(VERSION).encode() if path.endswith("/version") else b"OK"
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nApi-Version: 1.41\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        except OSError:
            return
