"""The testinfra suites that define what "verified" means for a tfenv image.

They run inside pytest, against a container that `tfenv test` starts (testinfra's docker:// backend), and
read what to expect from the JSON file named by --tfenv-expect (written by builder.verify.runner from the matrix).
"""

from __future__ import annotations

from pathlib import Path

SUITE_DIR = Path(__file__).resolve().parent
PROBE_DIR = SUITE_DIR / "probes"
