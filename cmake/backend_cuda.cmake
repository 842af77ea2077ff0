# SPDX-License-Identifier: Apache-2.0
# The cuda backend: kernels compiled by nvcc into libpreduce for sm_80 and sm_90 by default.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90)
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(FATAL_ERROR "preduce: BACKEND=cuda needs nvcc (set CMAKE_CUDA_COMPILER or put nvcc on PATH), or use -DBACKEND=kokkos")
endif()
enable_language(CUDA)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
find_package(CUDAToolkit REQUIRED)

include(preduce_dispatch)
include(preduce_cuda_consumer)

target_sources(preduce PRIVATE backends/cuda/src/runtime.cpp src/gpu_runtime.cpp)
preduce_add_dispatch_units(preduce cu)
target_link_libraries(preduce PUBLIC CUDA::cudart)
set_target_properties(preduce PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
target_compile_options(preduce PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${PREDUCE_CUDA_FLAGS}>)

# What the installed package needs to rebuild the consumer side (cmake/preduceConfig.cmake.in).
set(PREDUCE_CONSUMER_MODULES preduce_cuda_consumer)
