"""tfenv.yaml: a project's choice of environment, strictly loaded; `tfenv init` writes a commented one.

Every problem is one line naming the file and the key, like matrix.yaml's errors.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from builder.core import files
from builder.core.errors import TfenvError
from builder.matrix.model import Matrix, Target, UnknownEnvError

FILENAME = "tfenv.yaml"
LOCK_FILENAME = "tfenv.lock"
KEYS = ("environment", "os", "requirements", "apt", "jupyter", "resolve_as_of")
# A Debian/Ubuntu package name, optionally =VERSION (policy manual 5.6.1 and 5.6.12).
_APT = re.compile(r"^[a-z0-9][a-z0-9+.-]+(=[A-Za-z0-9.+~:-]+)?$")


class ProjectError(TfenvError):
    """tfenv.yaml is missing, invalid or names something tfenv does not know; one line."""


@dataclass(frozen=True)
class Project:
    root: Path  # the folder holding tfenv.yaml
    environment: str
    os: str
    requirements: str | None  # relative to root
    apt: tuple[str, ...]
    jupyter: bool
    resolve_as_of: str | None = None  # YYYY-MM-DD: the horizon of unpinned packages (default: the env's lock date)

    @property
    def config_path(self) -> Path:
        return self.root / FILENAME

    @property
    def lock_path(self) -> Path:
        return self.root / LOCK_FILENAME

    @property
    def requirements_path(self) -> Path | None:
        return self.root / self.requirements if self.requirements else None

    def target(self, m: Matrix) -> Target:
        return m.target(self.environment, self.os)


def find(folder: Path | str | None = None) -> Path | None:
    """The tfenv.yaml in this folder (only this one: a project is where you run tfenv), or None."""
    path = Path(folder or Path.cwd()) / FILENAME
    return path if path.is_file() else None


def load(path: Path, m: Matrix) -> Project:
    """Read and check tfenv.yaml against the matrix."""
    where = path.name
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProjectError(f"{where}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise ProjectError(f"{where}:{line}: {problem}") from None
    if not isinstance(raw, dict):
        raise ProjectError(f"{where}: expected a mapping with the keys {', '.join(KEYS)}")
    for key in raw:
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ProjectError(f"{where}: unknown key {key!r}{hint} (known: {', '.join(KEYS)})")
    if "environment" not in raw:
        raise ProjectError(f"{where}: environment: missing (e.g. `environment: tf29`; `tfenv matrix` lists them)")
    env_name = _string(raw["environment"], where, "environment")
    try:
        env = m.env(env_name)
    except UnknownEnvError as exc:
        raise ProjectError(f"{where}: environment: {exc}") from None
    os_name = _string(raw["os"], where, "os") if raw.get("os") is not None else env.os[0]
    if os_name not in env.os:
        close = difflib.get_close_matches(os_name, env.os, n=1, cutoff=0.5)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ProjectError(f"{where}: os: {env_name} has no OS variant {os_name!r}{hint} (it has: {', '.join(env.os)})")
    requirements = None
    if raw.get("requirements") is not None:
        requirements = _string(raw["requirements"], where, "requirements")
        if Path(requirements).is_absolute() or ".." in Path(requirements).parts:
            raise ProjectError(f"{where}: requirements: {requirements!r} must be a path inside the project folder")
    apt = raw.get("apt") or []
    if not isinstance(apt, list) or not all(isinstance(a, str) for a in apt):
        raise ProjectError(f"{where}: apt: expected a list of package names, got {_type(apt)}")
    for package in apt:
        if not _APT.match(package):
            raise ProjectError(f"{where}: apt: {package!r} is not a package name (NAME or NAME=VERSION)")
    jupyter = raw.get("jupyter", False)
    if not isinstance(jupyter, bool):
        raise ProjectError(f"{where}: jupyter: expected true or false, got {_type(jupyter)}")
    as_of = raw.get("resolve_as_of")
    if as_of is not None:
        as_of = _date(as_of, where)
    return Project(path.parent.resolve(), env_name, os_name, requirements, tuple(apt), jupyter, as_of)


def _date(value: Any, where: str) -> str:
    """resolve_as_of: a date (YAML reads 2023-06-30 as one), or the string 'today'."""
    import datetime

    if isinstance(value, datetime.date):
        return value.isoformat()
    if value == "today":
        return datetime.date.today().isoformat()
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise ProjectError(f"{where}: resolve_as_of: expected a date YYYY-MM-DD or 'today', got {value!r}")


def require(m: Matrix, folder: Path | None = None) -> Project:
    path = find(folder)
    if path is None:
        raise ProjectError(f"no {FILENAME} in {Path(folder or Path.cwd())}: create one with `tfenv init`")
    return load(path, m)


def _string(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ProjectError(f"{where}: {key}: expected a non-empty string, got {_type(value)}")
    return value.strip()


def _type(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    return {dict: "a mapping", list: "a list", int: "a number", float: "a number", str: "a string"}.get(
        type(value), type(value).__name__)


# --- tfenv init -----------------------------------------------------------------------------------

TEMPLATE = """\
# tfenv project: `tfenv build`, `tfenv test` and `tfenv run` in this folder use the image described here.
# It is a thin layer on top of the verified {env} image; nothing in it can move the environment's pins.

# The environment (`tfenv matrix` lists them) and its OS variant.
environment: {env}
os: {os}

# Your requirements: a pip requirements file (with its -r/-c includes), setup.py, setup.cfg, pyproject.toml
# or environment.yml. They are resolved on the environment into tfenv.lock, which you commit; `tfenv lock`
# refreshes it. TensorFlow and the packages pinned with it come from the environment.
{requirements}

# Packages you did not pin exactly are taken as they were on this date (the environment's lock date,
# when TF {tf_line} was current); a later date, or `today`, moves it.
# resolve_as_of: {lock_date}

# Extra Debian/Ubuntu packages for the image (NAME or NAME=VERSION), e.g. [graphviz].
apt: []

# true: build on the environment's Jupyter stage, so `tfenv run --jupyter` and nbconvert work.
jupyter: {jupyter}
"""


def render_init(m: Matrix, env_name: str, os_name: str | None, jupyter: bool, folder: Path,
                requirements: Path | None = None) -> str:
    """The text of a new tfenv.yaml; checked by load() like any other."""
    target = m.target(env_name, os_name)
    if requirements is not None:
        req = f"requirements: {requirements.relative_to(folder).as_posix()}"
    else:
        req = "# requirements: requirements.txt"
    return TEMPLATE.format(env=target.env.name, os=target.os.name, requirements=req,
                           jupyter="true" if jupyter else "false", tf_line=target.env.tf_short,
                           lock_date=target.env.lock_date)


def write_init(m: Matrix, env_name: str | None, os_name: str | None, jupyter: bool, folder: Path,
               force: bool = False, requirements_file: str | None = None) -> tuple[Path, str | None]:
    """(tfenv.yaml written, why this environment when tfenv chose it): without env_name, the requirements
    choose (family.choose)."""
    from builder.project import sources

    path = folder / FILENAME
    if path.exists() and not force:
        raise ProjectError(f"{path} exists: edit it, or pass --force to replace it")
    requirements = sources.find_default(folder) if requirements_file is None else folder / requirements_file
    if requirements is not None and (not requirements.is_file() or ".." in Path(requirements_file or "").parts
                                     or Path(requirements_file or "").is_absolute()):
        raise ProjectError(f"--requirements {requirements_file}: no such file inside {folder}")
    why = None
    if env_name is None:
        choice = choose(m, folder, requirements, os_name)
        env_name, os_name, why = choice.target.env.name, choice.target.os.name, choice.why
    text = render_init(m, env_name, os_name, jupyter, folder, requirements)
    files.write_text(path, text, what="project file")
    load(path, m)  # what init writes must load
    return path, why


def choose(m: Matrix, folder: Path, requirements: Path | None, os_name: str | None):
    """The environment the project's TF and Python requirements name (ProjectError naming the nearest)."""
    from builder.project import family, reader, sources

    read = reader.read(requirements, folder) if requirements else sources.Sources()
    tf = [(r.req.name, str(r.req.specifier)) for r in read.requirements
          if r.req is not None and family.is_tensorflow(r.req.name)]
    try:
        choice = family.choose(m, tf, read.python, read.python_soft, read.python_origin)
    except family.ChooseError as exc:
        raise ProjectError(str(exc)) from None
    if os_name is not None and os_name != choice.target.os.name:
        target = m.target(choice.target.env.name, os_name)
        choice = family.Choice(target, choice.why.replace(f"({choice.target.os.name}, Python {choice.target.python})",
                                                          f"({os_name}, Python {target.python})"))
    return choice
