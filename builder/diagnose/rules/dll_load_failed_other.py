"""`ImportError: DLL load failed` inside another package's C extension that the traceback names (protobuf's
_message): not TF's runtime, so not the Visual C++ advice either."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "dll-load-failed-other"


def check(log, ctx):
    failed = log.all("dll_load_failed")[:1]
    ext = log.all("protobuf_ext")[:1]
    if not failed or not ext or ctx.platform.value not in ("windows", ""):
        return None
    cause = t("The DLL that failed is protobuf's C extension (google.protobuf.pyext._message), not TensorFlow's own: "
              "that protobuf wheel does not load on this Python (protobuf 3.6.1's Windows wheels need Python 3.6.1+).")
    fix = t("reinstall protobuf in a version built for this Python: `pip uninstall protobuf` then `pip install "
            "protobuf==3.6.0` on Python 3.6.0, or upgrade Python (3.6.1 or later) and keep the protobuf TF pins; "
            "`PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python` avoids the extension, slowly")
    return Finding(ID, t("protobuf's C extension failed to load"), lines(ext + failed), cause, fix, "", rank=17,
                   supersedes=("msvc-runtime",))
