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

set(generator_args "")
if(GENERATOR)
  list(APPEND generator_args -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
  list(APPEND generator_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
set(configure_args -S "${PARENT_DIR}" -B "${WORK_DIR}/compiled" "-DBROADPHASE_SOURCE_DIR=${SOURCE_DIR}" ${generator_args})

include(ProcessorCount)
ProcessorCount(jobs)
if(jobs LESS 1)
  set(jobs 1)
endif()

# 1. A parent that chose no build type keeps none (broadphase, as the top
#    level, would pick Release; under a parent it must not), and gets the
#    compiled library (the default): the parent's program is compiled with
#    broadphase::broadphase's flags, not linked: building the library is the
#    build tree's own work (see subproject/CMakeLists.txt).
run_step("configure a parent without a build type"
  "${CMAKE_COMMAND}" ${configure_args} "-DCMAKE_BUILD_TYPE=" "-DEXPECT_BUILD_TYPE=" -DEXPECT_SINGLE_HEADER=OFF)
run_step("compile the parent's program against the compiled library"
  "${CMAKE_COMMAND}" --build "${WORK_DIR}/compiled" --target broadphase_subproject_compile --parallel ${jobs})
if(EXISTS "${WORK_DIR}/compiled/broadphase/libbroadphase.a")
  message(STATUS "add_subdirectory test: (this generator built the library too)")
endif()

# 2. A parent that chose Debug keeps Debug, and one that takes the single
#    header (broadphase::single_header: single_include/broadphase.hpp, no
#    library) builds its program, the whole library compiled into it, and
#    runs it.
set(configure_args -S "${PARENT_DIR}" -B "${WORK_DIR}/single-header" "-DBROADPHASE_SOURCE_DIR=${SOURCE_DIR}"
  ${generator_args})
run_step("configure a Debug parent on the single header"
  "${CMAKE_COMMAND}" ${configure_args} -DCMAKE_BUILD_TYPE=Debug -DEXPECT_BUILD_TYPE=Debug -DEXPECT_SINGLE_HEADER=ON)
run_step("build the single-header parent"
  "${CMAKE_COMMAND}" --build "${WORK_DIR}/single-header" --target broadphase_subproject --parallel ${jobs})
run_step("run the single-header parent's program" "${WORK_DIR}/single-header/broadphase_subproject")
message(STATUS "add_subdirectory test: passed")
