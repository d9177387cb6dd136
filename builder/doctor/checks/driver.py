"""The driver against the target environment's CUDA minimum (Linux or Windows table; WSL2 runs Windows')."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, WARN, Check, vkey
from builder.doctor.support import recommend

ID = "driver"


def check(ctx) -> List[Check]:
    if not (ctx.info.gpus and ctx.facts and ctx.env):
        return []
    facts, env, key = ctx.facts, ctx.env, ctx.key
    e = facts["envs"][env]
    mins = facts["cuda"][e["cuda"]]["driver_min"]
    driver, table = ctx.info.gpus[0].driver, "Windows" if key == "windows" else "Linux"
    need, compat = mins[key], mins.get(f"compat_{key}")
    fields = {"driver": driver, "need": need, "table": table, "cuda": e["cuda_full"], "compat": compat}
    if vkey(driver) >= vkey(need):
        return [Check(ID, OK, t("driver {driver} >= {need}, the {table} minimum for CUDA {cuda}", **fields))]
    best = recommend(facts, driver, key)
    if compat and vkey(driver) >= vkey(compat):
        return [Check(ID, WARN,
                      t("driver {driver} < {need} ({table}, CUDA {cuda}) but >= {compat}: runs through CUDA 11 "
                        "minor-version compatibility, without PTX JIT for newer PTX", **fields),
                      t("update the driver to >= {need} for full support", need=need))]
    message = (t("driver {driver} is too old for CUDA {cuda} ({table} minimum {need}, {compat} with minor-version "
                 "compatibility)", **fields) if compat
               else t("driver {driver} is too old for CUDA {cuda} ({table} minimum {need})", **fields))
    fix = (t("update the driver to >= {need}, or use {env} (the newest environment this driver runs)",
             need=compat or need, env=best[0]) if best and best[0] != env
           else t("update the driver to >= {need}", need=compat or need))
    return [Check(ID, FAIL, message, fix)]
