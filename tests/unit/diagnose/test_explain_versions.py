"""The CUDA release read from a library name (builder.diagnose.versions) against every name matrix.yaml knows:
the sonames and DLL names of each environment, its shims and the Windows copies and WSL links of its CUDA stack.
A derived release must be one the matrix pairs the name with (or say '' when the name fits several)."""

from __future__ import annotations

import pytest

from builder import diagnose
from builder.diagnose.versions import as_printed, cuda_of_library, family, vkey
from builder.matrix.facts import facts_from_matrix
from tests.helpers import matrix

M = matrix()


def _named_releases():
    """(name, releases the matrix pairs it with): each name once, with every CUDA it appears under."""
    out = {}
    for env in M.envs.values():
        stack = env.cuda
        names = list(env.sonames) + list(env.optional_sonames) + list(env.windows_dlls)
        names += list(env.windows_optional_dlls) + [s.link for s in env.shims]
        built = {stack.version, env.built_cuda}
        for name in names:
            out.setdefault(name, set()).update(built)
        for shim in env.shims:
            out.setdefault(shim.to, set()).add(stack.version)
        if stack.windows:
            for copy in stack.windows.copies:
                out.setdefault(copy.source, set()).add(stack.version)
                out.setdefault(copy.to, set()).update(built)
        if stack.wsl:
            for link in stack.wsl.links:
                out.setdefault(link.link, set()).update(built)
    return sorted(out.items())


NAMES = _named_releases()


def test_the_walk_sees_every_kind_of_name():
    names = {n for n, _ in NAMES}
    assert {"libcudart.so.10.1", "libcublas.so.10", "cusolver64_10.dll", "cudart64_110.dll", "cudart64_102.dll",
            "cupti64_2020.1.1.dll", "libcupti.so.11.2"} <= names


@pytest.mark.parametrize("name,releases", NAMES, ids=[n for n, _ in NAMES])
def test_release_from_name_agrees_with_the_matrix(name, releases):
    derived = cuda_of_library(name)
    if not derived:
        return  # the name fits several releases (libcublas.so.10: 10.1 and 10.2) or none (the driver)
    if derived.endswith(".x"):
        assert any(vkey(r)[:1] == vkey(derived)[:1] for r in releases), (derived, releases)
    else:
        assert derived in releases, (derived, releases)


@pytest.mark.parametrize("name", [n for n, _ in NAMES if family(n) not in ("cudart", "cupti")])
def test_a_library_major_is_never_read_as_a_release(name):
    """libcublas.so.10 and cusolver64_10.dll name cuBLAS/cuSOLVER 10, not a 'CUDA 1.0'."""
    derived = cuda_of_library(name)
    assert derived == "" or vkey(derived) >= (7, 0), derived


@pytest.mark.parametrize("name,release", [
    ("libcublas.so.10", ""), ("cusolver64_10.dll", ""), ("cufft64_10.dll", ""), ("cublas64_11.dll", "11.x"),
    ("libcublas.so.12", "12.x"), ("cublasLt64_12.dll", "12.x"),
    ("cudart64_110.dll", "11.x"), ("cudart64_101.dll", "10.1"), ("libcudart.so.12", "12.x"),
    ("libcublas.so.10.0", "10.0"), ("cufft64_100.dll", "10.0"), ("cublas64_92.dll", "9.2"),
    ("libcupti.so.11.2", "11.2"), ("cupti64_2022.3.0.dll", ""),
])
def test_names_outside_the_matrix(name, release):
    assert cuda_of_library(name) == release



@pytest.mark.parametrize("name,fam,release", [
    ("cudnn_ops64_9.dll", "cudnn_ops", ""), ("libcudnn_ops.so.9", "cudnn_ops", ""),
    ("cudnn_cnn_infer64_8.dll", "cudnn_cnn_infer", ""), ("nvrtc-builtins64_121.dll", "nvrtc-builtins", "12.1"),
    ("libnvrtc-builtins.so.11.8", "nvrtc-builtins", "11.8"), ("nvrtc64_112_0.dll", "nvrtc", "11.x"),
    ("nvrtc64_120_0.dll", "nvrtc", "12.x"), ("libnvrtc.so.12", "nvrtc", "12.x"),
    ("libnvJitLink.so.12", "nvjitlink", "12.x"), ("libcusparse.so.12", "cusparse", ""), ("libnccl.so.2", "nccl", ""),
])
def test_other_programs_names(name, fam, release):
    """Libraries other programs' loaders name: cuDNN 9's and 8's sub-libraries (their major is cuDNN's, never a
    CUDA release), NVRTC's builtins and DLLs (one name per major since 11.2), nvJitLink; cuSPARSE 12 and NCCL 2
    name no CUDA release."""
    assert (family(name), cuda_of_library(name)) == (fam, release)


@pytest.mark.parametrize("text,printed", [
    ("580.173.02", "580.173.02"), ("470.82.01)", "470.82.01"), ("535.104.05  Tue Jun", "535.104.05"),
    ("418.87", "418.87"), ("v2", ""),
])
def test_a_driver_version_reads_as_printed(text, printed):
    """The kernel module's 580.173.02 stays 580.173.02 (not 580.173.2), the way nvidia-smi shows it."""
    assert as_printed(text) == printed


def test_the_kernel_modules_version_is_shown_with_its_zeros():
    log = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.173.02  Tue Jun 23 08:38:17 UTC 2026\n"
    assert diagnose.explain(log, facts_from_matrix(M)).context.driver.value == "580.173.02"
