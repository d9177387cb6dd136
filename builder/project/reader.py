"""A project's requirements file, read by the reader its name calls for: pip's formats, setup.py, setup.cfg and
pyproject.toml (sources), environment.yml (conda). The one dispatcher, above both readers."""

from __future__ import annotations

from pathlib import Path

from builder.project import conda, sources


def read(path: Path, root: Path) -> sources.Sources:
    """The requirements in `path` (any of sources.KNOWN_FILES' formats, by its name)."""
    found = sources.Sources()
    name = path.name.lower()
    if not path.is_file():
        raise sources.SourceError(f"{sources.relative(path, root)}: no such file")
    if name == "setup.py":
        sources.read_setup_py(path, root, found)
    elif name == "setup.cfg":
        sources.read_setup_cfg(path, root, found)
    elif name == "pyproject.toml":
        sources.read_pyproject(path, root, found)
    elif name.endswith((".yml", ".yaml")):
        conda.read(path, root, found)
    else:
        sources.read_requirements(path, root, found, constraint=False, depth=0)
    return found
