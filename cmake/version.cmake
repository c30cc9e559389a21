# Generates models/common/version.cpp (aidcsim::version(), aidcsim::git_sha()) from the project
# version, the one place it is written, and the commit HEAD points at. Re-configures when HEAD or
# the branch it names moves, so results files never carry a stale commit.
set(AIDCSIM_GIT_SHA unknown)
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS ${PROJECT_SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _sha OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0)
    set(AIDCSIM_GIT_SHA ${_sha})
  endif()
  # HEAD, the ref it names (a worktree's HEAD lives in its own git dir, refs in the common one)
  # and packed-refs: a commit, checkout or gc changes one of them.
  foreach(_what HEAD packed-refs)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${_what}
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _p OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_p AND EXISTS ${_p})
      set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_p})
    endif()
  endforeach()
  execute_process(COMMAND ${GIT_EXECUTABLE} symbolic-ref -q HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE _ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_ref)
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path ${_ref}
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE _p OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_p AND EXISTS ${_p})
      set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_p})
    endif()
  endif()
endif()
configure_file(${PROJECT_SOURCE_DIR}/models/common/version.cpp.in ${PROJECT_BINARY_DIR}/generated/version.cpp @ONLY)
