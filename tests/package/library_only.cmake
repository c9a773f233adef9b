# cmake -P script run by ctest (package_library_only; see CMakeLists.txt
# here): the library needs nothing but a compiler and CMake.
#   1. The source tree configures with its defaults while every optional
#      dependency is hidden from CMake (GoogleTest, Google Benchmark, Python
#      and pybind11, MPI, libpng, FCL, the CUDA compiler): each part that
#      needs one turns itself off with a line saying what to install.
#   2. An explicit -DBROADPHASE_BUILD_TESTS=ON without GoogleTest is an
#      error that names the package, not a quietly smaller build.
#   3. The same build folder configures for the library alone (no CLI or
#      examples). Its install, CMake package and broadphase.pc are checked by
#      package_install_and_consume, which builds and installs the library.
# Arguments (-D):
#   SOURCE_DIR    the broadphase source tree
#   WORK_DIR      scratch folder (emptied first)
#   CONSUMER      the one-file program (tests/package/consumer/main.cpp)
#   GENERATOR, CXX_COMPILER: for the configure and the program
#   PKG_CONFIG    optional: the pkg-config program (empty: as if none were
#                 installed); found on PATH when not given

foreach(var SOURCE_DIR WORK_DIR CONSUMER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "library_only.cmake: -D${var}=... is required")
  endif()
endforeach()

set(build "${WORK_DIR}/build")
set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(fail what)
  message(FATAL_ERROR "library-only test: ${what}")
endfunction()

# run_step(WHAT OUT_VAR command...): runs the command, fails on a non-zero
# exit, and gives back its output (stdout and stderr).
function(run_step what out_var)
  message(STATUS "library-only test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    fail("${what} failed (${rc}):\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The version, from the one place it is written.
file(STRINGS "${SOURCE_DIR}/include/broadphase/version.hpp" lines
  REGEX "^#define BROADPHASE_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+ *$")
set(version "")
foreach(part MAJOR MINOR PATCH)
  if(NOT lines MATCHES "BROADPHASE_VERSION_${part} +([0-9]+)")
    fail("version.hpp: no #define BROADPHASE_VERSION_${part} N")
  endif()
  list(APPEND version "${CMAKE_MATCH_1}")
endforeach()
list(JOIN version "." version)

# Every dependency of an optional part hidden: find_package gives up on
# these names, and CUDACXX names a CUDA compiler that does not exist (the
# top CMakeLists.txt then looks no further, and check_language finds none).
set(configure
  "${CMAKE_COMMAND}" -E env "CUDACXX=${WORK_DIR}/no-such-nvcc"
  "${CMAKE_COMMAND}" --no-warn-unused-cli
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_PNG=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_fcl=ON)
if(GENERATOR)
  list(APPEND configure -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
  list(APPEND configure "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()

# 1. The defaults, nothing found: configures, each optional part says why
#    it is off and what to install, and no test is registered.
run_step("configure with the defaults, dependencies hidden" out
  ${configure} -S "${SOURCE_DIR}" -B "${build}")
message("${out}")
foreach(expected
    "Tests off: GoogleTest was not found \\(Debian: apt-get install libgtest-dev\\)"
    "Benchmarks off: Google Benchmark was not found \\(Debian: apt-get install libbenchmark-dev\\)"
    "Python module off: [^\n]*pybind11-dev"
    "MPI not found \\(apt-get install libopenmpi-dev openmpi-bin\\)"
    "No CUDA compiler found"
    "libpng not found[^\n]*libpng-dev")
  if(NOT out MATCHES "${expected}")
    fail("the configure did not say '${expected}'")
  endif()
endforeach()
if(EXISTS "${build}/CTestTestfile.cmake")
  fail("tests were registered in ${build} although GoogleTest was hidden")
endif()
# The cache keeps AUTO: installing GoogleTest and configuring again turns
# the tests on.
file(STRINGS "${build}/CMakeCache.txt" tests_entry REGEX "^BROADPHASE_BUILD_TESTS:")
if(NOT tests_entry STREQUAL "BROADPHASE_BUILD_TESTS:STRING=AUTO")
  fail("the cache says '${tests_entry}', expected BROADPHASE_BUILD_TESTS:STRING=AUTO")
endif()

# 2. Asked for explicitly, missing tests are an error naming the package.
message(STATUS "library-only test: -DBROADPHASE_BUILD_TESTS=ON without GoogleTest must fail")
execute_process(COMMAND ${configure} -S "${SOURCE_DIR}" -B "${WORK_DIR}/explicit"
    -DBROADPHASE_BUILD_TESTS=ON -DBROADPHASE_BUILD_TOOLS=OFF -DBROADPHASE_BUILD_EXAMPLES=OFF
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  fail("-DBROADPHASE_BUILD_TESTS=ON configured without GoogleTest:\n${out}")
endif()
string(REGEX REPLACE "[ \n]+" " " flat "${out}")  # CMake wraps the error's lines
if(NOT flat MATCHES "BROADPHASE_BUILD_TESTS=ON but GoogleTest was not found[^-]*apt-get install libgtest-dev")
  fail("-DBROADPHASE_BUILD_TESTS=ON failed without naming libgtest-dev:\n${out}")
endif()

# 3. Library only: the same folder configures with nothing but the library
#    to build (its install, CMake package and broadphase.pc are
#    package_install_and_consume's, which installs the compiled library).
run_step("configure the library only" out
  ${configure} -S "${SOURCE_DIR}" -B "${build}"
  -DBROADPHASE_BUILD_TOOLS=OFF -DBROADPHASE_BUILD_EXAMPLES=OFF)
if(EXISTS "${build}/CTestTestfile.cmake")
  fail("tests were registered in a library-only build")
endif()
message(STATUS "library-only test: passed")
