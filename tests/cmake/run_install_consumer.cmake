# SPDX-License-Identifier: Apache-2.0
# ctest script: installs the preduce build in BUILD_DIR to WORK_DIR/prefix, then configures
# (with the initial cache INITIAL_CACHE, which puts that prefix first on CMAKE_PREFIX_PATH),
# builds and runs the consumer project in CONSUMER_DIR, which must report backend BACKEND.
#   cmake -DBUILD_DIR=... -DCONSUMER_DIR=... -DWORK_DIR=... -DINITIAL_CACHE=... -DBACKEND=...
#         -P run_install_consumer.cmake
function(run step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  message(STATUS "${step}:\n${output}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${step} failed (${result})")
  endif()
  set(last_output "${output}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix")
run("configure consumer" "${CMAKE_COMMAND}" -C "${INITIAL_CACHE}" -S "${CONSUMER_DIR}" -B "${WORK_DIR}/build")
run("build consumer" "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
find_program(consumer preduce-consumer PATHS "${WORK_DIR}/build" "${WORK_DIR}/build/Release" NO_DEFAULT_PATH REQUIRED)
run("run consumer" "${consumer}")
if(NOT last_output MATCHES "backend ${BACKEND} ")
  message(FATAL_ERROR "install_consumer: the consumer did not report backend ${BACKEND}")
endif()
