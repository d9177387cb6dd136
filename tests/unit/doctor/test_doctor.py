"""tfenv doctor on fake hosts (directory trees + the fake nvidia-smi), and its pieces."""

from __future__ import annotations

import pytest

from builder import doctor
from builder.matrix.facts import facts_from_matrix
from tests.fakes import hosts
from tests.helpers import FAKES, matrix


@pytest.fixture(scope="module")
def facts():
    return facts_from_matrix(matrix())


def by_id(report):
    return {c.id: c for c in report.checks}


def test_old_driver_for_cuda112_env_fails_and_recommends_what_it_runs(tmp_path, facts):
    report = doctor.diagnose(facts, hosts.old_driver_host(tmp_path), "tf29")
    checks = by_id(report)
    assert checks["gpu"].status == "ok" and "compute capability not reported" in checks["gpu"].message
    assert checks["driver"].status == "fail"
    assert "418.87.01 is too old for CUDA 11.2.2 (Linux minimum 460.32.03, 450.80.02 with minor-version" \
        in checks["driver"].message
    assert checks["driver"].fix == "update the driver to >= 450.80.02, or use tf23 (the newest environment this " \
                                   "driver runs)"
    assert checks["cuda-max"].message == "driver 418.87.01 supports CUDA up to 10.1; of the matrix's CUDA versions " \
                                         "it runs 10.1"
    assert checks["libraries"].status == "ok"  # the libraries are there: only the driver is wrong
    assert [c.id for c in report.failed] == ["driver"]
    assert report.recommendation["env"] == "tf23"


def test_driver_between_compat_and_ga_minimum_warns_about_minor_version_compatibility(tmp_path, facts):
    host = hosts.old_driver_host(tmp_path)
    host.environ.update(hosts.smi_env(driver="455.45.01", cc="8.6", cuda="11.1"))
    report = doctor.diagnose(facts, host, "tf29")
    driver = by_id(report)["driver"]
    assert driver.status == "warn" and "minor-version compatibility" in driver.message
    assert report.recommendation["env"] == "tf210" and "PTX JIT" in report.recommendation["note"]
    assert not report.failed


def test_driver_440_runs_at_most_cuda_102(tmp_path, facts):
    assert doctor.supported_cuda(facts, "440.33.01", "linux") == [("10.2", False), ("10.1", False)]
    assert doctor.recommend(facts, "440.33.01", "linux") == ("tf23", False)
    assert doctor.recommend(facts, "441.22", "windows") == ("tf23", False)
    assert doctor.recommend(facts, "410.48", "linux") is None


def test_cuda102_install_for_tf22_proposes_the_shim_link(tmp_path, facts):
    report = doctor.diagnose(facts, hosts.cuda102_host(tmp_path), "tf22")
    checks = by_id(report)
    cudart = checks["lib:libcudart.so.10.1"]
    assert cudart.status == "fail"
    assert cudart.message == "libcudart.so.10.1 not found; found libcudart.so.10.2 instead"
    assert cudart.fix == ("ln -s libcudart.so.10.2 /usr/local/cuda-10.2/targets/x86_64-linux/lib/libcudart.so.10.1 "
                          "(the link tfenv's tf22 image tests)")
    assert checks["lib:libcupti.so.10.1"].status == "warn"  # found .so.10.2; only the profiler loads it
    assert [c.id for c in report.failed] == ["libraries", "lib:libcudart.so.10.1"]
    assert checks["libraries"].message.startswith("7 of 9 libraries tf22 loads are where the loader looks")
    assert checks["driver"].status == "ok"


def test_shim_link_really_fixes_the_tree(tmp_path, facts):
    host = hosts.cuda102_host(tmp_path)
    lib = tmp_path / "usr/local/cuda-10.2/targets/x86_64-linux/lib"
    (lib / "libcudart.so.10.1").symlink_to("libcudart.so.10.2")  # what the fix line says
    report = doctor.diagnose(facts, host, "tf22")
    assert not report.failed, [c for c in report.failed]


def test_other_env_suggests_the_one_that_fits_the_installed_cuda(tmp_path, facts):
    report = doctor.diagnose(facts, hosts.cuda102_host(tmp_path), "tf29")
    checks = by_id(report)
    assert checks["lib:libcudart.so.11.0"].message.endswith("found libcudart.so.10.2 instead (another CUDA version)")
    assert checks["lib:libcudart.so.11.0"].fix.endswith("or use tf22, which fits the installed CUDA libraries")
    assert checks["driver"].status == "fail"


def test_library_outside_the_loader_path_gets_ld_library_path_fix(tmp_path, facts):
    host = hosts.cuda102_host(tmp_path, ld_conf=False)
    checks = by_id(doctor.diagnose(facts, host, "tf22"))
    assert checks["lib:libcublas.so.10"].message == (
        "libcublas.so.10 is in /usr/local/cuda-10.2/targets/x86_64-linux/lib, where the loader does not look")
    assert checks["lib:libcublas.so.10"].fix == (
        "export LD_LIBRARY_PATH=/usr/local/cuda-10.2/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    host.environ["LD_LIBRARY_PATH"] = "/usr/local/cuda-10.2/targets/x86_64-linux/lib"
    assert "lib:libcublas.so.10" not in by_id(doctor.diagnose(facts, host, "tf22"))


def test_windows_with_only_cudart64_102(tmp_path, facts):
    report = doctor.diagnose(facts, hosts.windows_cudart102_host(tmp_path), "tf23")
    checks = by_id(report)
    assert checks["platform"].message == "Windows, Python 3.8.10"
    assert checks["driver"].message == "driver 442.50 >= 418.96, the Windows minimum for CUDA 10.1.243"
    cudart = checks["lib:cudart64_101.dll"]
    assert cudart.message == "cudart64_101.dll not found; found cudart64_102.dll instead"
    bin_dir = tmp_path / "Program Files/NVIDIA GPU Computing Toolkit/CUDA/v10.2/bin"
    assert cudart.fix == f'copy "{bin_dir}/cudart64_102.dll" "{bin_dir}/cudart64_101.dll" ' \
                         "(the link tfenv's tf22 image tests)"
    assert checks["lib:missing"].message == ("not found anywhere: cublas64_10.dll, cufft64_10.dll, curand64_10.dll, "
                                             "cusolver64_10.dll, cusparse64_10.dll, cudnn64_7.dll")
    # matrix.yaml's sonames.tf2.2.windows_optional: CUPTI is the profiler's, so it is named but not a failure
    assert checks["libraries"].message.endswith("; optional, not found: cupti64_101.dll")
    assert "lib:driver" not in checks  # nvcuda.dll is in System32
    assert checks["docker"].status == "warn"  # no docker CLI on this fake PATH


def test_windows_dlls_in_a_venvs_nvidia_wheels_are_found_beside_path(tmp_path, facts):
    """NVIDIA's win_amd64 wheels put their DLLs in site-packages\\nvidia\\<pkg>\\bin: doctor finds them there and
    says to put that folder on PATH (what tfenv's venv hook does), not that they are missing."""
    host = hosts.windows_cudart102_host(tmp_path)
    site = tmp_path / "venv" / "Lib" / "site-packages"
    hosts.tree(tmp_path, [str((site / "nvidia" / "cudnn" / "bin" / "cudnn64_8.dll").relative_to(tmp_path))])
    host.site_dirs = [str(site)]
    checks = by_id(doctor.diagnose(facts, host, "tf29"))
    cudnn = checks["lib:cudnn64_8.dll"]
    assert cudnn.status == "fail" and cudnn.message.startswith("cudnn64_8.dll is in ")
    assert cudnn.fix == f"set PATH={site / 'nvidia' / 'cudnn' / 'bin'};%PATH%"


def test_wsl2_with_a_linux_driver_installed_inside(tmp_path, facts):
    report = doctor.diagnose(facts, hosts.wsl_host(tmp_path, linux_driver=True), "tf29")
    checks = by_id(report)
    assert checks["platform"].message == "Linux (WSL2), Python 3.8.10"
    assert checks["wsl:dxg"].status == "ok" and checks["wsl:libcuda"].status == "ok"
    inside = checks["wsl:linux-driver"]
    assert inside.status == "fail"
    assert inside.message == ("a Linux NVIDIA driver is installed inside WSL: nvidia-driver-470, "
                              "/usr/lib/x86_64-linux-gnu/libcuda.so.1, "
                              "/usr/lib/x86_64-linux-gnu/libcuda.so.470.103.01, /usr/bin/nvidia-smi")
    assert inside.fix.startswith("sudo apt-get purge nvidia-driver-470; install only cuda-toolkit-X-Y")
    # WSL2 runs the Windows driver: its version is checked against the Windows table
    assert checks["driver"].message == "driver 511.65 >= 461.33, the Windows minimum for CUDA 11.2.2"
    assert [c.id for c in report.failed] == ["wsl:linux-driver"]


def test_clean_wsl2_passes_and_missing_dxg_fails(tmp_path, facts):
    assert not doctor.diagnose(facts, hosts.wsl_host(tmp_path / "a"), "tf29").failed
    checks = by_id(doctor.diagnose(facts, hosts.wsl_host(tmp_path / "b", dxg=False), "tf29"))
    assert checks["wsl:dxg"].status == "fail" and "wsl --update" in checks["wsl:dxg"].fix


def test_wsl_libcuda_outside_loader_path(tmp_path, facts):
    host = hosts.wsl_host(tmp_path)
    (tmp_path / "etc/ld.so.conf.d/ld.wsl.conf").unlink()
    driver = by_id(doctor.diagnose(facts, host, "tf29"))["lib:driver"]
    assert driver.message == "libcuda.so.1 is in /usr/lib/wsl/lib, where the loader does not look"
    assert driver.fix == "export LD_LIBRARY_PATH=/usr/lib/wsl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"


def test_no_driver_and_failing_nvidia_smi(tmp_path, facts):
    gpu = by_id(doctor.diagnose(facts, hosts.linux_host(tmp_path / "a"), "tf29"))["gpu"]
    assert gpu.status == "fail" and gpu.message == "no NVIDIA GPU visible: nvidia-smi not found"
    broken = hosts.linux_host(tmp_path / "b", smi=hosts.smi_env(fail=True))
    gpu = by_id(doctor.diagnose(facts, broken, "tf29"))["gpu"]
    assert gpu.message.startswith("nvidia-smi failed: NVIDIA-SMI has failed because it couldn't communicate")


def test_python_outside_range_warns(tmp_path, facts):
    host = hosts.old_driver_host(tmp_path)
    host.python = (3, 11, 7)
    python = by_id(doctor.diagnose(facts, host, "tf29"))["python"]
    assert python.status == "warn" and "outside TensorFlow 2.9.3's 3.7-3.10" in python.message


def test_installed_tensorflow_metadata_picks_the_env_without_importing(tmp_path, facts):
    host = hosts.cuda102_host(tmp_path / "root")
    dist = tmp_path / "site" / "tensorflow_gpu-2.2.3.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow-gpu\nVersion: 2.2.3\n")
    host.site_dirs = [str(tmp_path / "site")]
    report = doctor.diagnose(facts, host)
    assert report.env == "tf22"  # tf22 (CUDA 10.2 + shim) fits the installed libraries; tf22-cuda101 does not
    assert report.env_reason == "installed tensorflow-gpu 2.2.3"
    assert by_id(report)["tensorflow"].status == "ok"


def test_unknown_env_and_missing_facts_are_doctor_errors(tmp_path, facts):
    host = hosts.linux_host(tmp_path)
    with pytest.raises(doctor.DoctorError, match="unknown environment 'tf99'"):
        doctor.diagnose(facts, host, "tf99")
    with pytest.raises(doctor.DoctorError, match="no matrix facts"):
        doctor.diagnose(None, host, "tf29")
    assert by_id(doctor.diagnose(None, host))["facts"].status == "warn"


@pytest.mark.parametrize(("soname", "dll"), [
    ("libcudart.so.10.1", "cudart64_101.dll"), ("libcudart.so.10.2", "cudart64_102.dll"),
    ("libcudart.so.11.0", "cudart64_110.dll"), ("libcublas.so.11", "cublas64_11.dll"),
    ("libcublasLt.so.11", "cublasLt64_11.dll"), ("libcusolver.so.10", "cusolver64_10.dll"),
    ("libcudnn.so.7", "cudnn64_7.dll"), ("libcupti.so.11.2", "cupti64_112.dll"), ("libcuda.so.1", "nvcuda.dll"),
])
def test_dll_names(soname, dll):
    assert doctor.dll_name(soname) == dll


def test_parse_ldconfig():
    text = ("1034 libs found in cache `/etc/ld.so.cache'\n"
            "\tlibcudart.so.11.0 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudart.so.11.0\n"
            "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1\n"
            "\tlibcuda.so.1 (libc6) => /usr/lib/i386-linux-gnu/libcuda.so.1\n")
    assert doctor.parse_ldconfig(text) == {"libcudart.so.11.0": "/usr/lib/x86_64-linux-gnu/libcudart.so.11.0",
                                           "libcuda.so.1": "/usr/lib/wsl/lib/libcuda.so.1"}


TF_LOG = (FAKES / "tf-loader-lines.log").read_text(encoding="utf-8")


def test_parse_tf_log():
    log = doctor.parse_tf_log(TF_LOG)
    assert log["missing"] == {
        "libcudart.so.11.0": "libcudart.so.11.0: cannot open shared object file: No such file or directory",
        "libcuda.so.1": "libcuda.so.1: cannot open shared object file: No such file or directory",
        "cudart64_101.dll": "cudart64_101.dll not found",
    }
    assert (log["cuinit"], log["gpus"], log["version"]) == ("UNKNOWN ERROR (303)", 0, "2.9.3")


def test_import_check_reports_tensorflow_missing(tmp_path):
    host = doctor.Host.current()
    host.environ["PYTHONPATH"] = ""
    host.python_exe = hosts.sys_python_without_site()
    (check,) = doctor.check_import(host)
    assert check.status == "fail" and check.message == (
        "import tensorflow failed: ModuleNotFoundError: No module named 'tensorflow'")


def test_import_check_reads_tfs_log_with_the_explain_core(tmp_path, facts):
    """A FAKE runner stands in for the interpreter: it prints what TF 2.9 prints on a host without CUDA 11."""
    def runner(args, env, timeout):
        assert args[1:3] == ["-c", doctor.tfimport.IMPORT_CODE] and env["TF_CPP_MIN_LOG_LEVEL"] == "0"
        return doctor.Run(0, "TFENV_TF=2.9.3\nTFENV_GPUS=0\n", TF_LOG)

    host = hosts.linux_host(tmp_path)
    host.runner = runner
    checks = doctor.check_import(host, facts)
    ids = [c.id for c in checks]
    assert ids[:3] == ["import:lib", "import:lib", "import:lib"] and ids[-1] == "import"
    explained = {c.id: c for c in checks if c.id.startswith("explain:")}
    assert explained["explain:missing-cuda-runtime"].status == "fail"
    assert "cudart" in explained["explain:missing-cuda-runtime"].message
    assert checks[-1].message == "TensorFlow 2.9.3 sees no GPU; cuInit: UNKNOWN ERROR (303)"
