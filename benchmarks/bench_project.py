"""Project image benchmark (tfenv.yaml on tf29/debian11 with Jupyter): a script, not a timed test.

Prints and saves (benchmarks/results/project-ENV-OS.json):
- the project layers' size (project image minus the environment image it is FROM) against the installed
  size of the packages tfenv.lock adds (every file in their RECORDs, measured in the image); target <= 1.05;
- the first build (resolution and downloads included), the unchanged rebuild, and the rebuild after a
  one-package change to requirements.txt (resolution included), with layer cache hits.

The environment image must exist (`tfenv build tf29 --os debian11 --jupyter`). Every project image made
here is removed at the end.

    PYTHONPATH=. python benchmarks/bench_project.py --ca-cert /etc/ssl/certs/ca-certificates.crt
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from builder.core import files, progress  # noqa: E402
from builder.docker import daemon, images  # noqa: E402
from builder.matrix import validate  # noqa: E402
from builder.project import actions  # noqa: E402

REQUIREMENTS = "pandas==2.0.3\nmatplotlib==3.7.5\nscikit-learn==1.3.2\n"
CHANGE = "tqdm==4.66.5\n"  # the one-package change: a small pure-Python package

# Runs inside the image: the installed size of each named distribution (its RECORD), hard links once.
MEASURE = r"""
import json, os, sys
from importlib import metadata
seen, sizes = set(), {}
for name in json.loads(sys.argv[1]):
    total = 0
    for f in metadata.distribution(name).files or []:
        path = os.path.realpath(f.locate())
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino)); total += st.st_size
    sizes[name] = total
print(json.dumps(sizes))
"""


def gb(n: int) -> str:
    return f"{n / 1e9:.3f} GB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="tf29")
    parser.add_argument("--os", dest="os_name", default="debian11")
    parser.add_argument("--repo", help="environment image repository (default: the matrix's)")
    parser.add_argument("--ca-cert")
    parser.add_argument("--pip-index-url")
    args = parser.parse_args()

    m = validate.load()
    c = daemon.client()
    options = images.BuildOptions(repo=args.repo, ca_cert=args.ca_cert, pip_index_url=args.pip_index_url,
                                  ca_pem=files.read_ca_cert(args.ca_cert) if args.ca_cert else None)
    made: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="tfenv-bench-") as tmp:
        folder = Path(tmp) / f"bench-project-{uuid.uuid4().hex[:6]}"
        folder.mkdir()
        (folder / "requirements.txt").write_text(REQUIREMENTS, encoding="utf-8")
        (folder / "tfenv.yaml").write_text(f"environment: {args.env}\nos: {args.os_name}\n"
                                           "requirements: requirements.txt\njupyter: true\n", encoding="utf-8")
        try:
            def build(label: str):
                """(result, total seconds, resolution seconds): tfenv build, its resolution timed apart."""
                start = time.monotonic()
                project = actions.load(m, folder)
                actions.lock(m, project, options.pip_index_url, options.ca_cert)
                resolved = time.monotonic() - start
                built = actions.build(m, project, options, progress.Display())
                seconds = time.monotonic() - start
                made.add(built.image.ref)
                print(f"{label}: {seconds:.1f} s ({resolved:.1f} s resolving), {built.cached}/{built.cacheable} "
                      f"steps cached -> {built.image.ref}")
                return built, seconds, resolved

            first, first_s, first_resolve_s = build("first build (resolution and downloads included)")
            again, again_s, _ = build("unchanged rebuild")
            env_img = c.images.get(first.image.base_ref)
            img = c.images.get(first.image.ref)
            layer_bytes = img.attrs["Size"] - env_img.attrs["Size"]
            names = [name for name, _ in first.image.lock.pins]
            out = c.containers.run(first.image.ref, ["python", "-c", MEASURE, json.dumps(names)], remove=True,
                                   entrypoint=[])
            sizes = json.loads(out.decode().strip().splitlines()[-1])
            payload = sum(sizes.values())

            (folder / "requirements.txt").write_text(REQUIREMENTS + CHANGE, encoding="utf-8")
            changed, changed_s, changed_resolve_s = build(f"rebuild after adding {CHANGE.strip()}")
        finally:
            from docker.errors import DockerException

            for ref in made:
                with contextlib.suppress(DockerException):
                    c.images.remove(ref)
            # the certificate stage's untagged images, labelled with the project's name
            for img in c.images.list(filters={"dangling": True, "label": f"io.tfenv.project={folder.name}"}):
                with contextlib.suppress(DockerException):
                    c.images.remove(img.id)

    result = {
        "env": args.env, "os": args.os_name, "jupyter": True, "requirements": REQUIREMENTS.split(),
        "added_packages": len(names),
        "layer_bytes": layer_bytes, "payload_bytes": payload, "ratio": round(layer_bytes / payload, 3),
        "payload_by_package": dict(sorted(sizes.items(), key=lambda kv: -kv[1])),
        "first_build_s": round(first_s, 1),
        "first_build_resolve_s": round(first_resolve_s, 1),
        "unchanged_rebuild_s": round(again_s, 1),
        "unchanged_rebuild_cached": f"{again.cached}/{again.cacheable}",
        "unchanged_rebuild_same_image": again.image_id == first.image_id,
        "one_package_change": CHANGE.strip(),
        "one_package_rebuild_s": round(changed_s, 1),
        "one_package_rebuild_resolve_s": round(changed_resolve_s, 1),
        "one_package_rebuild_cached": f"{changed.cached}/{changed.cacheable}",
    }
    print(f"project layers {gb(layer_bytes)} for a payload of {gb(payload)} ({len(names)} packages): "
          f"ratio {result['ratio']} (target <= 1.05)")
    out_path = ROOT / "benchmarks" / "results" / f"project-{args.env}-{args.os_name}.json"
    out_path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"saved {out_path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
