"""doctor's report: run every check for a host (and an environment), then format it as text or JSON."""

import json
from typing import List, Optional

from builder.diagnose.i18n import t
from builder.doctor.checks import Context, run_checks
from builder.doctor.facts import check_env_name
from builder.doctor.host import (
    FAIL,
    WARN,
    Check,
    DoctorError,
    Host,
    driver_key,
    in_container,
    installed_tensorflow,
    query_gpus,
    wsl_fact,
    wsl_version,
)
from builder.doctor.libraries import fitting_envs
from builder.doctor.libsearch import linux_search, windows_search
from builder.doctor.support import env_for_tensorflow, recommend


class Report:
    def __init__(self, env, env_reason, host, checks, recommendation):
        self.env, self.env_reason, self.host = env, env_reason, host
        self.checks = checks  # type: List[Check]
        self.recommendation = recommendation  # type: Optional[dict]

    @property
    def failed(self) -> List[Check]:
        return [c for c in self.checks if c.status == FAIL]


def diagnose(facts: Optional[dict], host: Host, env: Optional[str] = None, do_import: bool = False) -> Report:
    if env and not facts:
        raise DoctorError(t("no matrix facts: use `tfenv doctor`, pass --facts FILE, or a copy from "
                            "`tfenv doctor --write-standalone FILE`"))
    if env:
        check_env_name(facts, env)
    tf = installed_tensorflow(host)
    reason = "--env" if env else ""
    if not env and tf and facts:
        env = _env_for_installed(facts, host, tf[1])
        reason = f"installed {tf[0]} {tf[1]}" if env else ""
    info = query_gpus(host, wsl_fact(facts, "lib_dir"))
    key = driver_key(host)
    checks = run_checks(Context(host, facts, env, tf, info, key, do_import))
    rec = None
    if facts and info.gpus:
        best = recommend(facts, info.gpus[0].driver, key)
        if best:
            e = facts["envs"][best[0]]
            rec = {"env": best[0], "tensorflow": e["tensorflow"], "cuda": e["cuda_full"], "driver": info.gpus[0].driver,
                   "note": t("through CUDA 11 minor-version compatibility (no PTX JIT for newer PTX)") if best[1]
                   else ""}
    host_info = {"platform": host.platform, "wsl": wsl_version(host), "container": in_container(host),
                 "python": ".".join(map(str, host.python)), "gpus": [g.as_dict() for g in info.gpus],
                 "cuda_max": info.cuda_max, "tensorflow": list(tf) if tf else None}
    return Report(env, reason, host_info, checks, rec)


def _env_for_installed(facts: dict, host: Host, version: str) -> Optional[str]:
    """The matrix environment of the installed TF line; with two (tf22 on CUDA 10.2 or 10.1), the one installed."""
    candidates = env_for_tensorflow(facts, version)
    if len(candidates) > 1:
        search = windows_search(host) if host.platform == "windows" else linux_search(host, facts)
        fits = [n for n in fitting_envs(facts, host, search) if n in candidates]
        return (fits or candidates)[0]
    return candidates[0] if candidates else None


def format_text(report: Report, facts: Optional[dict]) -> str:
    lines = [_heading(report, facts)]
    width = max(len(c.id) for c in report.checks)
    for c in report.checks:
        lines.append(f"  {c.status.upper() if c.status == FAIL else c.status:<4}  {c.id:<{width}}  {c.message}")
        if c.fix and c.status in (WARN, FAIL):
            lines.append(f"        {'':<{width}}  {t('fix')}: {c.fix}")
    rec = report.recommendation
    if rec:
        fields = {"env": rec["env"], "tf": rec["tensorflow"], "cuda": rec["cuda"], "driver": rec["driver"],
                  "note": rec["note"]}
        lines.append(t("recommended: {env} (TensorFlow {tf}, CUDA {cuda}) is the newest environment driver {driver} "
                       "runs {note}", **fields) if rec["note"] else
                     t("recommended: {env} (TensorFlow {tf}, CUDA {cuda}) is the newest environment driver {driver} "
                       "runs", **fields))
    n = len(report.failed)
    lines.append(t("{count} check(s) failed", count=n) if n else t("no check failed"))
    return "\n".join(lines) + "\n"


def _heading(report: Report, facts: Optional[dict]) -> str:
    if not report.env:
        return t("tfenv doctor: host only (no target environment)")
    e = facts["envs"][report.env]
    fields = {"env": report.env, "tf": e["tensorflow"], "cuda": e["cuda_full"], "cudnn": e["cudnn"]}
    installed = report.host.get("tensorflow")
    if report.env_reason and report.env_reason != "--env" and installed:
        return t("tfenv doctor: {env} (TensorFlow {tf}, CUDA {cuda}, cuDNN {cudnn}, from the installed {dist} "
                 "{version})", dist=installed[0], version=installed[1], **fields)
    return t("tfenv doctor: {env} (TensorFlow {tf}, CUDA {cuda}, cuDNN {cudnn})", **fields)


def format_json(report: Report) -> str:
    data = {"env": report.env, "env_reason": report.env_reason, "ok": not report.failed, "host": report.host,
            "checks": [c.as_dict() for c in report.checks], "recommendation": report.recommendation}
    return json.dumps(data, indent=2) + "\n"
