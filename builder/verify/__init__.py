"""`tfenv test`: the runner that starts the suites in a container, the suites themselves, and the report."""
