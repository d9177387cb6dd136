"""tfenv's Click commands, one module per topic; each command parses, calls one function, prints.

builder/cli.py lists them (with their help line and help section) and imports a module only when its
command runs, so `tfenv --help` imports none of them.
"""
