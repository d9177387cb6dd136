"""FAKE of Windows' GetUserDefaultUILanguage (kernel32) for i18n.choose_language: there is no Windows here."""


def ui_language(langid):
    """A stand-in for ctypes.windll.kernel32.GetUserDefaultUILanguage that answers `langid` (0x0804: zh-CN)."""
    return lambda: langid


def no_ui_language():
    """A kernel32 that cannot be asked (ctypes raises OSError or AttributeError there)."""

    def fail():
        raise OSError("GetUserDefaultUILanguage unavailable")

    return fail
