# SPDX-License-Identifier: Apache-2.0
# Consumer side of the cuda backend, used by the build and by the installed package:
# preduce_device_sources() compiles the named files with nvcc so they can include
# <preduce/extend.hpp> (custom operators and transforms).
set(PREDUCE_CUDA_FLAGS --extended-lambda)

function(preduce_device_sources target)
  if(NOT CMAKE_CUDA_COMPILER_LOADED)
    message(FATAL_ERROR "preduce_device_sources: call enable_language(CUDA) in this project first (preduce was built with BACKEND=cuda)")
  endif()
  set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  target_sources(${target} PRIVATE ${ARGN})
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${PREDUCE_CUDA_FLAGS}>)
  get_target_property(archs ${target} CUDA_ARCHITECTURES)
  if(NOT archs)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
endfunction()
