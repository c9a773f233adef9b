# cmake -P script run by ctest (see CMakeLists.txt here): configure, build
# and run tests/package/subproject, a parent project that brings broadphase
# in with add_subdirectory.
#   SOURCE_DIR    the broadphase source tree
#   WORK_DIR      scratch build folder (emptied first)
#   PARENT_DIR    the parent project's sources (tests/package/subproject)
#   GENERATOR, CXX_COMPILER: passed on to the parent

foreach(var SOURCE_DIR WORK_DIR PARENT_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "add_subdirectory.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step what)
  message(STATUS "add_subdirectory test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "add_subdirectory test: ${what} failed (${rc})")
  endif()
endfunction()

set(configure_args -S "${PARENT_DIR}" -B "${WORK_DIR}" "-DBROADPHASE_SOURCE_DIR=${SOURCE_DIR}")
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()

# 1. A parent that chose no build type keeps none (broadphase, as the top
#    level, would pick Release; under a parent it must not).
run_step("configure a parent without a build type"
  "${CMAKE_COMMAND}" ${configure_args} "-DCMAKE_BUILD_TYPE=" "-DEXPECT_BUILD_TYPE=")

# 2. A parent that chose Debug keeps Debug: configure again, build, run (the
#    program checks that it was compiled as a Debug build).
run_step("configure a Debug parent"
  "${CMAKE_COMMAND}" ${configure_args} -DCMAKE_BUILD_TYPE=Debug -DEXPECT_BUILD_TYPE=Debug)
run_step("build the parent" "${CMAKE_COMMAND}" --build "${WORK_DIR}" --config Debug)

set(exe "${WORK_DIR}/broadphase_subproject")
if(EXISTS "${WORK_DIR}/Debug/broadphase_subproject")
  set(exe "${WORK_DIR}/Debug/broadphase_subproject")
endif()
run_step("run the parent's program" "${exe}")
message(STATUS "add_subdirectory test: passed")
