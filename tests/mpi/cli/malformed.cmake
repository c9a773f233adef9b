# ctest script: bad input fails `mpiexec -n P broadphase-mpi` as it fails
# `broadphase`: the same exit status from mpiexec, the same one-line message
# (printed once, by rank 0), and no hang (each run has a time limit).
# Each case, "P|args" with the args separated by ':', is run both ways
# (broadphase-mpi's own messages name it: "see broadphase-mpi --help").
include(${CMAKE_CURRENT_LIST_DIR}/common.cmake)
set(CASES
  "2|pairs:bad_magic.npy:-o:out.npy"         # not a .npy file
  "3|pairs:truncated.npy:-o:out.npy"         # the header promises more rows than the file holds
  "2|pairs:trailing.npy:-o:out.csv"          # bytes after the array
  "2|pairs:bad_shape.npy:-o:out.npy"         # (N, 5)
  "2|pairs:f16.npy:-o:out.npy"               # float16
  "3|pairs:fields.csv:-o:out.npy"            # a line of 5 fields, read by every rank
  "2|pairs:f32.npy:word.csv:-o:out.npy"      # the second file bad
  "2|pairs:missing.npy:-o:out.npy"           # no such file
  "2|pairs:f32.npy:-o:no_such_dir/out.npy"   # rank 0 cannot write
  "2|pairs:f32.npy:-o:out.xyz"               # a usage error: exit 2
  "2|pairs:f32.npy:-o:out.npy:--algorithm:magic")
foreach(case IN LISTS CASES)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 p)
  list(GET parts 1 arg_text)
  string(REPLACE ":" ";" args "${arg_text}")
  single(ref ${args})
  ranks(run ${p} ${args})
  if(ref_rc EQUAL 0 OR NOT run_rc EQUAL ref_rc)
    message(FATAL_ERROR "${args}: broadphase exit ${ref_rc}, -n ${p} broadphase-mpi exit ${run_rc}\n${ref_err}\n${run_err}")
  endif()
  string(REGEX MATCH "^broadphase: [^\n]*" ref_line "${ref_err}")
  string(REPLACE "broadphase --help" "broadphase-mpi --help" ref_line "${ref_line}")
  string(REGEX REPLACE "^broadphase: " "broadphase-mpi: " want "${ref_line}")
  count_lines(n "${run_err}" "${want}")
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "-n ${p} ${args}: expected the line '${want}' once, got ${n} times in:\n${run_err}")
  endif()
  message(STATUS "-n ${p} ${args}: exit ${run_rc}: ${want}")
endforeach()

# --help and --version: printed once (rank 0), exit 0.
ranks(run 2 --version)
count_lines(n "${run_out}" "broadphase-mpi ${VERSION}")
if(NOT run_rc EQUAL 0 OR NOT n EQUAL 1)
  message(FATAL_ERROR "-n 2 broadphase-mpi --version: exit ${run_rc}:\n${run_out}")
endif()
ranks(run 2 pairs --help)
string(REGEX MATCHALL "\nUsage" usage "${run_out}")
list(LENGTH usage n)
if(NOT run_rc EQUAL 0 OR NOT n EQUAL 1)
  message(FATAL_ERROR "-n 2 broadphase-mpi pairs --help: exit ${run_rc}:\n${run_out}")
endif()
