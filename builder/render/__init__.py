"""Every generated, committed file: Dockerfiles, WSL and Windows scripts, bake file and CI matrix, locks; and describe
(the matrix as JSON and tables). core/paths owns where each file lives."""
