"""Image benchmarks for one environment (default tf29 on debian11): a script, not a timed test.

Prints and saves (benchmarks/results/images-ENV-OS.json):
- image size against its payload: TF's venv site-packages (cuDNN wheel included), the CUDA libraries TF
  loads (each soname resolved with `ldconfig -p` in the container), the Python standard library and
  interpreter; target ratio <= 1.15;
- cold build (--no-cache, downloads included; skip with --skip-cold), warm no-op rebuild, and the rebuild
  after changing only the TF version (builds --tf-change ENV, default tf28, then removes it), with layer
  cache hits;
- CLI start time (`tfenv --help`, median of 10).

    PYTHONPATH=. python benchmarks/bench_images.py --base-image tfenv/debian:bullseye \
        --ca-cert /etc/ssl/certs/ca-certificates.crt
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from builder.core import files, progress  # noqa: E402
from builder.docker import daemon, images  # noqa: E402
from builder.matrix import validate  # noqa: E402

# Runs inside the image: sizes in bytes (apparent size, as Docker counts), hard links counted once.
MEASURE = r"""
import json, os, subprocess, sys, sysconfig
seen = set()
def du(path):
    total = 0
    for root, dirs, files in os.walk(path):
        for name in files:
            st = os.lstat(os.path.join(root, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino)); total += st.st_size
    return total
site = sysconfig.get_paths()["purelib"]
stdlib = sysconfig.get_paths()["stdlib"]
exe = os.path.realpath(sys.executable)
out = {"site_packages": du(site), "stdlib": du(stdlib), "interpreter": os.path.getsize(exe)}
cache = {}
for line in subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout.splitlines()[1:]:
    name, _, path = line.strip().partition(" => ")
    cache.setdefault(name.split()[0], path)
cuda, missing = {}, []
for so in sys.argv[1].split(","):
    path = cache.get(so)
    if not path:
        missing.append(so); continue
    real = os.path.realpath(path)
    if not real.startswith(site):  # the cuDNN wheel is counted with site-packages already
        st = os.lstat(real)
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino)); cuda[so] = st.st_size
out["cuda_libs"] = cuda; out["missing"] = missing
print(json.dumps(out))
"""


def measure_payload(c, ref: str, sonames: str) -> dict:
    container = c.containers.create(ref, ["python", "-c", MEASURE, sonames], user="0",
                                    labels={"io.tfenv.test": f"bench-{uuid.uuid4().hex[:8]}"})
    try:
        container.start()
        code = container.wait(timeout=300)["StatusCode"]
        logs = container.logs(stdout=True, stderr=False).decode()
        if code != 0:
            raise SystemExit(f"payload measurement failed: {container.logs().decode()[-2000:]}")
        return json.loads(logs.strip().splitlines()[-1])
    finally:
        container.remove(force=True)


def layer_sizes(c, ref: str) -> list[tuple[int, str]]:
    return [(h["Size"], h["CreatedBy"][-90:]) for h in c.api.history(ref) if h["Size"] > 1e6]


def cli_start(n: int = 10) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "builder.cli", "--help"], cwd=ROOT, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def build(m, env, os_name, opts, **changes):
    target = m.target(env, os_name)
    options = images.BuildOptions(**{**opts, **changes})
    return images.build(m, target, options, progress.Display(open(os.devnull, "w")))  # noqa: SIM115


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="tf29")
    p.add_argument("--os", dest="os_name", default="debian11")
    p.add_argument("--tf-change", default="tf28", help="environment that differs only in TF (and its pins)")
    p.add_argument("--repo", default="tfenv-bench/tensorflow")
    p.add_argument("--base-image")
    p.add_argument("--ca-cert")
    p.add_argument("--skip-cold", action="store_true", help="no --no-cache build (it downloads everything)")
    p.add_argument("--keep", action="store_true", help="keep the benchmark's tf29 image")
    args = p.parse_args()

    m = validate.load()
    c = daemon.client()
    opts = {"repo": args.repo, "base_image": args.base_image, "ca_cert": args.ca_cert, "pull": False,
            "ca_pem": files.read_ca_cert(args.ca_cert) if args.ca_cert else None}
    results: dict = {"env": args.env, "os": args.os_name, "base_image": args.base_image}

    if not args.skip_cold:
        print("cold build (--no-cache) ...", flush=True)
        cold = build(m, args.env, args.os_name, opts, no_cache=True).stages[0]
        results["cold_build_s"] = round(cold.seconds, 1)
    first = build(m, args.env, args.os_name, opts).stages[0]  # makes sure the image exists (cached when cold ran)
    print("warm no-op rebuild ...", flush=True)
    warm = build(m, args.env, args.os_name, opts).stages[0]
    results["warm_rebuild_s"] = round(warm.seconds, 1)
    results["warm_cache_hits"] = f"{warm.cached}/{warm.cacheable}"
    results["warm_same_image"] = warm.image_id == first.image_id

    ref = first.refs[0]
    size = c.images.get(ref).attrs["Size"]
    payload = measure_payload(c, ref, c.images.get(ref).labels["io.tfenv.sonames"])
    cuda_total = sum(payload["cuda_libs"].values())
    total = payload["site_packages"] + payload["stdlib"] + payload["interpreter"] + cuda_total
    results.update(image_bytes=size, payload_bytes=total, ratio=round(size / total, 3),
                   site_packages_bytes=payload["site_packages"], cuda_libs_bytes=cuda_total,
                   stdlib_bytes=payload["stdlib"] + payload["interpreter"], missing_sonames=payload["missing"],
                   layers=layer_sizes(c, ref))

    print(f"rebuild after changing only TF ({args.tf_change}) ...", flush=True)
    changed = build(m, args.tf_change, args.os_name, opts)
    stage = changed.stages[0]
    results["tf_change_s"] = round(stage.seconds, 1)
    results["tf_change_cache_hits"] = f"{stage.cached}/{stage.cacheable}"
    results["tf_change_cached_steps"] = [s[:70] for s in stage.cached_steps]
    for r in stage.refs:
        c.images.remove(r)
    images.remove_layers(c, stage.new_layers)
    if not args.keep:
        for r in first.refs:
            c.images.remove(r)

    results["cli_help_median_s"] = round(cli_start(), 3)
    out = ROOT / "benchmarks" / "results" / f"images-{args.env}-{args.os_name}.json"
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")

    gb = 1e9
    rows = [
        ("image size", f"{size / gb:.2f} GB"),
        ("payload (TF venv + CUDA libs + Python)", f"{total / gb:.2f} GB"),
        ("  site-packages (TF, cuDNN wheel, pins)", f"{payload['site_packages'] / gb:.2f} GB"),
        ("  CUDA libraries TF loads", f"{cuda_total / gb:.2f} GB"),
        ("  Python stdlib + interpreter", f"{(payload['stdlib'] + payload['interpreter']) / gb:.3f} GB"),
        ("size / payload (target <= 1.15)", f"{size / total:.3f}"),
        ("cold build, --no-cache", f"{results['cold_build_s']} s" if "cold_build_s" in results else "skipped"),
        ("warm no-op rebuild", f"{warm.seconds:.1f} s, {warm.cached}/{warm.cacheable} cached, "
                               f"same image: {results['warm_same_image']}"),
        (f"rebuild as {args.tf_change} (TF change only)", f"{stage.seconds:.1f} s, "
                                                            f"{stage.cached}/{stage.cacheable} cached"),
        ("tfenv --help (median of 10)", f"{results['cli_help_median_s'] * 1000:.0f} ms"),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print("cached in the TF-change rebuild:", *(f"  {s}" for s in results["tf_change_cached_steps"]), sep="\n")
    print(f"saved {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
