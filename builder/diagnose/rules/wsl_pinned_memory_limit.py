"""WSL 2 limits pinned (page-locked) system memory: NVIDIA's CUDA on WSL guide lists it among the known limitations
of Linux CUDA applications there. A pinned host allocation failing under WSL 2 (TF's host allocator, ggml-cuda's
pinned buffers, cudaHostAlloc, PyTorch's pin_memory with "CUDA error: out of memory") is this cause, not the GPU's
memory: it wins over gpu-out-of-memory. Outside WSL 2 the same lines are left to the other rules."""

from builder.diagnose.finding import Finding
from builder.diagnose.i18n import t
from builder.diagnose.rules._common import lines

ID = "wsl-pinned-memory-limit"


def check(log, ctx):
    off = log.first("pin_memory_off_wsl")
    if off:
        return _turned_off(off)
    if ctx.platform.value != "wsl2":
        return None
    evidence = log.all("pinned_alloc_failed")[:2]
    if not evidence and log.has("torch_cuda_oom"):
        evidence = log.all("pin_memory_frame")[-1:] + log.all("torch_cuda_oom")[:1]
    # ggml-cuda's early CUDA_CHECK abort ("CUDA error 2 at ggml-cuda.cu:%d: out of memory"), before it fell back from
    # a failed pinned buffer: under WSL 2 the pinned buffer is the usual one to fail (GGML_CUDA_NO_PINNED=1 fixed it)
    ggml = not evidence and [ev for ev in log.all("oom") if ev.groups[0].startswith("CUDA error 2 at")
                             and "ggml" in ev.groups[0]][:1]
    if ggml:
        evidence = ggml
    if not evidence:
        return None
    cause = t("The allocation that failed is pinned (page-locked) host memory, which WSL 2 limits (a known limitation "
              "in NVIDIA's CUDA on WSL guide); the GPU itself still has memory free.")
    # pinned pages come out of the WSL 2 VM's memory, which .wslconfig's [wsl2] memory= sets (Microsoft's WSL
    # settings page: half the Windows RAM by default; docs/sources.md §5)
    fix = t("use less pinned memory: PyTorch `pin_memory=False` (DataLoader, tensors), llama.cpp "
            "`GGML_CUDA_NO_PINNED=1`, smaller host buffers or batches for TF; or give the WSL 2 VM more memory "
            "(`memory=` under `[wsl2]` in .wslconfig in your Windows user folder, half the RAM by default; then "
            "`wsl --shutdown`); or run the job on native Linux, where pinned memory is not limited this way")
    if ggml:  # the abort does not say which allocation failed: pinned first, then the GPU's
        cause = t("ggml-cuda stopped on an allocation that ran out of memory; under WSL 2, which limits pinned "
                  "(page-locked) host memory, that is usually one of its pinned host buffers.")
        fix = t("set GGML_CUDA_NO_PINNED=1 and run again (ggml-cuda then uses ordinary host memory); if it still "
                "fails, it is the GPU's memory: offload fewer layers (-ngl) or use a smaller model")
    return Finding(ID, t("WSL 2 limits pinned host memory"), lines(evidence), cause, fix,
                   t("nothing tfenv changes: this is a WSL 2 limit"), rank=45, supersedes=("gpu-out-of-memory",))


def _turned_off(ev):
    """vLLM's own note that it found WSL and runs without pinned memory: the limit, met before anything failed."""
    cause = t("vLLM found that it runs in WSL 2, which limits pinned (page-locked) host memory (a known limitation in "
              "NVIDIA's CUDA on WSL guide), and turned pinned memory off: copies between CPU and GPU are slower, "
              "nothing is broken.")
    fix = t("nothing to repair in WSL 2: pin_memory=False is vLLM's answer to that limit; to get the full speed, run "
            "vLLM on native Linux, where pinned memory is not limited this way")
    return Finding(ID, t("WSL 2 limits pinned host memory: vLLM runs without it"), [ev.line], cause, fix,
                   t("nothing tfenv changes: this is a WSL 2 limit"), rank=45, supersedes=("gpu-out-of-memory",))
