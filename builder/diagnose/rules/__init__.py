"""The rule registry: one module per rule, each with ID and check(log, ctx) -> Finding or None.

Order does not matter here: findings are sorted by rank (root causes first; harmless notes rank last unless
they explain the rest), and a finding drops the ones it supersedes (a container's compat libcuda explains the
"no device" that follows it).
"""

from builder.diagnose.rules import (
    cpu_no_avx,
    cudnn_init_failed,
    cudnn_version_mismatch,
    dll_load_failed_other,
    driver_dso_mismatch,
    driver_too_old,
    gpu_out_of_memory,
    gpu_too_new,
    libcuda_missing,
    missing_cuda_runtime,
    missing_cudnn,
    msvc_runtime,
    no_gpu_harmless,
    no_gpu_visible,
    numpy2,
    optional_library,
    protobuf4,
    python_unsupported,
    store_python,
    tf24_cusolver,
    windows_gpu_after_210,
    wsl1,
    wsl_linux_driver,
    xla_libdevice,
    zlibwapi,
)

RULES = [
    wsl1, wsl_linux_driver, windows_gpu_after_210, python_unsupported, cpu_no_avx, store_python, msvc_runtime,
    numpy2, protobuf4, driver_too_old, driver_dso_mismatch, tf24_cusolver, missing_cuda_runtime, zlibwapi,
    missing_cudnn, libcuda_missing, no_gpu_visible, cudnn_version_mismatch, xla_libdevice, gpu_too_new,
    cudnn_init_failed, gpu_out_of_memory, dll_load_failed_other, no_gpu_harmless, optional_library,
]
IDS = [rule.ID for rule in RULES]


def run(log, ctx):
    """Every finding, root cause first, without the ones a finding above explains."""
    findings = [f for f in (rule.check(log, ctx) for rule in RULES) if f is not None]
    findings.sort(key=lambda f: f.rank)
    dropped = {s for f in findings for s in f.supersedes}
    return [f for f in findings if f.id not in dropped]
