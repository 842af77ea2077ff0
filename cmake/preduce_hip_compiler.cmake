# SPDX-License-Identifier: Apache-2.0
# Included before project(): with BACKEND=hip every C++ file is compiled by hipcc, which must be
# the C++ compiler before CMake enables the language. Picks hipcc when no compiler was named
# (CMAKE_CXX_COMPILER or $CXX), and names the offload targets for the configure step: hipcc
# asks rocm_agent_enumerator for a target when none is given, which fails on a machine without
# an AMD GPU, and CMake's compiler checks run before any flag of ours (the build itself passes
# --offload-arch explicitly; see backend_hip.cmake).
if(NOT BACKEND STREQUAL "hip")
  return()
endif()
if(NOT CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
  find_program(PREDUCE_HIPCC hipcc HINTS ENV ROCM_PATH PATH_SUFFIXES bin PATHS /opt/rocm/bin)
  if(PREDUCE_HIPCC)
    set(CMAKE_CXX_COMPILER "${PREDUCE_HIPCC}")
  endif()
endif()
set(PREDUCE_HIP_ARCHS "gfx90a;gfx940;gfx1030" CACHE STRING
    "AMD GPU targets of the hip backend (--offload-arch values): MI200, MI300, RDNA2 by default")
string(REPLACE ";" "," _preduce_hip_targets "${PREDUCE_HIP_ARCHS}")
set(ENV{HCC_AMDGPU_TARGET} "${_preduce_hip_targets}")
unset(_preduce_hip_targets)
