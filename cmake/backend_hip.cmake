# SPDX-License-Identifier: Apache-2.0
# The hip backend: kernels compiled by hipcc (Debian's HIP 5.2 / clang 15, or ROCm's) into
# libpreduce for PREDUCE_HIP_ARCHS (default gfx90a, gfx940, gfx1030; set in
# preduce_hip_compiler.cmake, which also picks hipcc). hipcc compiles every .cpp as HIP and
# needs a target for every compile and link, so the offload flags apply to every target of the
# build (library, tests, bench), not only to the kernels.
if(NOT CMAKE_CXX_COMPILER MATCHES "hipcc")
  message(FATAL_ERROR "preduce: BACKEND=hip compiles with hipcc, but the C++ compiler is ${CMAKE_CXX_COMPILER}. "
                      "Install hipcc (Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs) and configure a fresh "
                      "build directory, or pass -DCMAKE_CXX_COMPILER=<path to hipcc>")
endif()
if(NOT PREDUCE_HIP_ARCHS)
  message(FATAL_ERROR "preduce: PREDUCE_HIP_ARCHS is empty; name at least one AMD target, e.g. -DPREDUCE_HIP_ARCHS=gfx90a")
endif()
include(preduce_hip_consumer)
include(preduce_dispatch)

add_compile_options(${PREDUCE_HIP_OFFLOAD_FLAGS})
add_link_options(${PREDUCE_HIP_OFFLOAD_FLAGS})
target_compile_options(preduce PRIVATE ${PREDUCE_HIP_OFFLOAD_FLAGS})
target_link_options(preduce PRIVATE ${PREDUCE_HIP_OFFLOAD_FLAGS})
target_sources(preduce PRIVATE backends/hip/src/runtime.cpp src/gpu_runtime.cpp)
preduce_add_dispatch_units(preduce hip.cpp)
target_link_libraries(preduce PUBLIC hip::host)
message(STATUS "preduce: HIP ${hip_VERSION}, targets ${PREDUCE_HIP_ARCHS}")

# What the installed package needs (cmake/preduceConfig.cmake.in): the consumer module, which
# finds HIP again and compiles extend.hpp users for the same targets.
set(PREDUCE_CONSUMER_MODULES preduce_hip_consumer)
