# The optional parts of the build that need more than a compiler and CMake
# (included by the top CMakeLists.txt). Each is a cache string:
#   AUTO  built when what it needs is found; otherwise one status line that
#         says what to install, and the part is off for this configure
#   ON    required: configuring fails, saying what to install
#   OFF   not built
# AUTO is the default at top level, OFF under a parent project. Other true
# values (YES, TRUE, 1) count as ON.

# broadphase_part_option(VAR DOC DEFAULT): declares the cache entry.
macro(broadphase_part_option var doc default)
  set(${var} ${default} CACHE STRING "${doc} (AUTO: when found; ON: required; OFF)")
  set_property(CACHE ${var} PROPERTY STRINGS AUTO ON OFF)
endmacro()

# broadphase_part_missing(VAR PART WHAT PACKAGES): VAR's part cannot be built
# because WHAT; PACKAGES are the Debian packages that provide it. AUTO turns
# the part off in the caller's scope (a normal variable over the cache entry,
# which keeps AUTO, so that installing the packages and configuring again
# turns it back on); ON stops the configure.
macro(broadphase_part_missing var part what packages)
  string(TOUPPER "${${var}}" _broadphase_part_value)
  if(_broadphase_part_value STREQUAL "AUTO")
    message(STATUS "${part} off: ${what} (Debian: apt-get install ${packages})")
    set(${var} OFF)
  else()
    message(FATAL_ERROR "${var}=${${var}} but ${what}: install it (Debian: apt-get install ${packages}), "
      "or configure with -D${var}=AUTO (built when found) or OFF")
  endif()
  unset(_broadphase_part_value)
endmacro()

# broadphase_header_component(NAME EXPORT_SET [DEPENDENCY...]): the
# header-only component broadphase::NAME (target broadphase_NAME) over the
# calling folder's include/, on top of the library and the dependencies
# given; installed, headers and targets, with an export set of its own, so
# that find_package(broadphase) looks for the dependencies only when the
# component is asked for. mpi/ and bullet/ call it.
function(broadphase_header_component name export_set)
  set(target broadphase_${name})
  add_library(${target} INTERFACE)
  add_library(broadphase::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  target_include_directories(${target} INTERFACE
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${target} INTERFACE broadphase ${ARGN})
  if(BROADPHASE_INSTALL)
    install(DIRECTORY include/broadphase DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(TARGETS ${target} EXPORT ${export_set})
    install(EXPORT ${export_set} NAMESPACE broadphase:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/broadphase)
  endif()
endfunction()
