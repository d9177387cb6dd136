"""`tfenv init` and `tfenv devcontainer`: a user's project folder on a tfenv environment."""

from __future__ import annotations

from pathlib import Path

import click

from builder.commands import common


@click.command("init")
@click.argument("env", required=False)
@click.option("--os", "os_name", callback=common.nonempty, help="OS variant (default: the environment's first one).")
@click.option("--jupyter", is_flag=True, help="Build on the environment's Jupyter stage.")
@click.option("--force", is_flag=True, help="Replace an existing tfenv.yaml.")
@click.option("--requirements", "requirements", metavar="FILE", callback=common.nonempty,
              help="The requirements to read (default: the first of requirements.txt, environment.yml, "
                   "pyproject.toml, setup.cfg, setup.py here).")
@click.pass_context
def init_command(ctx, env, os_name, jupyter, force, requirements):
    """Write a commented tfenv.yaml for this folder: `tfenv build`, `test` and `run` then use it.

    Without ENV, the environment is the one the requirements name (requirements.txt, environment.yml,
    pyproject.toml, setup.cfg or setup.py, the first found): its TensorFlow line and its Python.
    """
    from builder.commands.common import load_matrix
    from builder.project import config

    path, why = config.write_init(load_matrix(ctx), env, os_name, jupyter, Path.cwd(), force, requirements)
    if why:
        click.echo(why)
    click.echo(f"wrote {path.name}: next, `tfenv lock` resolves the requirements into tfenv.lock "
               f"(`tfenv build` does it too, and builds)")


@click.command("devcontainer")
@click.option("--gpus", is_flag=True, help="Add `--gpus all` to runArgs (the container then needs a GPU host).")
@click.option("--repo", callback=common.repository_option,
              help="Environment image repository, e.g. one Codespaces can pull (default: TFENV_REPO, the config "
                   "file, the matrix's).")
@common.ca_cert_option
@click.pass_context
def devcontainer_command(ctx, gpus, repo, ca_cert):
    """Write .devcontainer/ so VS Code Dev Containers and Codespaces open this project in its image."""
    from builder.commands import target
    from builder.commands.common import load_matrix
    from builder.project import actions, devcontainer, image

    m = load_matrix(ctx)
    subject = target.choose(m, None, None, repo)
    project = subject.project
    ca, ca_pem = common.configured_ca_cert(ca_cert)
    project_lock, resolved = actions.lock(m, project, ca_cert=ca.value)
    if resolved:
        click.echo(f"wrote {project_lock.path.name}")
    described = image.describe(project, m, project_lock, subject.repo)
    for path in devcontainer.write(project.root, described, m, gpus, ca_pem):
        shown = path.relative_to(project.root).as_posix()
        if path.name == devcontainer.CA_FILE:
            click.echo(f"wrote {shown} (a copy of {ca.value}, from {ca.source}): its build trusts it, the image "
                       "does not keep it")
        else:
            click.echo(f"wrote {shown}")
    stale = project.root / devcontainer.FOLDER / devcontainer.CA_FILE
    if ca_pem is None and stale.is_file():
        click.echo(f"kept {devcontainer.FOLDER}/{devcontainer.CA_FILE} (no --ca-cert given): its build still trusts "
                   "it; delete it when no proxy or mirror needs it")
