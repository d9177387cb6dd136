"""The held-out benchmark's two readings of a fix (explain_scoring.key_in_fix): strict is a substring, loose lets a
few words come between the key's words, in order."""

from __future__ import annotations

import pytest

from tests.unit.diagnose.explain_scoring import key_in_fix

FIX = "update the NVIDIA driver to 525.60.13 or newer (CUDA 12.0), then run `wsl --update` in Windows"


@pytest.mark.parametrize("key, strict, loose", [
    ("525.60", True, True),
    ("WSL --update", True, True),
    ("update the driver", False, True),            # one word between: loose only
    ("update driver 525.60.13", False, True),       # two, then one
    ("driver update", False, False),                # the wrong order
    ("update cuda", False, False),                  # more than three words apart
    ("525", True, True),
    ("526", False, False),
    (12.0, True, True),                             # YAML reads 12.0 as a number
    ("~~", False, False),                           # no words: never loose
])
def test_key_in_fix(key, strict, loose):
    assert key_in_fix(key, FIX) is strict
    assert key_in_fix(key, FIX, loose=True) is loose
