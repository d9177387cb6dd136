"""The Microsoft Store Python: sandboxed paths and a DLL search TF's loader trips over."""

from builder.diagnose.finding import Finding
from builder.diagnose.rules._common import tfenv_way

ID = "store-python"


def check(log, ctx):
    store = log.all("store_python")[:1]
    trouble = log.all("dll_load_failed")[:1] + log.all("load_fail")[:1] + log.all("native_runtime")[:1]
    if not store or not trouble:
        return None
    cause = ("This is the Microsoft Store Python (PythonSoftwareFoundation...WindowsApps): it runs packages from a "
             "redirected, sandboxed folder, and TF's DLL loading fails there in ways a python.org install does not.")
    fix = ("uninstall the Store Python (or turn off its \"App execution aliases\"), install 64-bit Python from "
           "python.org in a version TF supports, and create a venv with it")
    return Finding(ID, "TensorFlow under the Microsoft Store Python", [ev.line for ev in store + trouble], cause, fix,
                   tfenv_way(ctx), rank=18, supersedes=("msvc-runtime",))
