# cmake -P script run by ctest (see CMakeLists.txt here).
#   BUILD_DIR     the broadphase build tree to install
#   WORK_DIR      scratch folder (emptied first): prefix/ and consumer-build/
#   CONSUMER_DIR  the consumer project's sources
#   GENERATOR, CXX_COMPILER, BUILD_TYPE, CONFIG: passed on to the consumer
#   EXPECT_CLI    ON when the CLI should have been installed too
#   CONSUMER_ARG  optional: one more -D argument for the consumer's configure
#   PC_CONSUMER   optional: a one-file program to build with pkg-config's
#                 flags alone against the prefix (pkg_config_consumer.cmake),
#                 with VERSION (the package's)

foreach(var BUILD_DIR WORK_DIR CONSUMER_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "install_and_consume.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step what)
  message(STATUS "package test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: ${what} failed (${rc})")
  endif()
endfunction()

# 1. Install the build tree.
set(config_args "")
if(CONFIG)
  set(config_args --config "${CONFIG}")
endif()
run_step("install into ${prefix}"
  "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" ${config_args})

# What must be there: the front header, the CMake package, the CLI.
file(GLOB_RECURSE config_files "${prefix}/*/broadphaseConfig.cmake")
if(NOT EXISTS "${prefix}/include/broadphase/broadphase.hpp" OR NOT config_files)
  message(FATAL_ERROR "package test: headers or broadphaseConfig.cmake missing under ${prefix}")
endif()
if(EXPECT_CLI AND NOT EXISTS "${prefix}/bin/broadphase")
  message(FATAL_ERROR "package test: the CLI was not installed as ${prefix}/bin/broadphase")
endif()

# 2. Configure the consumer against the prefix only. No package registry,
#    so nothing but the fresh install can satisfy find_package.
set(configure_args
  -S "${CONSUMER_DIR}" -B "${consumer_build}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  "-DBROADPHASE_EXPECTED_PREFIX=${prefix}"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(CXX_COMPILER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
endif()
if(BUILD_TYPE)
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${BUILD_TYPE}")
endif()
if(CONSUMER_ARG)
  list(APPEND configure_args "${CONSUMER_ARG}")
endif()
run_step("configure the consumer" "${CMAKE_COMMAND}" ${configure_args})

# 3. Build it (the program and one translation unit per installed header).
include(ProcessorCount)
ProcessorCount(jobs)
if(jobs LESS 1)
  set(jobs 1)
endif()
run_step("build the consumer"
  "${CMAKE_COMMAND}" --build "${consumer_build}" --parallel ${jobs} ${config_args})

# 4. Run it.
set(exe "${consumer_build}/broadphase_consumer")
if(CONFIG AND EXISTS "${consumer_build}/${CONFIG}/broadphase_consumer")
  set(exe "${consumer_build}/${CONFIG}/broadphase_consumer")
endif()
run_step("run the consumer" "${exe}")
# 5. The same install, through pkg-config.
if(PC_CONSUMER)
  file(GLOB pc_files "${prefix}/*/pkgconfig/broadphase.pc" "${prefix}/*/*/pkgconfig/broadphase.pc")
  if(NOT pc_files)
    message(FATAL_ERROR "package test: no broadphase.pc under ${prefix}")
  endif()
  list(GET pc_files 0 pc_file)
  get_filename_component(pc_dir "${pc_file}" DIRECTORY)
  include("${CMAKE_CURRENT_LIST_DIR}/pkg_config_consumer.cmake")
  broadphase_pkg_config_consumer("${pc_dir}" "${VERSION}" "${prefix}" "${PC_CONSUMER}" "${CXX_COMPILER}"
    "${WORK_DIR}")
endif()
message(STATUS "package test: passed")
