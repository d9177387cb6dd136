# Runs inside the image (any Python 3.6+, standard library only): load each library by name the way TF
# does (dlopen through ctypes), and report where it resolved and the runtime versions it reports.
# argv[1]: JSON {"sonames": [...], "cudart": soname, "cudnn": soname, "device_count": bool}
import ctypes
import json
import os
import sys

RTLD_DI_LINKMAP = 2


class _LinkMap(ctypes.Structure):
    _fields_ = [("l_addr", ctypes.c_void_p), ("l_name", ctypes.c_char_p)]


def _dlinfo():
    for lib in (None, "libdl.so.2"):
        fn = getattr(ctypes.CDLL(lib), "dlinfo", None)
        if fn is not None:
            return fn
    return None


DLINFO = _dlinfo()


def path_of(handle):
    """The file a dlopen handle resolved to (its link_map name), symlinks followed."""
    if DLINFO is None:
        return None
    lm = ctypes.POINTER(_LinkMap)()
    if DLINFO(ctypes.c_void_p(handle), RTLD_DI_LINKMAP, ctypes.byref(lm)) != 0 or not lm:
        return None
    name = lm.contents.l_name
    return os.path.realpath(name.decode()) if name else None


def load(name):
    try:
        lib = ctypes.CDLL(name)
    except OSError as exc:
        return None, {"ok": False, "error": str(exc)}
    return lib, {"ok": True, "path": path_of(lib._handle)}


def main():
    want = json.loads(sys.argv[1])
    out = {"libs": {}}
    for name in want.get("sonames", []):
        out["libs"][name] = load(name)[1]
    if want.get("cudart"):
        lib, info = load(want["cudart"])
        if lib is not None:
            version = ctypes.c_int(0)
            info["runtime_rc"] = lib.cudaRuntimeGetVersion(ctypes.byref(version))
            info["runtime_version"] = version.value
            if want.get("device_count"):
                count = ctypes.c_int(0)
                info["device_count_rc"] = lib.cudaGetDeviceCount(ctypes.byref(count))
                info["device_count"] = count.value
        out["cudart"] = info
    if want.get("cudnn"):
        lib, info = load(want["cudnn"])
        if lib is not None:
            lib.cudnnGetVersion.restype = ctypes.c_size_t
            info["version"] = lib.cudnnGetVersion()
        out["cudnn"] = info
    print("TFENV_PROBE " + json.dumps(out))


main()
