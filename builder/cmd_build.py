"""`tfenv build ENV` and `tfenv base OS`: Click commands that parse options and call builder.images/base."""

from __future__ import annotations

import click


@click.command("build")
@click.argument("env", required=False)
@click.option("--os", "os_name", help="OS variant (default: the environment's first one).")
@click.option("--repo", help="Image repository (default: tfenv/tensorflow, from the matrix).")
@click.option("--build-env", is_flag=True, help="In a project folder: build the environment image when missing.")
@click.option("--jupyter", is_flag=True, help="Also build the Jupyter stage (tags end in -jupyter).")
@click.option("--push", is_flag=True, help="Push every tag after building.")
@click.option("--base-image", help="Build on this image instead of the variant's default (local or mirrored).")
@click.option("--pip-index-url", metavar="URL", help="pip index to use inside the build, e.g. a local mirror.")
@click.option("--apt-mirror", metavar="URL", help="apt mirror, e.g. http://mirror.example.org/debian.")
@click.option("--ca-cert", type=click.Path(dir_okay=False), metavar="FILE",
              help="PEM certificate(s) to trust during the build (TLS proxy, local mirror).")
@click.option("--no-cache", is_flag=True, help="Do not use the layer cache.")
@click.option("--pull/--no-pull", default=None,
              help="Always pull the base image / never pull it (default: pull only when missing).")
@click.option("--plain", is_flag=True, help="Plain log lines instead of the live display.")
@click.pass_context
def build_cmd(ctx, env, os_name, repo, build_env, jupyter, push, base_image, pip_index_url, apt_mirror, ca_cert,
              no_cache, pull, plain):
    """Build (and tag, and optionally push) the image of ENV; without ENV, the project's (tfenv.yaml) image."""
    from builder import images, progress
    from builder.cli import load_matrix

    m = load_matrix(ctx)
    options = images.BuildOptions(repo=repo, jupyter=jupyter, base_image=base_image, pip_index_url=pip_index_url,
                                  apt_mirror=apt_mirror, ca_cert=ca_cert, no_cache=no_cache, pull=pull, push=push)
    if env is None:
        from builder.project import actions

        built = actions.build(m, actions.load(m), options, progress.display(plain), build_env=build_env)
        click.echo(f"project: {built.image.ref}")
        return
    target = m.target(env, os_name)
    result = images.build(m, target, options, progress.display(plain))
    for stage in result.stages:
        click.echo(f"{stage.stage}: {' '.join(stage.refs)}")


@click.command("base")
@click.argument("os_name", metavar="OS", type=click.Choice(["debian11"]))
@click.option("--tag", help="Image name (default: tfenv/debian:bullseye).")
@click.option("--mirror", metavar="URL", help="Debian mirror for debootstrap, e.g. http://mirror.example.org/debian.")
@click.option("--plain", is_flag=True, help="Plain log lines instead of the live display.")
def base_cmd(os_name, tag, mirror, plain):
    """Create a base image from debootstrap (root, Linux) when no registry is reachable."""
    from builder import base, progress

    base.create(os_name, tag, mirror, progress.display(plain))
