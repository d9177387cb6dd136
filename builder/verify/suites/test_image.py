"""The image as a whole: OS, Python, user, environment, packages, labels."""

from __future__ import annotations

from builder.verify.suites._support import check


def _os_release(host) -> dict:
    text = host.file("/etc/os-release").content_string
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line)
    return {k.strip(): v.strip().strip('"') for k, v in pairs}


def test_os_release(host, expect):
    """OS release matches the matrix"""
    rel = _os_release(host)
    found = f"{rel.get('ID')} {rel.get('VERSION_ID')}"
    wanted = f"{expect['os_family']} {expect['os_version']}"
    check(found == wanted, f"/etc/os-release says {found}, the matrix says {wanted} ({expect['os']})",
          f"rebuild it: {expect['build_hint']}")


def test_python_version(host, expect):
    """Python version matches the matrix"""
    out = host.run("%s -c %s", expect["python_cmd"], "import sys; print('%d.%d' % sys.version_info[:2])")
    check(out.rc == 0, f"`{expect['python_cmd']}` does not run in the image: {out.stderr.strip() or out.rc}",
          f"rebuild it: {expect['build_hint']}")
    found = out.stdout.strip()
    check(found == expect["python"], f"python is {found}, the matrix says {expect['python']}",
          f"rebuild it: {expect['build_hint']}")


def test_default_user_is_not_root(host, expect):
    """the default user is not root"""
    uid = host.run("id -u").stdout.strip()
    check(uid != "0", "the image's default user is root (uid 0)",
          f"end the Dockerfile with USER {expect['uid']} (the matrix's image user)")


def test_nvidia_environment(host):
    """NVIDIA_VISIBLE_DEVICES and NVIDIA_DRIVER_CAPABILITIES are set"""
    env = dict(line.split("=", 1) for line in host.run("env").stdout.splitlines() if "=" in line)
    missing = [k for k in ("NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES") if not env.get(k)]
    check(not missing, f"not set in the image: {', '.join(missing)}",
          "add ENV NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility: without them the "
          "NVIDIA runtime mounts no driver libraries into the container")
    caps = env["NVIDIA_DRIVER_CAPABILITIES"].split(",")
    check("all" in caps or "compute" in caps,
          f"NVIDIA_DRIVER_CAPABILITIES={env['NVIDIA_DRIVER_CAPABILITIES']} lacks compute (libcuda.so.1)",
          "set NVIDIA_DRIVER_CAPABILITIES=compute,utility")


def test_pip_check(host, expect):
    """`pip check` is clean"""
    out = host.run("%s -m pip check", expect["python_cmd"])
    lines = (out.stdout + out.stderr).strip().splitlines()
    check(out.rc == 0, "; ".join(lines[:5]) or f"pip check exited {out.rc}",
          "the image's packages conflict: regenerate the lock (`tfenv lock`) and rebuild")


def test_labels_match_matrix(expect):
    """the image's labels match the matrix"""
    found = expect["labels_found"]
    wrong = []
    for key, wanted in expect["labels_expected"].items():
        have = found.get(key)
        if have != wanted:
            wrong.append(f"{key}: image {'has no such label' if have is None else 'says ' + repr(have)}, "
                         f"matrix says {wanted!r}")
    check(not wrong, "; ".join(wrong),
          f"the image was built from another matrix entry or another tfenv: rebuild it with {expect['build_hint']}")
