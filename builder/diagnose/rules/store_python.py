"""The Microsoft Store Python: sandboxed paths and a DLL search TF's loader trips over."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import tfenv_way

ID = "store-python"


def check(log, ctx):
    store = log.all("store_python")[:1]
    trouble = log.all("dll_load_failed")[:1] + log.all("load_fail")[:1] + log.all("native_runtime")[:1]
    long_path = log.all("pip_oserror")[:1]
    if not store or not (trouble or long_path):
        return None
    if long_path:
        cause = t("This is the Microsoft Store Python: it installs packages in a deeply nested, redirected folder "
                  "(...\\Packages\\PythonSoftwareFoundation.Python...\\LocalCache\\local-packages), where TF's "
                  "deepest files pass Windows' 260-character path limit, so pip cannot write them.")
        fix = t("install 64-bit Python from python.org in a version TF supports and create a venv in a short path "
                "(e.g. C:\\venvs\\tf); or enable long paths (LongPathsEnabled=1 under "
                "HKLM\\SYSTEM\\CurrentControlSet\\Control\\FileSystem, then reopen the terminal)")
        return Finding(ID, t("TensorFlow under the Microsoft Store Python"), [ev.line for ev in store + long_path],
                       cause, fix, tfenv_way(ctx), rank=18)
    cause = t("This is the Microsoft Store Python (PythonSoftwareFoundation...WindowsApps): it runs packages from a "
              "redirected, sandboxed folder, and TF's DLL loading fails there in ways a python.org install does not.")
    fix = t("uninstall the Store Python (or turn off its \"App execution aliases\"), install 64-bit Python from "
            "python.org in a version TF supports, and create a venv with it")
    return Finding(ID, t("TensorFlow under the Microsoft Store Python"), [ev.line for ev in store + trouble], cause,
                   fix, tfenv_way(ctx), rank=18, supersedes=("msvc-runtime",))
