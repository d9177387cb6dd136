"""The fixes of driver-too-old, container-driver-too-old, python-unsupported, gpu-too-new and missing-cuda-runtime carry
the versions of matrix.yaml's tables, for every row of them, not just the logs seen: NVIDIA's driver minimum of every
CUDA release, TensorFlow's tested configuration of every TF line (Python range, CUDA), the first CUDA of every GPU
generation. Each case is the program's own message (as the catalogue has it) with the versions of one row."""

from __future__ import annotations

import pytest

from builder import diagnose
from builder.diagnose.versions import vkey
from builder.matrix.facts import facts_from_matrix
from tests.helpers import matrix

FACTS = facts_from_matrix(matrix())
DRIVERS = FACTS["cuda_drivers"]
TESTED = FACTS["tf_tested"]
ARCHS = FACTS["first_cuda_for_arch"]
NEWEST_TF = list(TESTED)[-1]


def top(log, platform=None):
    result = diagnose.explain(log, FACTS, platform=platform)
    assert result.findings, "nothing recognised"
    return result.findings[0]


@pytest.mark.parametrize("cuda", sorted(DRIVERS, key=vkey))
def test_container_toolkit_names_the_host_driver_of_the_images_cuda(cuda):
    f = top(f"nvidia-container-cli: requirement error: unsatisfied condition: cuda>={cuda}, please update your driver "
            f"to a newer version, or use an earlier cuda container: unknown")
    assert f.id == "container-driver-too-old"
    assert DRIVERS[cuda]["linux"] in f.fix and "host driver" in f.fix and "older CUDA" in f.fix, f.fix


@pytest.mark.parametrize("cuda", sorted(DRIVERS, key=vkey))
def test_a_tesla_branch_condition_still_names_the_minimum_of_the_images_cuda(cuda):
    """`driver >= 410` fails with `cuda>=10.0`: the hook's --require arguments say which CUDA the image wants."""
    f = top(f"exec command: [/usr/bin/nvidia-container-cli --load-kmods configure --require=cuda>={cuda} "
            f"brand=tesla,driver>=418,driver<419 --pid=1 /var/lib/docker/merged]\n"
            f"nvidia-container-cli: requirement error: unsatisfied condition: driver >= 418\n")
    assert f.id == "container-driver-too-old"
    assert DRIVERS[cuda]["linux"] in f.fix and "host driver" in f.fix, f.fix


@pytest.mark.parametrize("cuda", sorted(DRIVERS, key=vkey))
def test_xla_names_the_driver_minimum_of_its_ptxas(cuda):
    f = top(f"W external/xla/xla/service/gpu/nvptx_compiler.cc:744] The NVIDIA driver's CUDA version is 9.0 which is "
            f"older than the ptxas CUDA version ({cuda}.107). Because the driver is older than the ptxas version, XLA "
            f"is disabling parallel compilation", platform="linux")
    assert f.id == "driver-too-old"
    assert DRIVERS[cuda]["linux"] in f.fix, f.fix


def _tf_cudas(tf):
    """The CUDA releases a TF line is paired with: the environments' stacks, else TensorFlow's tested one."""
    envs = [e["cuda"] for e in FACTS["envs"].values() if e["tensorflow"].startswith(tf + ".")]
    return envs or [TESTED[tf]["cuda"]]


@pytest.mark.parametrize("tf", [tf for tf in TESTED if any(c in DRIVERS for c in _tf_cudas(tf))])
def test_the_driver_minimum_of_the_cuda_a_tf_line_was_built_with(tf):
    f = top(f"Name: tensorflow\nVersion: {tf}.0\ntensorflow.python.framework.errors_impl.InternalError: "
            f"cudaGetDevice() failed. Status: CUDA driver version is insufficient for CUDA runtime version",
            platform="linux")
    assert f.id == "driver-too-old"
    assert any(DRIVERS[c]["linux"] in f.fix for c in _tf_cudas(tf) if c in DRIVERS), f.fix


@pytest.mark.parametrize("cuda", [c for c in sorted(DRIVERS, key=vkey)
                                  if any(vkey(r["cuda"]) <= vkey(c) for r in TESTED.values())])
def test_a_known_driver_names_the_newest_tf_it_runs(cuda):
    """nvidia-smi's driver at exactly the minimum of `cuda`: it runs that CUDA and the newest TF built with no newer."""
    driver = DRIVERS[cuda]["linux"]
    f = top(f"| NVIDIA-SMI {driver}    Driver Version: {driver}    CUDA Version: {cuda}     |\n"
            f"CUDA driver version is insufficient for CUDA runtime version", platform="linux")
    assert f.id == "driver-too-old"
    runs = max((c for c, m in DRIVERS.items() if vkey(m["linux"]) <= vkey(driver)), key=vkey)
    tf = [t for t, r in TESTED.items() if vkey(r["cuda"]) <= vkey(runs)][-1]
    assert f"runs CUDA {runs} and older: TF {tf} and older" in f.fix, f.fix


def _python_cases():
    pythons = [f"3.{minor}" for minor in range(3, 14)]
    for tf, row in TESTED.items():
        low, high = row["python"]
        for py in pythons:
            if not vkey(low) <= vkey(py) <= vkey(high):
                yield tf, py


@pytest.mark.parametrize("tf,python", list(_python_cases()))
def test_python_outside_a_tf_lines_range(tf, python):
    f = top(f"$ python --version\nPython {python}.1\n$ pip install tensorflow=={tf}.0\n"
            f"ERROR: Could not find a version that satisfies the requirement tensorflow=={tf}.0\n"
            f"ERROR: No matching distribution found for tensorflow=={tf}.0\n", platform="linux")
    assert f.id == "python-unsupported"
    low, high = TESTED[tf]["python"]
    fit = [t for t, r in TESTED.items() if vkey(r["python"][0]) <= vkey(python) <= vkey(r["python"][1])]
    if not fit:
        low, high = TESTED[NEWEST_TF]["python"]
        assert f"up to {NEWEST_TF} has wheels for Python {python}" in f.fix, f.fix
    else:
        assert f"TF {tf} has wheels for Python {low}-{high} only" in f.fix, f.fix
        which = fit[0] if vkey(python) > vkey(high) else fit[-1]
        assert f"TF {which} " in f.fix, f.fix
    assert f"Python {high}" in f.fix, f.fix


@pytest.mark.parametrize("tf", [tf for tf, r in TESTED.items() if r["windows_python"] != r["python"]])
def test_windows_takes_the_windows_range(tf):
    f = top(f"C:\\Users\\me>pip install tensorflow=={tf}.0\n"
            f"ERROR: Could not find a version that satisfies the requirement tensorflow=={tf}.0 (from versions: none)\n"
            f"ERROR: No matching distribution found for tensorflow=={tf}.0\n", platform="windows")
    low, high = TESTED[tf]["windows_python"]
    assert f"Python {low}-{high}" in f.fix and f"py -{high} -m venv" in f.fix, f.fix


@pytest.mark.parametrize("cc", sorted(ARCHS, key=vkey))
def test_a_gpu_newer_than_the_build_names_its_first_cuda(cc):
    f = top(f"I tensorflow/core/common_runtime/gpu/gpu_device.cc:1561] Found device 0 with properties:\n"
            f"pciBusID: 0000:01:00.0 name: NVIDIA GPU computeCapability: {cc}\n"
            f"W tf_gpu_runtime_wrappers.cc:40] 'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'",
            platform="linux")
    assert f.id == "gpu-too-new"
    first = ARCHS[cc]
    if vkey(first) > vkey(TESTED[NEWEST_TF]["cuda"]):  # no TF line is built with a CUDA that knows it
        assert "NGC" in f.fix and "from source" in f.fix and cc in f.fix and first in f.fix, f.fix
    elif vkey(cc) > (8, 6):
        assert f"CUDA {first} or newer" in f.fix, f.fix


@pytest.mark.parametrize("cc", sorted(ARCHS, key=vkey))
def test_a_ptxas_older_than_the_gpu_names_its_first_cuda(cc):
    f = top(f"ptxas fatal   : Value 'sm_{cc.replace('.', '')}' is not defined for option 'gpu-name'", platform="linux")
    assert f.id == "gpu-too-new" and f"CUDA {ARCHS[cc]} or newer" in f.fix, f.fix


def _major_pairs():
    majors = sorted({vkey(r["cuda"])[0] for r in TESTED.values() if vkey(r["cuda"])[0] >= 11})  # cuBLAS = toolkit
    for want in majors:
        for have in sorted(DRIVERS, key=vkey):
            if vkey(have)[0] != want and vkey(have)[0] >= 9:
                yield want, have


@pytest.mark.parametrize("want,have", list(_major_pairs()))
def test_a_library_of_another_cuda_major_names_both(want, have):
    f = top(f"Could not load library libcublas.so.{want}. Error: libcublas.so.{want}: cannot open shared object file: "
            f"No such file or directory\n"
            f"\tlibcublas.so (libc6,x86-64) => /usr/local/cuda-{have}/targets/x86_64-linux/lib/libcublas.so\n",
            platform="linux")
    assert f.id == "missing-cuda-runtime"
    assert f"CUDA {want}'s" in f.fix and f"(CUDA {vkey(have)[0]})" in f.fix and f"nvidia-*-cu{want}" in f.fix, f.fix
