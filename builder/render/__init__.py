"""Every generated, committed file: Dockerfiles, WSL and Windows scripts, bake file and CI matrix, locks; paths
owns where each lives."""
