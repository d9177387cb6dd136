"""`ImportError: DLL load failed` inside another package's C extension that the traceback names (protobuf's
_message, h5py, numpy, ...): not TF's runtime, so not the Visual C++ advice either."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "dll-load-failed-other"


def check(log, ctx):
    failed = log.all("dll_load_failed")[:1]
    if not failed or ctx.platform.value not in ("windows", ""):
        return None
    if "_pywrap_tensorflow" in log.line_text(failed[0].line):
        return None
    protobuf = log.all("protobuf_ext")[:1]
    frames = [ev for ev in log.all("ext_frame") if ev.line <= failed[0].line]
    if protobuf:
        cause = t("The DLL that failed is protobuf's C extension (google.protobuf.pyext._message), not TensorFlow's "
                  "own: that protobuf wheel does not load on this Python (protobuf 3.6.1's Windows wheels need Python "
                  "3.6.1+).")
        fix = t("reinstall protobuf in a version built for this Python: `pip uninstall protobuf` then `pip install "
                "protobuf==3.6.0` on Python 3.6.0, or upgrade Python (3.6.1 or later) and keep the protobuf TF pins; "
                "`PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python` avoids the extension, slowly")
        evidence = protobuf + failed
    elif frames:
        package = frames[-1].groups[0]
        cause = t("The DLL that failed belongs to {package}'s compiled extension, not TensorFlow's own: that build of "
                  "{package} does not match this Python or the libraries beside it (pip and conda copies mixed).",
                  package=package)
        fix = t("reinstall {package} in that environment: `pip uninstall {package}` then `pip install {package}` (in "
                "a conda env use `conda install {package}` and do not mix it with a pip copy)", package=package)
        evidence = frames[-1:] + failed
    else:
        return None
    return Finding(ID, t("A package's C extension failed to load"), lines(evidence), cause, fix, "", rank=17,
                   supersedes=("msvc-runtime",))
