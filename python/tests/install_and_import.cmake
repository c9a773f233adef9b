# ctest python_install: cmake --install the build tree into a scratch prefix,
# then import broadphase from there (and only there) and run a small check.
# -DBUILD_DIR -DWORK_DIR -DPYTHON -DSITE (the package dir relative to the prefix)
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
if(IS_ABSOLUTE "${SITE}")
  message(STATUS "BROADPHASE_PYTHON_INSTALL_DIR is absolute (${SITE}): nothing to check in a scratch prefix")
  return()
endif()
set(site "${WORK_DIR}/prefix/${SITE}")
foreach(f __init__.py __init__.pyi py.typed)
  if(NOT EXISTS "${site}/broadphase/${f}")
    message(FATAL_ERROR "not installed: ${site}/broadphase/${f}")
  endif()
endforeach()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${site}" PYTHONDONTWRITEBYTECODE=1
    "${PYTHON}" -c "import broadphase, numpy as np; assert broadphase.__file__.startswith('${site}'), broadphase.__file__; b = np.array([[0,0,0,1,1,1],[1,1,1,2,2,2]], np.float32); assert broadphase.find_pairs(b).tolist() == [[0, 1]]; print('imported', broadphase.__file__)"
  WORKING_DIRECTORY "${WORK_DIR}"
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "the installed module does not import or work (${rc})")
endif()
