"""Builds univk's Python package: the pure-Python modules from python/univk and the extension
univk._univk, built by CMake from this checkout (target _univk).

Environment:
  UNIVK_CMAKE_BUILD_DIR  an already configured univk build folder to build the extension in
                         (and take it from) instead of configuring a new one under build-python/
  UNIVK_CMAKE_ARGS       extra arguments for the configure step, e.g. "-DUNIVK_BUILD_VGF=OFF"
"""

import os
import pathlib
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
VERSION = (ROOT / "VERSION").read_text().strip()  # the version CMake's project() reads too


class CMakeBuild(build_ext):
    """Builds each extension as a CMake target and copies the module CMake wrote."""

    def build_extension(self, ext):
        build_dir = os.environ.get("UNIVK_CMAKE_BUILD_DIR")
        if build_dir:
            build_dir = pathlib.Path(build_dir).resolve()
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            self._configure(build_dir)
        target = ext.name.rsplit(".", 1)[-1]
        subprocess.run(["cmake", "--build", str(build_dir), "--target", target, "-j", str(os.cpu_count() or 1)],
                       check=True)
        destination = pathlib.Path(self.get_ext_fullpath(ext.name))
        built = build_dir / "python" / "univk" / destination.name
        if not built.is_file():
            sys.exit(f"setup.py: CMake did not build {built} (is {build_dir} configured with -DPython3_EXECUTABLE="
                     f"{sys.executable} and UNIVK_BUILD_PYTHON=ON?)")
        destination.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(destination))

    def _configure(self, build_dir):
        args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}", "-DUNIVK_BUILD_PYTHON=ON", "-DUNIVK_BUILD_TESTS=OFF",
                "-DUNIVK_BUILD_TOOLS=OFF", "-DUNIVK_BUILD_BENCHMARKS=OFF"]
        if not (build_dir / "CMakeCache.txt").exists():
            args.append("-GNinja")
        args += shlex.split(os.environ.get("UNIVK_CMAKE_ARGS", ""))
        subprocess.run(args, check=True)


setup(
    version=VERSION,
    packages=["univk"],
    package_dir={"": "python"},
    ext_modules=[Extension("univk._univk", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Not setuptools' default build/: that is the CMake build folder of run.sh.
    options={"build": {"build_base": "build-python"}, "egg_info": {"egg_base": "build-python"}},
)
