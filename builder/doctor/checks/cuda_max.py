"""The newest CUDA the driver supports, and which of the matrix's CUDA versions it runs."""

from typing import List

from builder.diagnose.i18n import t
from builder.doctor.host import FAIL, OK, Check, vkey
from builder.doctor.support import supported_cuda

ID = "cuda-max"


def check(ctx) -> List[Check]:
    if not (ctx.info.gpus and ctx.facts):
        return []
    facts, info, key = ctx.facts, ctx.info, ctx.key
    driver = info.gpus[0].driver
    ok = supported_cuda(facts, driver, key)
    runs = ", ".join(v for v, _ in ok)
    if info.cuda_max:
        message = (t("driver {driver} supports CUDA up to {cuda}; of the matrix's CUDA versions it runs {runs}",
                     driver=driver, cuda=info.cuda_max, runs=runs) if ok
                   else t("driver {driver} supports CUDA up to {cuda}", driver=driver, cuda=info.cuda_max))
        return [Check(ID, OK, message)]
    if ok:
        return [Check(ID, OK, t("driver {driver} supports at least CUDA {cuda}; of the matrix's CUDA versions "
                                "it runs {runs}", driver=driver, cuda=ok[0][0], runs=runs))]
    oldest = min(facts["cuda"], key=vkey)
    return [Check(ID, FAIL, t("driver {driver} is older than every CUDA in the matrix", driver=driver),
                  t("update the driver to >= {need} (CUDA {cuda})", need=facts["cuda"][oldest]["driver_min"][key],
                    cuda=oldest))]
