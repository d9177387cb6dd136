"""tfenv doctor: why TensorFlow does not see the GPU, as one short report with a fix per line.

Standard library only and Python 3.6 syntax, for Linux, WSL2 and native Windows: `tfenv doctor --write-standalone`
bundles this package with builder.diagnose and the matrix facts into one file for a machine that has nothing
but Python. Modules: host (the machine, its GPU), facts (the matrix facts), libsearch (where the loader looks),
libraries and support (what checks and report share), docker and tfimport (the probes of the Docker daemon and
of --import), checks/ (one module per check, and the registry), report, main (the standalone's command line),
standalone (writes that file).
"""

from builder.diagnose.versions import dll_name, vkey
from builder.doctor.checks.docker import check_docker
from builder.doctor.checks.tf_import import check_import
from builder.doctor.docker import docker_info
from builder.doctor.host import FAIL, OK, SKIP, WARN, Check, DoctorError, Gpu, GpuInfo, Host, Run
from builder.doctor.libsearch import parse_ldconfig
from builder.doctor.report import Report, diagnose, format_json, format_text
from builder.doctor.support import recommend, supported_cuda
from builder.doctor.tfimport import parse_tf_log

__all__ = [
    "FAIL", "OK", "SKIP", "WARN", "Check", "DoctorError", "Gpu", "GpuInfo", "Host", "Report", "Run", "check_docker",
    "check_import", "diagnose", "dll_name", "docker_info", "format_json", "format_text", "parse_ldconfig",
    "parse_tf_log", "recommend", "supported_cuda", "vkey",
]
