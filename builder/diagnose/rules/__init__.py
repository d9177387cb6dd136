"""The rule registry: one module per rule, each with ID and check(log, ctx) -> Finding or None.

Order does not matter here: findings are sorted by rank (root causes first; harmless notes rank last unless
they explain the rest), and a finding drops the ones it supersedes (a container's compat libcuda explains the
"no device" that follows it).
"""

from builder.diagnose.rules import (
    container_device_request,
    container_driver_too_old,
    container_image_driver_libs,
    container_no_host_driver,
    container_nvml_lost,
    container_toolkit_missing,
    cpu_no_avx,
    cublas_init_failed,
    cuda_factory_harmless,
    cudnn_init_failed,
    cudnn_version_mismatch,
    cuinit_error,
    dll_load_failed,
    dll_load_failed_other,
    docker_too_old,
    driver_dso_mismatch,
    driver_too_old,
    gpu_out_of_memory,
    gpu_too_new,
    gpu_too_old,
    jetson_container,
    libcuda_missing,
    libcuda_stub,
    missing_cuda_runtime,
    missing_cudnn,
    msvc_runtime,
    no_gpu_harmless,
    no_gpu_visible,
    numa_harmless,
    numpy2,
    numpy_too_old,
    optional_library,
    protobuf4,
    python_unsupported,
    store_python,
    tf24_cusolver,
    windows_gpu_after_210,
    wsl1,
    wsl_gpu_unavailable,
    wsl_lib_path,
    wsl_libcuda_symlink,
    wsl_linux_driver,
    wsl_pinned_memory_limit,
    xla_libdevice,
    zlibwapi,
)

RULES = [
    wsl1, wsl_linux_driver, windows_gpu_after_210, python_unsupported, cpu_no_avx, store_python, msvc_runtime,
    numpy2, protobuf4, driver_too_old, driver_dso_mismatch, tf24_cusolver, missing_cuda_runtime, zlibwapi,
    missing_cudnn, libcuda_missing, libcuda_stub, no_gpu_visible, cudnn_version_mismatch, xla_libdevice, gpu_too_new,
    cudnn_init_failed, gpu_out_of_memory, dll_load_failed, dll_load_failed_other, no_gpu_harmless, optional_library,
    container_toolkit_missing, container_device_request, docker_too_old, container_driver_too_old,
    container_image_driver_libs, container_no_host_driver,
    container_nvml_lost, jetson_container, wsl_libcuda_symlink, wsl_gpu_unavailable, wsl_lib_path, numa_harmless,
    cuinit_error, gpu_too_old, cublas_init_failed, cuda_factory_harmless, numpy_too_old, wsl_pinned_memory_limit,
]
IDS = sorted({rule.ID for rule in RULES})  # a cause may have two rules (a named DLL, a bare "DLL load failed")


def run(log, ctx):
    """Every finding, root cause first, without the ones a finding above explains."""
    findings = [f for f in (rule.check(log, ctx) for rule in RULES) if f is not None]
    findings.sort(key=lambda f: (f.rank, f.evidence[:1]))  # equal ranks: what the log shows first
    dropped = {s for f in findings for s in f.supersedes}
    return fatal_first(log, [f for f in findings if f.id not in dropped])


def fatal_first(log, findings):
    """A log that ends the process (an `F` line, a failed CHECK, an abort, a segfault) is never summed up as
    harmless: what explains the fatal line comes first, then the other problems, harmless notes last."""
    fatal = {ev.line for ev in log.all("fatal")}
    if not fatal:
        return findings
    last = max(fatal)

    def order(f):
        on_fatal = bool(fatal & set(f.evidence))
        before = any(n <= last for n in f.evidence)
        return (f.harmless, not on_fatal, not before, f.rank)

    return sorted(findings, key=order)
