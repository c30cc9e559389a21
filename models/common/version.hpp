#pragma once
// The version of this build of aidcsim. The version number is written in one place, the
// `project(aidcsim VERSION ...)` line of the top-level CMakeLists.txt; CMake generates the
// definitions (version.cpp.in) and the Python package reads the same number from the module.
namespace aidcsim {

/// "MAJOR.MINOR.PATCH", the CMake project version.
const char* version();

/// The git commit the build was configured from (40 hex digits), "unknown" outside a git checkout
/// (a source archive). CMake re-configures when HEAD moves, so a build does not report a stale commit.
const char* git_sha();

}  // namespace aidcsim
