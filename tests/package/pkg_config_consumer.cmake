# broadphase_pkg_config_consumer(PC_DIR VERSION PREFIX SOURCE CXX WORK_DIR)
# for the package tests' cmake -P scripts: with PKG_CONFIG_PATH=PC_DIR,
# `pkg-config --modversion broadphase` must say VERSION and --cflags must
# name PREFIX/include; the flags must name the compiled library
# (-lbroadphase); SOURCE (tests/package/consumer/main.cpp) must then compile with
# `CXX -std=c++17 SOURCE $(pkg-config --cflags --libs broadphase)` alone and
# run. Skipped, with a message, without pkg-config (Debian's pkgconf); the
# variable PKG_CONFIG, when defined, names the program (empty: none).
function(broadphase_pkg_config_consumer pc_dir version prefix source cxx work_dir)
  if(DEFINED PKG_CONFIG)
    set(pkg_config "${PKG_CONFIG}")
  else()
    find_program(pkg_config NAMES pkg-config pkgconf)
  endif()
  if(NOT pkg_config)
    message(STATUS "pkg-config not found (Debian: apt-get install pkgconf): the pkg-config consumer is skipped")
    return()
  endif()
  set(pc_env "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pc_dir}")
  execute_process(COMMAND ${pc_env} "${pkg_config}" --modversion broadphase
    RESULT_VARIABLE rc OUTPUT_VARIABLE pc_version ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0 OR NOT pc_version STREQUAL version)
    message(FATAL_ERROR "pkg-config --modversion broadphase says '${pc_version}' (${rc}: ${err}), version.hpp ${version}")
  endif()
  execute_process(COMMAND ${pc_env} "${pkg_config}" --cflags --libs broadphase
    RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs broadphase failed (${rc}): ${err}")
  endif()
  message(STATUS "pkg-config --cflags --libs broadphase: ${flags}")
  string(FIND " ${flags} " " -I${prefix}/include " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "pkg-config --cflags does not name ${prefix}/include")
  endif()
  if(NOT " ${flags} " MATCHES " -lbroadphase ")
    message(FATAL_ERROR "pkg-config does not link the compiled library: ${flags}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  if(NOT cxx)
    set(cxx c++)
  endif()
  set(exe "${work_dir}/pkgconfig_consumer")
  # -std=c++17 as the file says for compilers older than g++ 11; the
  # package's version, which the program checks against version.hpp.
  execute_process(COMMAND "${cxx}" -std=c++17 "-DBROADPHASE_PACKAGE_VERSION=\"${pc_version}\"" "${source}" -o "${exe}" ${flags}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compiling ${source} with pkg-config's flags failed (${rc}):\n${out}")
  endif()
  execute_process(COMMAND "${exe}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the pkg-config consumer failed (${rc}):\n${out}")
  endif()
  message(STATUS "pkg-config consumer: ${out}")
endfunction()
