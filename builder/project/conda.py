"""An environment.yml (conda): its pip entries are the requirements, its python entry the Python the author
used (a preference); its conda packages are named in one note, except TensorFlow, which picks the environment.
"""

from __future__ import annotations

import re
from pathlib import Path

from builder.project.sources import (
    FLAG_OPTIONS,
    INDEX_OPTIONS,
    Requirement,
    SourceError,
    Sources,
    parse,
    read_requirements,
    read_text,
    relative,
    requirement,
    split_option,
)

_CONDA_SPEC = re.compile(r"^(?:[\w.-]+::)?(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?P<spec>[=<>!~][^\s]*)?")


def conda_specifier(spec: str | None) -> str:
    """A conda version spec as PEP 440: `=3.7` means 3.7.*, `==3.7.4` that version, a build string dropped."""
    if not spec:
        return ""
    if re.match(r"^=[^=]", spec):
        return f"=={spec[1:].split('=')[0].rstrip('*').rstrip('.')}.*"
    if spec.startswith("=="):
        return "==" + spec[2:].split("=")[0]
    return spec


def read(path: Path, root: Path, sources: Sources) -> None:
    """Its pip entries as requirements, its python entry as the Python wanted; conda packages noted."""
    import yaml

    where = relative(path, root)
    sources.files.append(path)
    try:
        data = yaml.safe_load(read_text(path, root)) or {}
    except yaml.YAMLError as exc:
        raise SourceError(f"{where}: not valid YAML: {str(exc).splitlines()[0]}") from None
    deps = data.get("dependencies") if isinstance(data, dict) else None
    if not isinstance(deps, list):
        raise SourceError(f"{where}: no dependencies list")
    conda_only = []
    for entry in deps:
        if isinstance(entry, dict) and isinstance(entry.get("pip"), list):
            for line in entry["pip"]:
                read_pip_entry(str(line).strip(), where, path, root, sources)
        elif isinstance(entry, str):
            match = _CONDA_SPEC.match(entry.strip())
            if not match:
                continue
            name, spec = match.group("name"), conda_specifier(match.group("spec"))
            if name == "python":
                sources.python, sources.python_origin = spec or None, f"{where}: python"
                sources.python_soft = True
            elif name != "pip":
                conda_only.append(Requirement(name + spec, f"{where}: conda", "conda", parse(name + spec, where)))
    sources.requirements.extend(c for c in conda_only if _is_tensorflow(c.name))
    others = [c.text for c in conda_only if not _is_tensorflow(c.name)]
    if others:
        sources.notes.append(f"{where}: conda packages are not pip requirements and are not installed: "
                             f"{', '.join(others)}")


def read_pip_entry(line: str, where: str, path: Path, root: Path, sources: Sources) -> None:
    option, value = split_option(line)
    if option in ("-r", "--requirement"):
        read_requirements(path.parent / value, root, sources, constraint=False, depth=1)
    elif option in ("-e", "--editable"):
        sources.requirements.append(requirement(value, f"{where}: pip", path.parent, editable=True))
    elif option in INDEX_OPTIONS or option in FLAG_OPTIONS:
        sources.options.append(line)
    elif line:
        sources.requirements.append(requirement(line, f"{where}: pip", path.parent))


def _is_tensorflow(name: str | None) -> bool:
    from builder.project.family import is_tensorflow

    return bool(name) and is_tensorflow(name)
