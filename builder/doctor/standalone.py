"""`tfenv doctor --write-standalone FILE`: one file a user copies to a bare machine and runs with any Python
3.6-3.13 (`python doctor.py --env tf29`, `python doctor.py --explain log.txt`).

The file is a zip application: Python runs a zip archive given as the script, from its __main__.py. It holds
the standard-library-only packages builder.diagnose (with its message catalogues, locale/*.json) and
builder.doctor, and the matrix facts as JSON."""

import io
import json
import os
import zipfile

PACKAGES = ("diagnose", "doctor")
SHEBANG = b"#!/usr/bin/env python3\n"
MAIN = "import sys\n\nfrom builder.doctor.main import main\n\nsys.exit(main())\n"
# The zip's builder/__init__.py: the real one may grow imports a bare machine does not have.
INIT = '"""tfenv\'s standalone doctor (standard library only)."""\n'


def build(facts=None):
    """The standalone doctor as bytes; facts=None leaves them out (then --facts or doctor-facts.json beside it)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    buffer = io.BytesIO()
    buffer.write(SHEBANG)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(_info("__main__.py"), MAIN)
        z.writestr(_info("builder/__init__.py"), INIT)
        for package in PACKAGES:
            base = os.path.join(root, package)
            for folder, dirs, files in sorted(os.walk(base)):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(files):
                    if name.endswith((".py", ".json")):  # the modules and the message catalogues
                        path = os.path.join(folder, name)
                        arc = "builder/" + os.path.relpath(path, root).replace(os.sep, "/")
                        with open(path, "rb") as f:
                            z.writestr(_info(arc), f.read())
        if facts is not None:
            z.writestr(_info("builder/doctor/doctor-facts.json"), json.dumps(facts, sort_keys=True))
    return buffer.getvalue()


def _info(name):
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # the same bytes for the same sources
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info
