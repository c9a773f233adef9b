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
