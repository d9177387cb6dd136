"""Build and verify: build, base, test."""

from __future__ import annotations

import sys

import click

from builder.commands import common
from builder.commands.common import load_matrix
from builder.core.errors import ChecksFailed, TfenvError


@click.command("build")
@click.argument("env", required=False)
@click.option("--os", "os_name", callback=common.nonempty,
              help="OS variant (default: the environment's first one).")
@click.option("--repo", callback=common.repository_option,
              help="Image repository (default: TFENV_REPO, the config file, the matrix's tfenv/tensorflow).")
@click.option("--build-env", is_flag=True, help="In a project folder: build the environment image when missing.")
@click.option("--jupyter", is_flag=True, help="Also build the Jupyter stage (tags end in -jupyter).")
@click.option("--push", is_flag=True, help="Push every tag after building.")
@common.build_options
@click.option("--plain", is_flag=True, help="Plain log lines instead of the live display.")
@click.pass_context
def build_command(ctx, env, os_name, repo, build_env, jupyter, push, plain, **build_kwargs):
    """Build (and tag, and optionally push) the image of ENV.

    Without ENV, in a folder with tfenv.yaml: resolve tfenv.lock if needed and build the project's image.
    """
    from builder.commands import target
    from builder.core import progress
    from builder.docker import images

    m = load_matrix(ctx)
    if env is None:
        for flag, given in (("--os", os_name), ("--jupyter", jupyter), ("--base-image", build_kwargs["base_image"]),
                            ("--pull/--no-pull", build_kwargs["pull"] is not None)):
            if given:
                raise TfenvError(f"{flag} does not apply to a project's image (tfenv.yaml says what it is built on)")
    subject = target.environment(m, env, os_name, repo) if env is not None else None
    options = common.make_build_options(build_kwargs, repo=repo, jupyter=jupyter, push=push)  # once, for either
    subject = subject or target.choose(m, None, None, repo)
    if subject.project is not None:
        from builder.project import actions

        built = actions.build(m, subject.project, options, progress.display(plain), build_env=build_env)
        click.echo(f"project: {built.image.ref}")
        return
    result = images.build(m, subject.target, options, progress.display(plain))
    for stage in result.stages:
        click.echo(f"{stage.stage}: {' '.join(stage.refs)}")


@click.command("base")
@click.argument("os_name", metavar="OS", type=common.MatrixChoice(lambda m: [o.name for o in m.os.values() if o.suite]))
@click.option("--tag", callback=common.reference_option,
              help="Image name (default: the one builds look for, matrix.yaml os.OS.local_base).")
@click.option("--mirror", metavar="URL",
              help="Debian mirror for debootstrap, e.g. http://mirror.example.org/debian (TFENV_APT_MIRROR).")
@click.option("--plain", is_flag=True, help="Plain log lines instead of the live display.")
@click.pass_context
def base_command(ctx, os_name, tag, mirror, plain):
    """Create a base image from debootstrap (root, Linux) when no registry is reachable."""
    from builder.core import config, progress
    from builder.docker import base

    if mirror is not None:
        config.check("apt_mirror", mirror, "--mirror")
    base.create(load_matrix(ctx).os[os_name], tag, config.defaults(apt_mirror=mirror)["apt_mirror"],
                progress.display(plain))


TEST_EXIT_CODES = """\b
Exit status:
  0  every check passed (skipped GPU checks allowed)
  1  checks ran and at least one failed
  2  could not run: no Docker daemon or docker CLI, no such image, bad input,
     --gpus all without an NVIDIA runtime
  129, 130, 143  SIGHUP, Ctrl-C, SIGTERM (the container is removed all the same)

\b
On a GPU host: tfenv test tf29 --gpus all"""


@click.command("test", epilog=TEST_EXIT_CODES)
@click.argument("env", required=False)
@click.option("--os", "os_name", callback=common.nonempty,
              help="OS variant (default: the environment's first).")
@click.option("--gpus", type=click.Choice(["auto", "all", "none"]), default="auto", show_default=True,
              help="auto: GPU checks when the Docker daemon has an NVIDIA runtime, else skipped; "
                   "all: require a GPU; none: CPU checks only.")
@click.option("--junit-xml", metavar="FILE", help="Also write JUnit XML here (checked before the checks run).")
@click.option("--repo", callback=common.repository_option,
              help="Image repository (default: TFENV_REPO, the config file, the matrix).")
@click.option("--image", "image_ref", metavar="REF", callback=common.reference_option,
              help="Test this image instead; without ENV its io.tfenv.* labels say which environment it is.")
@click.pass_context
def test_command(ctx, env, os_name, gpus, junit_xml, repo, image_ref):
    """Run the image checks in a container of ENV's image and report one line per check.

    Without ENV, in a folder with tfenv.yaml: the project's image, plus an import of every requirement.

    CPU checks always run: OS, Python, TensorFlow and its build info, every CUDA soname TF loads, TF's
    loader log, a CPU op, pip check, non-root user, NVIDIA_* variables, labels. GPU checks run when a GPU
    is passed in, and are reported as skipped (with the reason) when not.
    """
    from builder.commands import target
    from builder.docker import daemon
    from builder.matrix import tags
    from builder.verify import report, runner

    if junit_xml:  # checked before the suite runs, not after minutes of checks
        from builder.core import files

        files.check_writable(junit_xml, "JUnit XML report", make_parents=True)
    m = load_matrix(ctx)
    subject = None if image_ref else target.choose(m, env, os_name, repo, no_project=click.UsageError(
        "name an environment (e.g. `tfenv test tf29`) or pass --image REF (or run it in a folder with tfenv.yaml)"))
    runner.require_docker_cli()
    c = daemon.client()
    gpu = daemon.resolve_gpus(c, gpus)  # --gpus all without a runtime fails here, before anything starts
    if subject is not None and subject.project is not None:
        from builder.project import actions

        outcome = actions.test(m, subject.project, gpu, junit_xml=junit_xml, repo=subject.repo, client=c)
    else:
        if subject is None:  # --image REF: its labels say which environment it is, unless ENV does
            labelled, img = runner.labelled_target(m, c, image_ref, env, os_name)
            subject = target.Subject(m, labelled, target.repo(m, repo))
        else:
            image_ref = tags.image_refs(subject.target, subject.repo)[1]
            img = daemon.require_image(c, image_ref, subject.build_hint)
        outcome = runner.run(m, subject.target, image_ref, img.labels or {}, gpu, subject.build_hint,
                             junit_xml=junit_xml, client=c)
    report.print_outcome(outcome, rich_output=sys.stdout.isatty())
    if outcome.failed:
        raise ChecksFailed(f"{len(outcome.failed)} of {len(outcome.results)} checks failed on {outcome.image}")
