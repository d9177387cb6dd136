"""Everything that talks to the Docker daemon: the client (daemon), images, the base image, containers, run,
Jupyter and live figures. `import docker` in here is the Docker SDK (absolute imports)."""
