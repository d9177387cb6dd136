"""TensorFlow belongs to the environment: which environment a project's TF requirement names, and the
TensorFlow family (TF itself under any of its names, and the packages the environment pins with it)
taken as provided instead of being installed a second time.

A TF requirement is on an environment's line when the environment's version satisfies it, or when it
names versions of the same major.minor (`tensorflow-gpu==2.9.1` is the 2.9 line; tf29 has 2.9.3): the
line is what a project is written against, the patch releases are bug and security fixes.
"""

from __future__ import annotations

from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from builder.matrix.model import Env, Matrix, Target
from builder.render.lock import normalize

# Every name TensorFlow's Linux builds were published under (tensorflow_gpu normalizes to tensorflow-gpu).
TENSORFLOW_NAMES = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "intel-tensorflow", "tf-nightly",
                    "tf-nightly-gpu", "tensorflow-intel")
# Packages TF's own release pins with it: provided by the environment where its lock has them.
WITH_TENSORFLOW = ("keras", "tensorboard", "tensorflow-estimator", "tensorflow-io-gcs-filesystem")
_BUILD = {"tensorflow": "", "tensorflow-gpu": ", the same line with its GPU build",
          "tensorflow-cpu": ", the same line (the environment's build runs on the CPU too)",
          "intel-tensorflow": ", the same line (the environment's build, not Intel's)",
          "tensorflow-intel": ", the same line (the environment's build, not Intel's)"}


class ChooseError(Exception):
    """No environment fits the project's TensorFlow or Python requirement; one line naming the nearest."""


def is_tensorflow(name: str) -> bool:
    return normalize(name) in TENSORFLOW_NAMES


def line(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _specifier(spec) -> SpecifierSet:
    return spec if isinstance(spec, SpecifierSet) else SpecifierSet(str(spec or ""))


def on_line(spec, version: str) -> bool:
    """Whether a requirement's specifier takes `version`'s line (its own version, or a pin of the line)."""
    spec = _specifier(spec)
    if spec.contains(version, prereleases=True):
        return True
    exact = [s for s in spec if s.operator in ("==", "===", "~=")]
    if not exact:
        return False
    try:
        same = all(line(s.version.rstrip(".*")) == line(version) for s in exact)
    except InvalidVersion:
        return False
    others = [s for s in spec if s.operator not in ("==", "===", "~=")]
    return same and all(s.contains(version, prereleases=True) for s in others)


def provided_note(name: str, spec, env: Env) -> str | None:
    """The one note for a TF requirement the environment provides (None for a plain `tensorflow`)."""
    written = f"{name}{spec}"
    build = _BUILD.get(normalize(name), "")
    floors = [s.version for s in _specifier(spec) if s.operator in (">=", ">") and _is_version(s.version)]
    if floors and Version(min(floors, key=Version)).major < 2:
        return (f"{written}: {env.name} provides {env.tensorflow}; the requirement also allows TF 1, whose code "
                f"needs changes to run on TF 2 (tf.compat.v1)")
    if _specifier(spec).contains(env.tensorflow, prereleases=True) and not build:
        return None if not str(spec) else f"{written}: {env.name} provides {env.tensorflow}"
    return f"{written}: {env.name} provides {env.tensorflow}{build or ', the same line'}"


def env_for_line(m: Matrix, spec) -> Env | None:
    """The newest environment whose TF line the specifier takes, or None."""
    fitting = [e for e in m.envs.values() if on_line(spec, e.tensorflow)]
    return max(fitting, key=lambda e: Version(e.tensorflow)) if fitting else None


def nearest(m: Matrix, spec) -> Env:
    """The environment whose TF is closest to what the specifier asks (for the 'none fits' line)."""
    spec = _specifier(spec)
    asked = [Version(s.version.rstrip(".*")) for s in spec if _is_version(s.version.rstrip(".*"))]
    if not asked:
        return max(m.envs.values(), key=lambda e: Version(e.tensorflow))
    target = asked[0]
    return min(m.envs.values(), key=lambda e: (abs(_number(Version(e.tensorflow)) - _number(target)),
                                               -_number(Version(e.tensorflow))))


def _is_version(text: str) -> bool:
    try:
        Version(text)
        return True
    except InvalidVersion:
        return False


def _number(v: Version) -> float:
    release = (list(v.release) + [0, 0, 0])[:3]
    return release[0] * 10000 + release[1] * 100 + min(release[2], 99)


# --- choosing the environment ----------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    target: Target
    why: str  # one line: which requirement chose it


def python_version(target: Target) -> str:
    """The image's full Python version (3.9.2), from its OS package; the variant's X.Y when unknown."""
    package = target.os.packages.get(f"python{target.python}", "")
    full = package.split("-", 1)[0].split("+", 1)[0]
    return full if _is_version(full) and full.startswith(target.python) else f"{target.python}.0"


def choose(m: Matrix, tf_specs: list[tuple[str, str]], python: str | None, python_soft: bool,
           python_origin: str | None) -> Choice:
    """The newest environment (and OS variant) whose TF line every TF requirement takes and whose Python
    the project's Python requirement allows; a soft Python (an environment.yml pin) is only a preference."""
    envs = sorted(m.envs.values(), key=lambda e: Version(e.tensorflow), reverse=True)
    fitting = [e for e in envs if all(on_line(spec, e.tensorflow) for _, spec in tf_specs)]
    named = ", ".join(f"{n}{s}" for n, s in tf_specs)
    if not fitting:
        near = nearest(m, tf_specs[0][1])
        raise ChooseError(f"{named}: no tfenv environment has that TensorFlow line; the nearest is {near.name} "
                          f"(TF {near.tensorflow}): `tfenv init {near.name}` to try it")
    wanted = _python_spec(python)
    for env in fitting:
        targets = [m.target(env.name, o) for o in env.os]
        good = [t for t in targets if wanted is None or wanted.contains(python_version(t), prereleases=True)]
        if good:
            return Choice(good[0], _why(tf_specs, good[0], python, python_origin))
    target = m.target(fitting[0].name)
    if python_soft:
        return Choice(target, _why(tf_specs, target, None, None) +
                      f"; {python_origin} asks Python {python}, its images have {target.python} (the nearest)")
    pythons = sorted({t.python for e in fitting for t in (m.target(e.name, o) for o in e.os)})
    raise ChooseError(f"{python_origin} wants Python {python}; {', '.join(e.name for e in fitting)} "
                      f"{'has' if len(fitting) == 1 else 'have'} Python {' or '.join(pythons)}: "
                      f"`tfenv init {target.env.name}` to try {target.python}")


def _python_spec(python: str | None) -> SpecifierSet | None:
    if not python:
        return None
    text = python.strip()
    if text[0].isdigit():  # "3.7" as a bare version
        text = f"=={text}.*" if text.count(".") < 2 else f"=={text}"
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise ChooseError(f"Python requirement {python!r} is not a version specifier") from None


def _why(tf_specs: list[tuple[str, str]], target: Target, python: str | None, origin: str | None) -> str:
    env = target.env
    named = ", ".join(f"{n}{s}" for n, s in tf_specs)
    if not named:
        reason = "no TensorFlow requirement: the newest"
    elif all(s.operator in ("==", "===", "~=") for _, spec in tf_specs for s in SpecifierSet(spec)):
        reason = f"{named} is the TF {env.tf_short} line"
    else:
        reason = f"{named} allows TF {env.tf_short}, the newest line it takes"
    text = f"{env.name} ({target.os.name}, Python {target.python}): {reason}, {env.name} has TF {env.tensorflow}"
    if python and origin:
        text += f"; {origin} {python} allows its Python {python_version(target)}"
    return text
