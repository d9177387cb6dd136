"""What several commands share: the loaded matrix, option checks, the build options, generated files."""

from __future__ import annotations

from pathlib import Path

import click

from builder.core import references
from builder.core.errors import BadOption, TfenvError


def load_matrix(ctx: click.Context):
    """The matrix the user chose with --matrix / TFENV_MATRIX, or the packaged one."""
    from builder.matrix import validate

    return validate.load(ctx.find_root().obj.get("matrix_path"))


class MatrixChoice(click.Choice):
    """A Choice whose values come from the matrix the user chose (--matrix), read when Click first needs them."""

    def __init__(self, values_of):
        super().__init__(())
        self.values_of = values_of

    def _load(self, ctx) -> bool:
        if ctx is not None:  # each time: one process may run tfenv with another --matrix (tests do)
            self.choices = tuple(self.values_of(load_matrix(ctx)))
        return ctx is not None

    def convert(self, value, param, ctx):
        self._load(ctx)
        return super().convert(value, param, ctx)

    def get_missing_message(self, param, ctx=None):  # Click 8.1 passes no context: the message names no choices
        try:
            loaded = self._load(ctx)
        except TfenvError:  # an unreadable --matrix: the usage error stands alone (the matrix's own error is later)
            loaded = False
        return super().get_missing_message(param, ctx) if loaded else ""


def env_names_argument(f):
    return click.argument("envs", nargs=-1, metavar="[ENV]...")(f)


def targets_arguments(f):
    """[ENV]... and --os OS...: the targets of bake and ci matrix (all of them by default)."""
    f = click.option("--os", "os_names", multiple=True, metavar="OS", callback=nonempty,
                     help="Only this OS variant (repeatable).")(f)
    return env_names_argument(f)


def checkout_or(out: str | None, what: str) -> Path:
    """--out DIR, else the checkout tfenv runs from; one line when neither exists."""
    from builder.core import paths

    root = Path(out) if out else paths.checkout_root()
    if root is None:
        raise TfenvError(f"not in a tfenv checkout: pass {what}")
    return root


def checkout_matrix(ctx: click.Context, checkout: Path | None):
    """The checkout's own matrix.yaml (and locks, templates) for drift checks, unless --matrix names one: a
    non-editable install carries its own copies, which are not what the committed files were made from."""
    from builder.core import paths
    from builder.matrix import validate

    given = ctx.find_root().obj.get("matrix_path")
    if checkout is not None and not given:
        paths.use_checkout(checkout)  # its locks and templates too, not the installed copies
    return validate.load(given or (checkout / "matrix.yaml" if checkout else None))


# --- option checks: one line before anything runs ------------------------------------------------------

repository_option = references.repository_option  # --repo: a repository name Docker accepts
reference_option = references.reference_option  # --image, --base-image, --tag: a full image reference


def _name(param) -> str:
    return max(param.opts, key=len) if param is not None and param.opts else "value"


def nonempty(ctx, param, value):
    """Click callback: `--os ''` is a mistake (an unset shell variable), not a request for the default."""
    if value is None:
        return None
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if not v.strip():
            raise BadOption(f"{_name(param)} '': give a value, or leave {_name(param)} out for the default")
    return value


# --- the build options, one definition for `build` and `run --build` ------------------------------

BUILD_OPTION_NAMES = ("base_image", "pip_index_url", "apt_mirror", "ca_cert", "no_cache", "pull", "network")


ca_cert_option = click.option(
    "--ca-cert", type=click.Path(dir_okay=False), metavar="FILE",
    help="PEM certificate(s) apt and pip trust during the build: TLS proxy, local mirror; the image does not keep "
         "them (TFENV_CA_CERT).")


def build_options(f):
    """Click options every command that builds takes (BUILD_OPTION_NAMES); their defaults come from TFENV_*
    variables and the config file, filled in by make_build_options."""
    decorators = [
        click.option("--base-image", callback=reference_option,
                     help="Build on this image instead of the variant's default (TFENV_BASE_IMAGE)."),
        click.option("--pip-index-url", metavar="URL",
                     help="pip index to use inside the build, e.g. a local mirror (TFENV_PIP_INDEX_URL, "
                          "PIP_INDEX_URL)."),
        click.option("--apt-mirror", metavar="URL",
                     help="apt mirror, e.g. http://mirror.example.org/debian (TFENV_APT_MIRROR)."),
        ca_cert_option,
        click.option("--no-cache", is_flag=True, help="Do not use the layer cache."),
        click.option("--network", type=click.Choice(["host"]), default=None,
                     help="host: the build's steps use this machine's network (a mirror on 127.0.0.1)."),
        click.option("--pull/--no-pull", default=None,
                     help="Always pull the base image / never pull it (default: pull only when missing)."),
    ]
    for decorator in reversed(decorators):
        f = decorator(f)
    return f


def make_build_options(kwargs: dict, *, repo: str | None, jupyter: bool, push: bool = False):
    """images.BuildOptions from the command's options, each unset one filled from the environment or the
    config file, and the CA file's bytes: resolved and read once, here (builder.core.config)."""
    from builder.core import config
    from builder.docker import images

    given = {key: kwargs.get(key) for key in config.BUILD_KEYS if key != "repo"}
    settings, ca_pem = config.build_settings({**given, "repo": repo})
    value = {key: setting.value for key, setting in settings.items()}
    return images.BuildOptions(**value, ca_pem=ca_pem, jupyter=jupyter, push=push, no_cache=kwargs["no_cache"],
                               pull=kwargs["pull"], network=kwargs.get("network"))


def configured_ca_cert(ca_cert: str | None):
    """The CA certificate a build would trust, found as make_build_options finds it (--ca-cert, else
    TFENV_CA_CERT, else the config file): its config.Setting (path and source) and its bytes (None: none set)."""
    from builder.core import config

    settings, ca_pem = config.build_settings({"ca_cert": ca_cert}, keys=("ca_cert",))
    return settings["ca_cert"], ca_pem
