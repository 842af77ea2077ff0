# SPDX-License-Identifier: Apache-2.0
# ctest script: builds TARGET in BUILD_DIR and passes only if the build fails with the message
# that SOURCE names on its "// expect: " line (a static_assert of the public headers).
#   cmake -DBUILD_DIR=... -DTARGET=... -DSOURCE=... -P expect_compile_error.cmake
file(STRINGS "${SOURCE}" expect_line REGEX "^// expect: " LIMIT_COUNT 1)
if(NOT expect_line)
  message(FATAL_ERROR "${SOURCE} has no '// expect: <message>' line")
endif()
string(REGEX REPLACE "^// expect: " "" expected "${expect_line}")
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must fail with: ${expected}")
endif()
string(FIND "${output}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${TARGET} failed without the expected message '${expected}':\n${output}")
endif()
message(STATUS "${TARGET} failed as expected: ${expected}")
