"""The native Windows route against the real win_amd64 wheels, without Windows and without downloading them.

Every pin of every Windows lock and every NVIDIA wheel the matrix names is resolved for win_amd64 by pip
itself (`--dry-run --no-deps --platform win_amd64 --report`, through pip's own configured index), and
each NVIDIA wheel's file list is read from its zip central directory alone (HTTP Range requests at the end
of the file, a few hundred KB of wheels that are hundreds of MB): every DLL the matrix says TensorFlow
loads on Windows must be in a wheel at a folder the .pth hook puts on PATH, or be a copy setup.ps1 makes
of a DLL that is there. From each TF wheel, build_info.py (a few KB) is read the same way and checked
against what setup.ps1's checks expect.

Network: pip's index (PIP_INDEX_URL or pip's configuration) and its CA bundle (PIP_CERT, pip's `cert`
setting, else the system's). Nothing runs on Windows here: this proves names and places, not loading.
"""

from __future__ import annotations

import ast
import json
import os
import re
import ssl
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from builder.render import windows
from tests.helpers import matrix

# Pure-Python packages some old locks pin in a version that has no wheel at all: pip builds them from the
# sdist without a compiler (wrapt falls back to its pure-Python implementation when no compiler is found;
# clang 5.0 is libclang's Python bindings, which TF 2.6 pins).
PURE_PYTHON_SDISTS = {"termcolor", "wrapt", "clang"}

M = matrix()
ENVS = [e for e in M.envs.values() if windows.supported(e)]
PIP_ENVS = [e for e in ENVS if e.cuda.windows.source == "pip"]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _resolve(requirements: list[str], python: str) -> list[dict]:
    """pip's report of what it would install for win_amd64 on CPython `python`: name, version, url."""
    with tempfile.TemporaryDirectory() as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        report = Path(tmp) / "report.json"
        # fast-deps: pip reads each wheel's metadata through HTTP Range requests instead of downloading it
        # (old wheels have no separate metadata file on the index).
        cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--ignore-installed",
               "--use-feature=fast-deps", "--quiet", "--disable-pip-version-check", "--platform", "win_amd64",
               "--python-version", python, "--implementation", "cp", "--target", str(Path(tmp) / "target"),
               "--report", str(report), "-r", str(req)]
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, f"pip cannot resolve for win_amd64 / Python {python}:\n{result.stderr[-3000:]}"
        data = json.loads(report.read_text(encoding="utf-8"))
    return [{"name": i["metadata"]["name"], "version": i["metadata"]["version"], "url": i["download_info"]["url"]}
            for i in data["install"]]


def _ca_bundle() -> str | None:
    """The CA bundle pip uses: PIP_CERT, else pip's `cert` setting, else None (the system's)."""
    if os.environ.get("PIP_CERT"):
        return os.environ["PIP_CERT"]
    out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    found = re.findall(r"^\S*\.cert='([^']+)'$", out, re.M)
    return found[-1] if found else None


class RangeReader:
    """Reads byte ranges of one remote file (HTTP Range), counting what it fetched."""

    def __init__(self, url: str, context: ssl.SSLContext):
        self.url, self.context, self.fetched, self.size = url, context, 0, None

    def read(self, spec: str) -> bytes:
        start, _, end = spec.partition("-")
        if self.url.startswith("file:"):  # pip's find-links or a local index: read the file itself
            path = urllib.request.url2pathname(urllib.parse.urlparse(self.url).path)
            with open(path, "rb") as f:
                self.size = f.seek(0, os.SEEK_END)
                first = max(0, self.size - int(end)) if not start else int(start)
                f.seek(first)
                data = f.read((self.size if not start else int(end) + 1) - first)
            self.fetched += len(data)
            return data
        data, status, content_range = self._get(spec)
        self.fetched += len(data)
        if status == 206:
            self.size = int(content_range.rsplit("/", 1)[1])
            return data
        # 200: the whole file (a server may answer so when the range covers it all, e.g. a small wheel)
        assert status == 200 and len(data) < 1_000_000, f"{self.url.rsplit('/', 1)[-1]}: the index ignores Range"
        self.size = len(data)
        return data[-int(end):] if not start else data[int(start):int(end) + 1]

    def _get(self, spec: str, tries: int = 4):
        """One ranged GET; a network hiccup (a DNS lookup or connection that fails under the parallel
        reads) is tried again, an HTTP error is not."""
        request = urllib.request.Request(self.url, headers={"Range": f"bytes={spec}"})
        for attempt in range(tries):
            try:
                with urllib.request.urlopen(request, context=self.context, timeout=120) as response:
                    return response.read(), response.status, response.headers.get("Content-Range")
            except urllib.error.HTTPError:
                raise
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt == tries - 1:
                    raise
                time.sleep(2 ** attempt)


def central_directory(reader: RangeReader) -> dict[str, tuple[int, int, int]]:
    """name -> (compression method, compressed size, local header offset), from the end of the zip only."""
    tail = reader.read("-65558")  # the end-of-central-directory record (22 bytes) and the longest comment
    eocd = tail.rfind(b"PK\x05\x06")
    assert eocd >= 0, "no end-of-central-directory record: not a zip"
    cd_size, cd_offset = struct.unpack("<II", tail[eocd + 12:eocd + 20])
    assert cd_offset != 0xFFFFFFFF, "a zip64 archive: not expected for these wheels"
    tail_start = reader.size - len(tail)
    cd = tail[cd_offset - tail_start:][:cd_size] if cd_offset >= tail_start else reader.read(
        f"{cd_offset}-{cd_offset + cd_size - 1}")
    entries, pos = {}, 0
    while pos + 46 <= len(cd) and cd[pos:pos + 4] == b"PK\x01\x02":
        method, = struct.unpack("<H", cd[pos + 10:pos + 12])
        csize, _, name_len, extra_len, comment_len = struct.unpack("<IIHHH", cd[pos + 20:pos + 34])
        offset, = struct.unpack("<I", cd[pos + 42:pos + 46])
        entries[cd[pos + 46:pos + 46 + name_len].decode("utf-8")] = (method, csize, offset)
        pos += 46 + name_len + extra_len + comment_len
    assert entries, "an empty central directory"
    return entries


def read_member(reader: RangeReader, entry: tuple[int, int, int]) -> bytes:
    method, csize, offset = entry
    head = reader.read(f"{offset}-{offset + 29}")
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    start = offset + 30 + name_len + extra_len
    data = reader.read(f"{start}-{start + csize - 1}")
    return zlib.decompress(data, -15) if method == 8 else data


def build_info(source: str) -> dict:
    """The values of TF's build_info.py: module constants (2.2), a dict (2.3) or an OrderedDict (2.4+)."""
    values = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value.args[0] if isinstance(node.value, ast.Call) and node.value.args else node.value
        try:
            literal = ast.literal_eval(value)
        except ValueError:
            continue
        if node.targets[0].id == "build_info":
            values.update(dict(literal))
        else:
            values[node.targets[0].id] = literal
    return values


# Older pips check a wheel's Requires-Python against the running interpreter, not --python-version
# (measured: 24.0 fails, 24.3.1 works); .ci/run upgrades pip.
PIP_MIN = (24, 3)


@pytest.fixture(scope="module")
def resolved():
    """Every Windows resolution, in parallel (network-bound): lock pins per env, and the NVIDIA wheels."""
    import pip

    if tuple(int(p) for p in pip.__version__.split(".")[:2]) < PIP_MIN:
        pytest.fail(f"pip {pip.__version__} is too old for this test (needs {'.'.join(map(str, PIP_MIN))}+): "
                    f"python -m pip install --upgrade pip")
    started = time.monotonic()
    jobs = {e.name: (windows.read_lock(M, e).requirements(), windows.python_for(M, e)) for e in ENVS}
    stacks = {e.cuda.version: e for e in PIP_ENVS}
    for version, e in stacks.items():
        jobs[f"cuda{version}"] = ([f"{n}=={v}" for n, v in e.cuda.windows.pip.items()], windows.python_for(M, e))
    with ThreadPoolExecutor(4) as pool:
        futures = {key: pool.submit(_resolve, reqs, python) for key, (reqs, python) in jobs.items()}
        out = {key: f.result() for key, f in futures.items()}
    print(f"\nresolved {sum(len(v) for v in out.values())} Windows pins in {time.monotonic() - started:.0f} s")
    return out


@pytest.fixture(scope="module")
def ssl_context():
    return ssl.create_default_context(cafile=_ca_bundle())


@pytest.mark.parametrize("env", ENVS, ids=lambda e: e.name)
def test_every_lock_pin_resolves_for_win_amd64(resolved, env):
    """pip finds each pin for win_amd64 at the exact version; only known pure-Python sdists lack a wheel."""
    pins = windows.read_lock(M, env).pins
    found = {_norm(i["name"]): i for i in resolved[env.name]}
    assert {_norm(n): v for n, v in pins} == {n: i["version"] for n, i in found.items()}
    not_wheels = {n for n, i in found.items() if not i["url"].endswith(".whl")}
    assert not_wheels <= PURE_PYTHON_SDISTS, f"sdists a Windows machine would have to compile: {not_wheels}"
    tf = found["tensorflow"]["url"].rsplit("/", 1)[1]
    assert tf.endswith("-win_amd64.whl") and f"-cp{windows.python_for(M, env).replace('.', '')}-" in tf


def test_nvidia_wheels_carry_every_dll_tf_loads_where_the_hook_looks(resolved, ssl_context):
    started, fetched, verified = time.monotonic(), 0, set()
    for version, env in {e.cuda.version: e for e in PIP_ENVS}.items():
        files = set()
        for item in resolved[f"cuda{version}"]:
            assert item["url"].endswith("-win_amd64.whl"), f"{item['name']}: no win_amd64 wheel ({item['url']})"
            reader = RangeReader(item["url"], ssl_context)
            files |= set(central_directory(reader))
            fetched += reader.fetched
        hook = [d.split("Lib/site-packages/", 1)[1] for d in windows.hook_dirs(env)]
        copies = {c["to"]: c for c in windows.copies(env)}
        for pip_env in [e for e in PIP_ENVS if e.cuda.version == version]:
            for dll in pip_env.windows_dlls + pip_env.windows_optional_dlls + pip_env.cuda.windows.cudnn_dlls:
                if dll in copies:  # setup.ps1 makes it from a DLL that must be in the hook folder it names
                    folder = copies[dll]["dir"].split("Lib/site-packages/", 1)[1]
                    assert f"{folder}/{copies[dll]['source']}" in files, f"{dll}: its copy source is missing"
                else:
                    where = [d for d in hook if f"{d}/{dll}" in files]
                    assert where, f"{pip_env.name}: {dll} is in no hook folder ({', '.join(hook)})"
                verified.add(dll)
        # Nothing TF wants is shadowed: each DLL name is shipped once across the hook folders.
        for dll in env.windows_dlls:
            assert sum(f"{d}/{dll}" in files for d in hook) <= 1, f"{dll} ships twice"
    print(f"\nverified {len(verified)} DLLs from the central directories: {fetched / 1e6:.2f} MB fetched "
          f"in {time.monotonic() - started:.0f} s")


@pytest.mark.parametrize("env", ENVS, ids=lambda e: e.name)
def test_tf_wheel_build_info_matches_the_checks(resolved, ssl_context, env):
    """setup.ps1's checks compare build_info's CUDA digits, cuDNN major and is_cuda_build, and need the VC++
    DLLs TF names: read them from the TF wheel."""
    url = next(i["url"] for i in resolved[env.name] if _norm(i["name"]) == "tensorflow")
    reader = RangeReader(url, ssl_context)
    entries = central_directory(reader)
    source = read_member(reader, entries["tensorflow/python/platform/build_info.py"]).decode("utf-8")
    values = build_info(source)
    cuda = values.get("cuda_version") or values.get("cuda_version_number")
    assert cuda and cuda.replace("64_", "").replace(".", "") == env.built_cuda.replace(".", ""), source
    cudnn = values.get("cudnn_version") or values.get("cudnn_version_number")
    assert cudnn and cudnn.replace("64_", "").split(".")[0] == env.cudnn.split(".")[0], source
    assert values.get("is_cuda_build") is True, source
    assert values["cudnn_dll_name"] in env.windows_dlls, source  # the matrix names the cuDNN DLL TF names
    msvcp = values.get("msvcp_dll_names") or values.get("msvcp_dll_name")
    assert msvcp and set(msvcp.split(",")) <= set(M.windows.vc_runtime), source
    assert reader.fetched < 5_000_000, f"read {reader.fetched} bytes of a TF wheel: the central directory only"


def test_no_wheel_path_is_longer_than_the_script_allows_for(resolved, ssl_context):
    """setup.ps1 refuses a venv whose site-packages plus windows.LONGEST_WHEEL_PATH reaches 260 characters
    without long-path support: no file in any wheel the Windows route installs may be longer."""
    urls = sorted({i["url"] for items in resolved.values() for i in items if i["url"].endswith(".whl")})

    def longest(url):
        return max(central_directory(RangeReader(url, ssl_context)), key=len)

    with ThreadPoolExecutor(8) as pool:
        found = max(pool.map(longest, urls), key=len)
    print(f"\nlongest path in {len(urls)} wheels: {len(found)} characters ({found})")
    assert len(found) <= windows.LONGEST_WHEEL_PATH, found
