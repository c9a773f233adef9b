# ctest script: `broadphase bench --device ...` behaves on any machine.
#   cmake -DCLI=path/to/broadphase -P cli_device.cmake
# --device cuda either succeeds with pairs verified against the CPU (a
# build with the CUDA backend on a machine with a device), or fails with
# exit 1 and a one-line reason (no backend, no device). A bad --device
# value (gpu, the former name, included) is a usage error (exit 2).
foreach(name cuda)
  execute_process(COMMAND ${CLI} bench sparse20k --device ${name} --frames 2 --verify --json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    if(NOT out MATCHES "\"algorithm\":\"cuda\"" OR NOT out MATCHES "\"verified\":true" OR NOT out MATCHES "\"transfer_ms\"")
      message(FATAL_ERROR "bench --device ${name}: unexpected output: ${out}")
    endif()
  elseif(rc EQUAL 1)
    if(NOT err MATCHES "built without the CUDA backend|no CUDA device found")
      message(FATAL_ERROR "bench --device ${name} failed without a clear reason: ${err}")
    endif()
  else()
    message(FATAL_ERROR "bench --device ${name}: exit ${rc}: ${err}")
  endif()
endforeach()
foreach(name tpu gpu)
  execute_process(COMMAND ${CLI} bench sparse20k --device ${name} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "--device needs cpu or cuda")
    message(FATAL_ERROR "bench --device ${name}: exit ${rc}: ${err}")
  endif()
endforeach()
execute_process(COMMAND ${CLI} bench sparse20k --device cpu --frames 1 --json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\"pairs\":126")
  message(FATAL_ERROR "bench --device cpu: exit ${rc}: ${out} ${err}")
endif()
