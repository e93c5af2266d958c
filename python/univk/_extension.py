"""Loads univk's compiled extension, univk._univk, and says what to do when it cannot."""

import importlib
import importlib.machinery
import pathlib
import sys

_HOW_TO_GET_IT = ("Install the package (`pip install .` in the univk checkout) or build it with CMake and put "
                  "<build>/python first on PYTHONPATH, not the source folder python/ (docs/USER_GUIDE.md).")


def load_extension():
    here = pathlib.Path(__file__).resolve().parent
    name = f"{__package__}._univk"
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if e.name not in (None, name):
            raise  # a module the extension imports is missing; the original error names it
        candidates = sorted(p.name for p in here.glob("_univk*") if p.suffix != ".py")
        usable = [c for c in candidates if any(c.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES)]
        if not candidates:
            problem = f"the compiled extension {name} is not in {here}"
        elif not usable:
            problem = (f"{here} holds {', '.join(candidates)}, built for another Python than this one "
                       f"(Python {sys.version_info.major}.{sys.version_info.minor})")
        else:
            raise ImportError(f"univk: the compiled extension {here / usable[0]} failed to load: {e}") from e
        raise ImportError(f"univk: {problem}. {_HOW_TO_GET_IT}", name=name) from None
