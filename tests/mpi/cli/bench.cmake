# ctest script: `mpiexec -n P broadphase-mpi bench SCENE --verify` says OK
# (the pairs over all ranks are one process's pairs) for each P in RANKS,
# and --json prints one object that parses (python3's json when PYTHON is
# given, else CMake's string(JSON)) with one entry per rank in per_rank.
# EXTRA: more options, comma-separated.
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
string(REPLACE "," ";" RANKS "${RANKS}")
string(REPLACE "," ";" EXTRA "${EXTRA}")
foreach(p IN LISTS RANKS)
  ranks(run ${p} bench ${SCENE} --frames 3 --verify ${EXTRA})
  if(NOT run_rc EQUAL 0 OR NOT run_out MATCHES "\nverify: OK \\(")
    message(FATAL_ERROR "-n ${p} bench ${SCENE} --verify ${EXTRA}: exit ${run_rc}\n${run_out}\n${run_err}")
  endif()
  string(REGEX MATCH "verify: [^\n]*" line "${run_out}")
  message(STATUS "-n ${p} bench ${SCENE} ${EXTRA}: ${line}")

  ranks(run ${p} bench ${SCENE} --frames 2 --json --verify ${EXTRA})
  if(NOT run_rc EQUAL 0)
    message(FATAL_ERROR "-n ${p} bench ${SCENE} --json: exit ${run_rc}\n${run_out}\n${run_err}")
  endif()
  file(WRITE ${WORK}/bench${p}.json "${run_out}")
  if(PYTHON)
    execute_process(COMMAND ${PYTHON} -c
      "import json,sys; o=json.load(open(sys.argv[1])); r=o['per_rank']; p=int(sys.argv[2]); assert o['ranks']==p and o['verified'] is True and all(len(v)==p for v in r.values()) and sum(r['boxes'])==o['n'] and sum(r['pairs_owned'])==o['total_pairs'], o; print(o['total_pairs'], o['ghost_fraction'])"
      ${WORK}/bench${p}.json ${p} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "-n ${p} --json: not the expected JSON object:\n${run_out}\n${err}")
    endif()
  else()
    string(JSON verified GET "${run_out}" verified)
    string(JSON n_ranks LENGTH "${run_out}" per_rank boxes)
    if(NOT verified STREQUAL "ON" OR NOT n_ranks EQUAL p)
      message(FATAL_ERROR "-n ${p} --json: not the expected JSON object:\n${run_out}")
    endif()
  endif()
endforeach()
