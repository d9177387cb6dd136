"""[tool.poetry.dependencies] of a pyproject.toml as PEP 508 requirements (Poetry's own version syntax).

Poetry's caret and tilde constraints (python-poetry.org/docs/dependency-specification): `^1.2.3` is
>=1.2.3,<2.0.0, `^0.19.0` is >=0.19.0,<0.20.0, `~1.2.3` is >=1.2.3,<1.3.0, `1.2.3` alone is ==1.2.3, `*`
is any. A table may carry `version`, `extras`, `python` and `markers`; optional dependencies (extras of the
package itself) and path/git/url tables are not the project's own requirements and are noted instead.
"""

from __future__ import annotations

import re

_BARE = re.compile(r"^\d+(\.\d+)*(\.\*)?$")


def _parts(version: str) -> list[int]:
    return [int(p) for p in re.findall(r"\d+", version)[:3]]


def _caret(version: str) -> str:
    parts = _parts(version)
    padded = parts + [0] * (3 - len(parts))
    for i, part in enumerate(padded):  # the first non-zero part is the one that may not change
        if part != 0 or i == len(parts) - 1:
            upper = padded[:i] + [part + 1]
            break
    else:
        upper = [padded[0] + 1]
    return f">={version},<{'.'.join(map(str, upper + [0] * (3 - len(upper))))}"


def _tilde(version: str) -> str:
    parts = _parts(version)
    upper = [parts[0] + 1] if len(parts) == 1 else [parts[0], parts[1] + 1]
    return f">={version},<{'.'.join(map(str, upper))}.0" if len(upper) > 1 else f">={version},<{upper[0]}.0.0"


def specifier(text: str) -> str:
    """One Poetry constraint (possibly `a,b` or `a || b`; only the first alternative of `||` is kept)."""
    text = text.split("||")[0].strip()
    out = []
    for part in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", text):
        part = part.strip()
        if not part or part == "*":
            continue
        if part.startswith("^"):
            out.append(_caret(part[1:].strip()))
        elif part.startswith("~") and not part.startswith("~="):
            out.append(_tilde(part[1:].strip()))
        elif _BARE.match(part):
            out.append(f"=={part}")
        else:
            out.append(part)
    return ",".join(out)


def requirements(deps: dict) -> tuple[list[str], str | None, list[str]]:
    """(PEP 508 lines, the python constraint, names skipped with why) from [tool.poetry.dependencies]."""
    lines, python, skipped = [], None, []
    for name, value in deps.items():
        if name.lower() == "python":
            python = specifier(str(value))
            continue
        if isinstance(value, list):  # several constraints by marker: take the first
            value = value[0] if value else "*"
        if isinstance(value, dict):
            if value.get("optional"):
                skipped.append(f"{name} (optional)")
                continue
            if not any(k in value for k in ("version",)) and any(k in value for k in ("path", "git", "url")):
                skipped.append(f"{name} (a {next(k for k in ('path', 'git', 'url') if k in value)} dependency)")
                continue
            extras = f"[{','.join(value['extras'])}]" if value.get("extras") else ""
            markers = []
            if value.get("python"):
                markers.append(_python_marker(specifier(str(value["python"]))))
            if value.get("markers"):
                markers.append(f"({value['markers']})")
            line = f"{name}{extras}{specifier(str(value.get('version', '*')))}"
            lines.append(line + (f"; {' and '.join(markers)}" if markers else ""))
        else:
            lines.append(f"{name}{specifier(str(value))}")
    return lines, python, skipped


def _python_marker(spec: str) -> str:
    return "(" + " and ".join(f'python_version {re.match(r"[<>=!~]+", s).group(0)} "{s.lstrip("<>=!~")}"'
                              for s in spec.split(",") if s) + ")"
