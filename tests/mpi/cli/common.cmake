# Shared by the broadphase-mpi CLI test scripts (cmake -P). Defined by the
# caller (tests/mpi/cli/CMakeLists.txt): CLI (broadphase), MPI_CLI
# (broadphase-mpi), MAKE_INPUTS, MPIEXEC, NP_FLAG, PRE, POST (mpiexec's
# flags, possibly empty), WORK (a fresh directory for this test).
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${MAKE_INPUTS} ${WORK} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_inputs failed: ${rc}")
endif()

# single(<prefix> args...): runs `broadphase args...` in WORK; sets
# <prefix>_rc, <prefix>_out, <prefix>_err.
function(single prefix)
  execute_process(COMMAND ${CLI} ${ARGN} WORKING_DIRECTORY ${WORK} TIMEOUT 60
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# ranks(<prefix> P args...): runs `mpiexec -n P broadphase-mpi args...` in
# WORK with a time limit (a hang fails the test rather than blocking it);
# sets <prefix>_rc, <prefix>_out, <prefix>_err.
function(ranks prefix p)
  execute_process(COMMAND ${MPIEXEC} ${NP_FLAG} ${p} ${PRE} ${MPI_CLI} ${POST} ${ARGN}
                  WORKING_DIRECTORY ${WORK} TIMEOUT 60
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "mpiexec -n ${p} broadphase-mpi ${ARGN}: ${rc} (hung?)\n${out}\n${err}")
  endif()
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# count_lines(<var> <text> <line>): how many lines of text equal line
# (found as text, not split into a list: a line may hold ';').
function(count_lines var text line)
  set(rest "\n${text}\n")
  set(needle "\n${line}\n")
  string(LENGTH "${needle}" step)
  math(EXPR step "${step} - 1")  # the next line starts at the needle's last \n
  set(n 0)
  while(TRUE)
    string(FIND "${rest}" "${needle}" at)
    if(at EQUAL -1)
      break()
    endif()
    math(EXPR n "${n} + 1")
    math(EXPR at "${at} + ${step}")
    string(SUBSTRING "${rest}" ${at} -1 rest)
  endwhile()
  set(${var} ${n} PARENT_SCOPE)
endfunction()
