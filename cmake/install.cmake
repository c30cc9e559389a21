# `cmake --install build --prefix PREFIX` installs aidcsim as a CMake package:
#   bin/aidcsim                                   the CLI
#   lib/libaidcsim_<area>.a, include/aidcsim/...  the libraries and their headers (paths as in the tree)
#   lib/cmake/aidcsim/aidcsimConfig.cmake         find_package(aidcsim) -> aidcsim::core, aidcsim::<area>
#   lib/aidcsim/python/aidcsim/                   the Python package (component "python"; `aidcsim
#                                                 report|sweep` run it; pip installs it for Python users)
#   share/aidcsim/scenarios/                      the bundled scenarios
# tests/install/ builds a consumer project against such a prefix (ctest: install_consumer).
include(CMakePackageConfigHelpers)

set(AIDCSIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/aidcsim)
set(AIDCSIM_INSTALL_PYTHONDIR ${CMAKE_INSTALL_LIBDIR}/aidcsim/python CACHE STRING
    "Where `cmake --install` puts the Python package, relative to the prefix (the CLI looks there)")

set(_targets aidcsim_core)
foreach(_area ${AIDCSIM_AREAS})
  string(REPLACE ":" ";" _pair ${_area})
  list(GET _pair 0 _name)
  list(GET _pair 1 _dir)
  list(APPEND _targets aidcsim_${_name})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/aidcsim/${_dir}
          COMPONENT devel FILES_MATCHING PATTERN "*.hpp" PATTERN "*_internal.hpp" EXCLUDE)
endforeach()

install(TARGETS ${_targets} EXPORT aidcsimTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/aidcsim)
install(EXPORT aidcsimTargets NAMESPACE aidcsim:: DESTINATION ${AIDCSIM_INSTALL_CMAKEDIR} COMPONENT devel)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/aidcsimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/aidcsimConfig.cmake INSTALL_DESTINATION ${AIDCSIM_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the API, so only the same MAJOR.MINOR satisfies a request.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/aidcsimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/aidcsimConfig.cmake ${PROJECT_BINARY_DIR}/aidcsimConfigVersion.cmake
        DESTINATION ${AIDCSIM_INSTALL_CMAKEDIR} COMPONENT devel)

install(TARGETS aidcsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/aidcsim/scenarios COMPONENT cli)
if(TARGET _core)
  install(TARGETS _core LIBRARY DESTINATION ${AIDCSIM_INSTALL_PYTHONDIR}/aidcsim COMPONENT python)
  install(DIRECTORY ${PROJECT_BINARY_DIR}/python/aidcsim/ DESTINATION ${AIDCSIM_INSTALL_PYTHONDIR}/aidcsim
          COMPONENT python FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
endif()

# The CLI's `report` and `sweep` run the Python package with the interpreter it was built for.
target_compile_definitions(aidcsim PRIVATE AIDCSIM_PYTHON_EXECUTABLE="${Python3_EXECUTABLE}"
                                           AIDCSIM_INSTALL_PYTHONDIR="${AIDCSIM_INSTALL_PYTHONDIR}")
