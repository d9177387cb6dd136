"""tfenv: known-good TensorFlow GPU environments for the old TF lines, and a doctor for your host."""

__version__ = "0.1.0"
