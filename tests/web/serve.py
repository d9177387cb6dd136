"""The tiny static server of the page tests and the benchmark: `python serve.py DIR` serves DIR on 127.0.0.1
(a free port, printed on the first line) with the types the page needs (module scripts, wasm)."""

import functools
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".json": "application/json", ".py": "text/plain; charset=utf-8", ".zip": "application/zip"}


class Quiet(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def main(folder):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=folder))
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1])
