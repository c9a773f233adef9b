# cmake -P script run by ctest (see CMakeLists.txt here): the version is
# written once, in include/broadphase/version.hpp, and everything that shows
# it says the same.
#   HEADER           include/broadphase/version.hpp
#   PROJECT_VERSION  what project() read from it
#   CONFIG_VERSION   broadphaseConfigVersion.cmake in the build tree (optional)
#   CLI              the broadphase executable (optional)
#   MPI_CLI          the broadphase-mpi executable (optional)

file(STRINGS "${HEADER}" lines REGEX "^#define BROADPHASE_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+ *$")
set(version "")
foreach(part MAJOR MINOR PATCH)
  if(NOT lines MATCHES "BROADPHASE_VERSION_${part} +([0-9]+)")
    message(FATAL_ERROR "${HEADER}: no #define BROADPHASE_VERSION_${part} N")
  endif()
  list(APPEND version "${CMAKE_MATCH_1}")
  set(PACKAGE_FIND_VERSION_${part} "${CMAKE_MATCH_1}")
endforeach()
list(JOIN version "." version)
message(STATUS "version.hpp: ${version}")

if(NOT PROJECT_VERSION STREQUAL version)
  message(FATAL_ERROR "project(VERSION) is ${PROJECT_VERSION}, version.hpp says ${version}")
endif()

if(CONFIG_VERSION)
  set(PACKAGE_FIND_VERSION "${version}")
  include("${CONFIG_VERSION}")
  if(NOT PACKAGE_VERSION STREQUAL version OR NOT PACKAGE_VERSION_COMPATIBLE OR NOT PACKAGE_VERSION_EXACT)
    message(FATAL_ERROR "${CONFIG_VERSION}: PACKAGE_VERSION ${PACKAGE_VERSION}, version.hpp says ${version}")
  endif()
  message(STATUS "package config version: ${PACKAGE_VERSION}")
endif()

# `NAME --version` prints exactly "NAME MAJOR.MINOR.PATCH" and exits 0.
function(check_version_flag exe name)
  execute_process(COMMAND ${ARGN} "${exe}" --version
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  string(STRIP "${out}" out)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "${name} ${version}")
    message(FATAL_ERROR "${exe} --version: exit ${rc}, printed '${out}' (stderr '${err}'); expected '${name} ${version}'")
  endif()
  message(STATUS "${name} --version: ${out}")
endfunction()
if(CLI)
  check_version_flag("${CLI}" broadphase)
endif()
if(MPI_CLI)
  # One rank, started without mpirun (MPI's singleton start).
  check_version_flag("${MPI_CLI}" broadphase-mpi
    "${CMAKE_COMMAND}" -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
endif()
