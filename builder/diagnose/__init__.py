"""The one diagnosis core: read a TensorFlow log, infer its context, name the causes and their fixes.

Standard library only, and Python 3.6 syntax: `tfenv doctor --write-standalone` bundles this package into
a single file that must run on a bare machine's python3 (Ubuntu 18.04 has 3.6) with `-I -S`.

    from builder import diagnose
    result = diagnose.explain(text, facts)      # facts: the matrix facts dict (see builder.doctor.facts)
    result.findings[0].id                        # e.g. 'missing-cuda-runtime'
"""

from builder.diagnose.context import Context, infer
from builder.diagnose.parse import Log, parse
from builder.diagnose.report import Diagnosis, explain, format_text

__all__ = ["Context", "Diagnosis", "Log", "explain", "format_text", "infer", "parse"]
