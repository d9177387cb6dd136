"""`tfenv build ENV` and `tfenv base OS`: Click commands that parse options and call builder.images/base."""

from __future__ import annotations

import click

from builder import options, references


@click.command("build")
@click.argument("env")
@click.option("--os", "os_name", callback=options.nonempty,
              help="OS variant (default: the environment's first one).")
@click.option("--repo", callback=references.repository_option,
              help="Image repository (default: tfenv/tensorflow, from the matrix).")
@click.option("--jupyter", is_flag=True, help="Also build the Jupyter stage (tags end in -jupyter).")
@click.option("--push", is_flag=True, help="Push every tag after building.")
@options.build_options
@click.option("--plain", is_flag=True, help="Plain log lines instead of the live display.")
@click.pass_context
def build_cmd(ctx, env, os_name, repo, jupyter, push, plain, **build_kwargs):
    """Build (and tag, and optionally push) the image of ENV."""
    from builder import images, progress
    from builder.cli import load_matrix

    m = load_matrix(ctx)
    target = m.target(env, os_name)
    settings = options.make_build_options(build_kwargs, repo=repo, jupyter=jupyter, push=push)
    result = images.build(m, target, settings, progress.display(plain))
    for stage in result.stages:
        click.echo(f"{stage.stage}: {' '.join(stage.refs)}")


@click.command("base")
@click.argument("os_name", metavar="OS", type=click.Choice(["debian11"]))
@click.option("--tag", callback=references.reference_option,
              help="Image name (default: tfenv/debian:bullseye).")
@click.option("--mirror", metavar="URL",
              help="Debian mirror for debootstrap, e.g. http://mirror.example.org/debian (TFENV_APT_MIRROR).")
@click.option("--plain", is_flag=True, help="Plain log lines instead of the live display.")
def base_cmd(os_name, tag, mirror, plain):
    """Create a base image from debootstrap (root, Linux) when no registry is reachable."""
    from builder import base, config, progress

    if mirror is not None:
        config.check("apt_mirror", mirror, "--mirror")
    base.create(os_name, tag, config.defaults(apt_mirror=mirror)["apt_mirror"], progress.display(plain))
