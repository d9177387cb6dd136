"""TF 2.14-2.16 pip builds log E lines at every start: their CUDA plugins (cuDNN, cuFFT, cuBLAS) are registered
twice (xla/stream_executor plugin_registry.cc "Attempting to register factory for plugin ... when one has already
been registered"). Start-up noise: the GPU works."""

from builder.diagnose.i18n import t
from builder.diagnose.rules._common import harmless_note

ID = "cuda-factory-harmless"


def _words():
    return (t("Duplicate CUDA plugin registration (harmless)"),
            t("TF 2.14 to 2.16 register their cuDNN, cuFFT and cuBLAS plugins twice and log it as errors at every "
              "start; nothing fails because of it."),
            t("nothing to fix: these lines are harmless, ignore them; check that "
              "`tf.config.list_physical_devices('GPU')` lists the GPU, and set TF_CPP_MIN_LOG_LEVEL=2 to hide them"))


check = harmless_note(ID, "factory_registered", most=3, rank=92, words=_words)
