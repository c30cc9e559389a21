"""setuptools build of the aidcsim Python package (pyproject.toml holds the metadata).

The compiled core aidcsim._core is built by CMake, the project's own build: `build_ext` configures
the tree into a build directory (default build/pip/cmake; $AIDCSIM_CMAKE_BUILD_DIR to reuse another,
e.g. `build` after `make build`), builds the targets _core and aidcsim_python with the interpreter
running pip, and copies the extension and the generated _version.py and units.py next to the
pure-Python package. The version is the CMake project version, the one place it is written.

    pip install --no-build-isolation --no-deps .             # into the interpreter's site-packages
    pip install --no-build-isolation --no-deps --prefix P .  # into P (tests/python/test_install.py)
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def cmake_project_version():
    """MAJOR.MINOR.PATCH from `project(aidcsim VERSION ...)` in CMakeLists.txt."""
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(\s*aidcsim\s+VERSION\s+([0-9][0-9.]*)", text)
    if not m:
        raise RuntimeError("CMakeLists.txt: no `project(aidcsim VERSION x.y.z)` line")
    return m.group(1)


class CMakeBuild(build_ext):
    """Builds aidcsim._core with CMake instead of compiling sources itself."""

    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("AIDCSIM_CMAKE_BUILD_DIR") or ROOT / "build" / "pip" / "cmake")
        build_dir = build_dir if build_dir.is_absolute() else ROOT / build_dir
        if not (build_dir / "CMakeCache.txt").exists():
            self._run(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-G", "Ninja",
                       "-DCMAKE_BUILD_TYPE=Release", f"-DPython3_EXECUTABLE={sys.executable}",
                       f"-DPYTHON_EXECUTABLE={sys.executable}"])
        # Two jobs unless told otherwise (CMAKE_BUILD_PARALLEL_LEVEL): the machines are shared.
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        self._run(["cmake", "--build", str(build_dir), "--target", "_core", "aidcsim_python", "-j", jobs])
        package = build_dir / "python" / "aidcsim"
        built = sorted(package.glob("_core*.so"))
        if not built:
            raise RuntimeError(f"CMake built no aidcsim._core in {package}")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[-1], target)
        for generated in ("_version.py", "units.py"):  # written by CMake (python/CMakeLists.txt)
            shutil.copy2(package / generated, target.parent / generated)

    def _run(self, cmd):
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, cwd=ROOT)


setup(
    version=cmake_project_version(),
    ext_modules=[Extension("aidcsim._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build files stay out of the CMake tree and the sources.
    options={"build": {"build_base": str(ROOT / "build" / "pip" / "setuptools")},
             "egg_info": {"egg_base": str(ROOT / "build" / "pip")}},
)
