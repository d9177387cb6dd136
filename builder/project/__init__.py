"""A user's own project on a tfenv environment (tfenv.yaml).

config: tfenv.yaml, strictly loaded; `tfenv init` writes it.
resolve: the requirements resolved with the environment's lock as constraints, into tfenv.lock.
image: the thin project image FROM the environment image, its Dockerfile and build.
devcontainer: .devcontainer/ for VS Code and Codespaces.
actions: what build, test, run and lock do in a project folder.
"""
