# Runs inside the image (Python 3.6+, standard library only): import each named distribution's module, the one
# by its own name when it has one (black, not blackd, which needs black's [d] extra), else every top-level module.
# The modules come from the installed metadata (top_level.txt, else RECORD), not a table: scikit-learn installs
# sklearn, opencv-python installs cv2.
# argv[1]: JSON list of distribution names. Prints TFENV_PROBE {"dist": {"modules": [...], "errors": {...}}}
import importlib
import json
import os
import sys

try:
    from importlib import metadata
except ImportError:  # Python < 3.8
    import importlib_metadata as metadata

os.environ.setdefault("MPLBACKEND", "Agg")  # no display in a test container


def own_modules(name, modules):
    """The distribution's own module when it has one by its name (black, not its optional blackd), else all."""
    key = name.lower().replace("-", "_").replace(".", "_")
    own = [m for m in modules if m.lower() == key]
    return own or modules


def modules_of(dist):
    top = dist.read_text("top_level.txt")
    if top:  # some list paths (sentencepiece/__init__): the package is the first part
        return sorted({line.strip().replace("\\", "/").split("/")[0] for line in top.splitlines() if line.strip()})
    found = set()
    for path in dist.files or []:
        parts = path.parts
        if not parts or parts[0] == ".." or parts[0].endswith((".dist-info", ".data")) or parts[0] == "__pycache__":
            continue
        if len(parts) > 1 and parts[1] == "__init__.py":
            found.add(parts[0])
        elif len(parts) == 1 and parts[0].endswith(".py"):
            found.add(parts[0][:-3])
    return sorted(found)


report = {}
for name in json.loads(sys.argv[1]):
    entry = {"modules": [], "errors": {}}
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        entry["errors"][name] = "not installed"
        report[name] = entry
        continue
    entry["modules"] = own_modules(name, [m for m in modules_of(dist) if not m.startswith("_")])
    for module in entry["modules"]:
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - report every failure, not the first
            entry["errors"][module] = f"{type(exc).__name__}: {exc}"
    report[name] = entry
print("TFENV_PROBE " + json.dumps(report))
