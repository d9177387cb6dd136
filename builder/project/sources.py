"""A project's requirements as its author published them, in whichever format: read, never executed.

requirements.txt (with its -r/-c includes), setup.py (parsed with `ast`), setup.cfg, pyproject.toml's
[project] table and environment.yml (its pip list and its python entry). Every requirement keeps where
it came from (`requirements.txt:3`) for the messages, and every file read is part of the lock's inputs.
"""

from __future__ import annotations

import ast
import configparser
import re
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement as Pep508

from builder.core.errors import TfenvError

# The files `tfenv init` looks for, in the order it prefers them.
KNOWN_FILES = ("requirements.txt", "environment.yml", "environment.yaml", "pyproject.toml", "setup.cfg", "setup.py")
MAX_INCLUDE_DEPTH = 10
_VCS = re.compile(r"^(?:(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*@\s*)?(?P<url>(?:git|hg|svn|bzr)\+\S+)")
_EGG = re.compile(r"[#&]egg=(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)")
# pip options that take a value and change where packages come from or how they are built
INDEX_OPTIONS = ("-i", "--index-url", "--extra-index-url", "-f", "--find-links", "--trusted-host",
                  "--no-binary", "--only-binary")
FLAG_OPTIONS = ("--pre", "--prefer-binary", "--no-index")


class SourceError(TfenvError):
    """A requirements file cannot be read or parsed; one line naming the file (and line)."""


@dataclass(frozen=True)
class Requirement:
    text: str  # the requirement as written (options, comments and line continuations removed)
    origin: str  # file:line, for messages
    kind: str  # "pep508", "vcs" (git+…), "local" (a path or file: URL), "url" (an archive URL)
    req: Pep508 | None = None  # parsed, for pep508 (and vcs/url when they are named)
    editable: bool = False

    @property
    def name(self) -> str | None:
        return self.req.name if self.req else None


@dataclass
class Sources:
    requirements: list[Requirement] = field(default_factory=list)
    constraints: list[Requirement] = field(default_factory=list)  # from -c files
    options: list[str] = field(default_factory=list)  # index options as written (passed on to the resolver)
    python: str | None = None  # a PEP 440 specifier set for Python, e.g. ">=3.6" or "==3.7.*"
    python_origin: str | None = None
    python_soft: bool = False  # an environment.yml pin: the Python the author used, a preference
    files: list[Path] = field(default_factory=list)  # every file read, in order (the lock's inputs)
    notes: list[str] = field(default_factory=list)  # what was read but is not a pip requirement


def find_default(folder: Path, packages_only: bool = False) -> Path | None:
    """The requirements file `tfenv init` takes in this folder (packages_only: a package's own), or None."""
    for name in KNOWN_FILES[3:] if packages_only else KNOWN_FILES:
        path = folder / name
        if path.is_file() and (name != "pyproject.toml" or _has_project_dependencies(path)) \
                and (name != "setup.cfg" or _has_cfg_requirements(path)):
            return path
    return None


def relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def read_text(path: Path, root: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        try:  # pip freeze > requirements.txt in Windows PowerShell 5.1 writes UTF-16
            return path.read_text(encoding="utf-16")
        except UnicodeError:
            raise SourceError(f"{relative(path, root)}: not a text file (UTF-8 or UTF-16)") from None
    except OSError as exc:
        raise SourceError(f"{relative(path, root)}: cannot read: {exc.strerror}") from None


# --- requirements.txt ------------------------------------------------------------------------------


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) with pip's rules: `\\` continues a line, ` #` starts a comment."""
    out, buffer, start = [], "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not buffer:
            start = number
        if raw.endswith("\\"):
            buffer += raw[:-1]
            continue
        line = re.sub(r"(^|\s)#.*$", "", buffer + raw).strip()
        buffer = ""
        if line:
            out.append((start, line))
    if buffer.strip():
        out.append((start, buffer.strip()))
    return out


def read_requirements(path: Path, root: Path, sources: Sources, constraint: bool, depth: int) -> None:
    where = relative(path, root)
    if depth > MAX_INCLUDE_DEPTH:
        raise SourceError(f"{where}: -r/-c includes nested deeper than {MAX_INCLUDE_DEPTH} (a loop?)")
    if path.resolve() in (p.resolve() for p in sources.files):
        return  # included twice: pip reads it once too
    sources.files.append(path)
    for number, line in logical_lines(read_text(path, root)):
        origin = f"{where}:{number}"
        option, value = split_option(line)
        if option in ("-r", "--requirement", "-c", "--constraint"):
            if not value:
                raise SourceError(f"{origin}: {option} needs a file name")
            include = (path.parent / value)
            if not include.is_file():
                raise SourceError(f"{origin}: {option} {value}: no such file")
            read_requirements(include, root, sources, constraint or option in ("-c", "--constraint"), depth + 1)
        elif option in ("-e", "--editable"):
            _add(sources, requirement(value, origin, path.parent, editable=True), constraint)
        elif option in INDEX_OPTIONS or option in FLAG_OPTIONS:
            sources.options.append(line)
        elif option is not None:
            raise SourceError(f"{origin}: pip option {option} is not supported in a tfenv project")
        else:
            # per-requirement options (--hash, --install-option) do not travel: tfenv.lock has its own hashes
            _add(sources, requirement(re.split(r"\s--?[a-z]", line)[0].strip(), origin, path.parent), constraint)


def split_option(line: str) -> tuple[str | None, str]:
    if not line.startswith("-"):
        return None, ""
    match = re.match(r"^(--?[A-Za-z-]+)(?:\s*=\s*|\s+)?(.*)$", line)
    if not match:
        return line, ""
    option, value = match.group(1), match.group(2).strip()
    if option.startswith("-") and not option.startswith("--") and len(option) > 2:  # -rfile.txt
        option, value = option[:2], option[2:] + value
    return option, value


def _add(sources: Sources, req: Requirement, constraint: bool) -> None:
    (sources.constraints if constraint else sources.requirements).append(req)


def requirement(text: str, origin: str, base: Path, editable: bool = False) -> Requirement:
    """One requirement, classified; a PEP 508 one must parse (one line naming file:line when not)."""
    req = _classify(text, origin, editable)
    return Requirement(f"-e {text}", req.origin, req.kind, req.req, True) if editable else req


def _classify(text: str, origin: str, editable: bool) -> Requirement:
    vcs = _VCS.match(text)
    if vcs:
        name = vcs.group("name") or (_EGG.search(text).group("name") if _EGG.search(text) else None)
        req = parse(f"{name} @ {vcs.group('url')}", origin) if name else None
        return Requirement(text, origin, "vcs", req, editable)
    if text.startswith((".", "/", "~")) or text.startswith("file:") or re.match(r"^[A-Za-z]:[\\/]", text) \
            or (editable and "://" not in text):
        return Requirement(text, origin, "local", None, editable)
    if re.match(r"^[a-z]+://", text):
        match = _EGG.search(text)
        return Requirement(text, origin, "url", parse(f"{match.group('name')} @ {text}", origin) if match else None)
    req = parse(text, origin)
    if req.url:
        kind = "local" if req.url.startswith("file:") else "vcs" if _VCS.match(req.url) else "url"
        return Requirement(text, origin, kind, req, editable)
    return Requirement(text, origin, "pep508", req, editable)


def parse(text: str, origin: str) -> Pep508:
    try:
        return Pep508(text)
    except InvalidRequirement as exc:
        raise SourceError(f"{origin}: {text!r} is not a requirement: {str(exc).splitlines()[0]}") from None


# --- setup.py, setup.cfg, pyproject.toml -------------------------------------------------------------


def read_setup_py(path: Path, root: Path, sources: Sources) -> None:
    """install_requires and python_requires of the setup() call, from the syntax tree: setup.py never runs."""
    where = relative(path, root)
    sources.files.append(path)
    try:
        tree = ast.parse(read_text(path, root), filename=where)
    except SyntaxError as exc:
        raise SourceError(f"{where}:{exc.lineno}: not Python that parses ({exc.msg})") from None
    assigned = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", getattr(n.func, "attr", None)) == "setup"), None)
    if call is None:
        raise SourceError(f"{where}: no setup() call")
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    if "python_requires" in keywords:
        sources.python = _literal(keywords["python_requires"], assigned, where, "python_requires")
        sources.python_origin = f"{where}: python_requires"
    node = keywords.get("install_requires")
    if node is None:
        return
    lines = _literal(node, assigned, where, "install_requires", path.parent, root, sources, tree)
    for _number, line in enumerate(lines if isinstance(lines, list) else [lines]):
        if isinstance(line, str) and line.strip() and not line.strip().startswith("#"):
            origin = f"{where}:{getattr(node, 'lineno', 0)}"
            sources.requirements.append(requirement(line.strip(), origin, path.parent))


def _mutated(tree, name: str) -> bool:
    """Whether the module changes the list bound to `name` (append, extend, +=, a second assignment)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in (
                "append", "extend", "insert", "remove") and getattr(n.func.value, "id", None) == name:
            return True
        if isinstance(n, ast.AugAssign) and getattr(n.target, "id", None) == name:
            return True
    return sum(1 for n in ast.walk(tree) if isinstance(n, ast.Assign)
               for t in n.targets if getattr(t, "id", None) == name) > 1


def _txt_names(node) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value.endswith(".txt")]


def _literal(node, assigned: dict, where: str, key: str, folder: Path | None = None, root: Path | None = None,
             sources: Sources | None = None, tree=None):
    """The value of a setup() argument: a literal, a name bound to one, or a requirements file that is read."""
    if isinstance(node, ast.Name) and tree is not None and _mutated(tree, node.id):
        raise SourceError(f"{where}:{node.lineno}: {key} is computed when setup.py runs ({node.id} is changed after "
                          f"it is set), which tfenv never does: list the requirements in a requirements.txt and "
                          f"name it in tfenv.yaml")
    if isinstance(node, ast.Name) and node.id in assigned:
        node = assigned[node.id]
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    # e.g. open('requirements.txt').read().splitlines(): read that file as pip would
    names = _txt_names(node) or (_txt_names(tree) if tree is not None else [])
    names = sorted(names, key=lambda n: Path(n).name != "requirements.txt")
    if sources is not None and names and (folder / names[0]).is_file():
        included = Sources(files=sources.files)
        read_requirements(folder / names[0], root, included, constraint=False, depth=1)
        sources.requirements.extend(included.requirements)
        sources.options.extend(included.options)
        return []
    raise SourceError(f"{where}:{node.lineno}: {key} is computed when setup.py runs, which tfenv never does: "
                      f"list the requirements in a requirements.txt and name it in tfenv.yaml")


def _has_cfg_requirements(path: Path) -> bool:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(read_text(path, path.parent))
    except (configparser.Error, SourceError):
        return True  # init reports the broken file rather than skipping it
    return parser.has_option("options", "install_requires")


def read_setup_cfg(path: Path, root: Path, sources: Sources) -> None:
    where = relative(path, root)
    sources.files.append(path)
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(read_text(path, root), source=where)
    except configparser.Error as exc:
        raise SourceError(f"{where}: not an INI file: {str(exc).splitlines()[0]}") from None
    if parser.has_option("options", "python_requires"):
        sources.python = parser.get("options", "python_requires").strip()
        sources.python_origin = f"{where}: python_requires"
    for line in parser.get("options", "install_requires", fallback="").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            sources.requirements.append(requirement(line, f"{where}: install_requires", path.parent))


def _toml(path: Path, root: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(read_text(path, root))
    except tomllib.TOMLDecodeError as exc:
        raise SourceError(f"{relative(path, root)}: not valid TOML: {exc}") from None


def _has_project_dependencies(path: Path) -> bool:
    try:
        data = _toml(path, path.parent)
        return "dependencies" in data.get("project", {}) or "dependencies" in data.get("tool", {}).get("poetry", {})
    except SourceError:
        return True  # init reports the broken file rather than skipping it


def read_pyproject(path: Path, root: Path, sources: Sources) -> None:
    where = relative(path, root)
    sources.files.append(path)
    data = _toml(path, root)
    project = data.get("project")
    poetry_deps = data.get("tool", {}).get("poetry", {}).get("dependencies")
    if (not isinstance(project, dict) or "dependencies" not in project) and isinstance(poetry_deps, dict):
        from builder.project import poetry

        lines, python, skipped = poetry.requirements(poetry_deps)
        if python:
            sources.python, sources.python_origin = python, f"{where}: tool.poetry python"
        for line in lines:
            sources.requirements.append(requirement(line, f"{where}: tool.poetry", path.parent))
        if skipped:
            sources.notes.append(f"{where}: not the project's own requirements, not installed: {', '.join(skipped)}")
        return
    if not isinstance(project, dict) or "dependencies" not in project:
        raise SourceError(f"{where}: no [project] dependencies or [tool.poetry.dependencies]: "
                          f"list the requirements in a requirements.txt and name it in tfenv.yaml")
    if isinstance(project.get("requires-python"), str):
        sources.python = project["requires-python"]
        sources.python_origin = f"{where}: requires-python"
    for line in project["dependencies"]:
        sources.requirements.append(requirement(str(line).strip(), f"{where}: dependencies", path.parent))
