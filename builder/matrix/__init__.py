"""The version matrix: its dataclasses (model), reading matrix.yaml (validate), image tags, and the facts
doctor and explain read."""
