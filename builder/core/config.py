"""Build settings set once: a user config file and TFENV_* variables give defaults to every command.

Precedence, highest first: the command-line option, the environment variable (TFENV_*, and pip's own
PIP_INDEX_URL), the user config file, the matrix default. `tfenv config` prints what is in force and why.

The file is TOML, in the platform's config folder (`tfenv config` prints the path; TFENV_CONFIG overrides):
    ca_cert = "/etc/ssl/certs/company-proxy.pem"
    pip_index_url = "https://pypi.example.org/simple"
    apt_mirror = "http://mirror.example.org/debian"
    base_image = "registry.example.org/debian:bullseye"
    repo = "registry.example.org/team/tensorflow"
TOML is read with the standard library's tomllib (Python 3.11+) or its backport tomli (a dependency only
below 3.11): the same parser, not a second one to maintain.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from builder.core.errors import TfenvError

KEYS = ("ca_cert", "pip_index_url", "apt_mirror", "base_image", "repo")
BUILD_KEYS = ("repo", "base_image", "pip_index_url", "apt_mirror", "ca_cert")  # KEYS, in the order a build checks them
ENV_VARS = {key: f"TFENV_{key.upper()}" for key in KEYS}
FALLBACK_ENV = {"pip_index_url": "PIP_INDEX_URL"}  # what pip itself reads: a user who set it meant it
HELP = {
    "ca_cert": "PEM certificate(s) trusted during builds (a TLS-inspecting proxy, a local mirror)",
    "pip_index_url": "pip index used inside builds",
    "apt_mirror": "apt/debootstrap mirror used inside builds",
    "base_image": "image builds start FROM instead of each OS variant's default",
    "repo": "image repository for tags (build, run, test, show)",
}


class ConfigError(TfenvError):
    """The config file or a TFENV_* variable holds something tfenv cannot use."""


@dataclass(frozen=True)
class Setting:
    value: str | None
    source: str  # "--option", "TFENV_X", "config file PATH", "matrix default"


def config_path(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """%APPDATA%\\tfenv\\config.toml, ~/Library/Application Support/tfenv/config.toml, or the XDG one."""
    environ = os.environ if environ is None else environ
    platform = platform or sys.platform
    if environ.get("TFENV_CONFIG"):
        return Path(environ["TFENV_CONFIG"])
    home = Path(environ.get("HOME") or environ.get("USERPROFILE") or Path.home())
    if platform == "win32":
        base = Path(environ["APPDATA"]) if environ.get("APPDATA") else home / "AppData" / "Roaming"
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(environ["XDG_CONFIG_HOME"]) if environ.get("XDG_CONFIG_HOME") else home / ".config"
    return base / "tfenv" / "config.toml"


def toml():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on the Python 3.8-3.10 CI legs
        import tomli as tomllib
    return tomllib


def read_file(path: Path) -> dict[str, str]:
    """The settings in a config file ({} when there is none); one line for anything wrong in it."""
    from builder.core import files

    if not path.exists():
        return {}
    data = files.read_bytes(path, "config file", limit=64 * 1024)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    parser = toml()
    try:
        table = parser.loads(text)
    except parser.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    settings = {}
    for key, value in table.items():
        if key not in KEYS:
            import difflib

            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{path}: unknown setting {key!r}{hint}; known: {', '.join(KEYS)}")
        if not isinstance(value, str):
            raise ConfigError(f"{path}: {key}: expected a string in quotes, got {type(value).__name__}")
        settings[key] = check(key, value, f"{path}: {key}", base=path.parent)
    return settings


def check(key: str, value: str, where: str, base: Path | None = None) -> str:
    """One setting's value, validated the same wherever it came from."""
    from builder.core import references

    if not value.strip():
        raise ConfigError(f"{where} is empty: give a value, or remove it for the default")
    if key in ("pip_index_url", "apt_mirror"):
        scheme = value.split("://", 1)[0].lower() if "://" in value else ""
        if scheme not in ("http", "https", "file") or any(ch.isspace() for ch in value):
            raise ConfigError(f"{where} {value!r}: expected a URL like https://pypi.example.org/simple")
    elif key == "repo":
        references.check_repository(value, where)
    elif key == "base_image":
        references.check_reference(value, where)
    elif key == "ca_cert":
        path = Path(os.path.expanduser(value))  # unlike Path.expanduser, leaves `~nobody` as it is
        if base is not None and not path.is_absolute():
            path = base / path  # a relative path in the config file is relative to the file
        return str(path)
    return value


def effective(options: Mapping[str, str | None] | None = None, environ: Mapping[str, str] | None = None,
              option_names: Mapping[str, str] | None = None, keys=KEYS) -> dict[str, Setting]:
    """Each setting's value and where it came from; a None value means the matrix default applies."""
    environ = os.environ if environ is None else environ
    options = options or {}
    option_names = option_names or {}
    from_file: dict[str, str] | None = None
    path = config_path(environ)
    result = {}
    for key in keys:
        if options.get(key) is not None:
            option = option_names.get(key, "--" + key.replace("_", "-"))
            result[key] = Setting(check(key, options[key], option), option)
            continue
        found = None
        for var in (ENV_VARS[key], FALLBACK_ENV.get(key)):
            if var and environ.get(var) is not None:
                found = Setting(check(key, environ[var], var), var)
                break
        if found is None:
            if from_file is None:
                from_file = read_file(path)
            if key in from_file:
                found = Setting(from_file[key], f"config file {path}")
        result[key] = found or Setting(None, "default: the matrix's" if key in ("repo", "base_image") else "not set")
    return result


def build_settings(options: Mapping[str, str | None], keys=BUILD_KEYS) -> tuple[dict[str, Setting], bytes | None]:
    """The settings a build uses, each resolved once with its source, and the CA file's bytes (None: no
    ca_cert), read and checked once here so that a wrong path fails before anything is built."""
    settings = effective(options, keys=keys)
    ca = settings.get("ca_cert")
    if not (ca and ca.value):
        return settings, None
    from builder.core import files

    return settings, files.read_ca_cert(ca.value, where(ca, "ca_cert"))


def where(setting: Setting, key: str) -> str:
    """How an error names a setting: the option or variable itself, or the config file and its key."""
    return f"{setting.source}: {key}" if setting.source.startswith("config file") else setting.source


def defaults(**options: str | None) -> dict[str, str | None]:
    """The value in force for each setting named: options as given, else environment, else config file."""
    settings = effective(options, keys=tuple(options))
    return {key: settings[key].value for key in options}
