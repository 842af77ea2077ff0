# SPDX-License-Identifier: Apache-2.0
# Consumer side of the hip backend, used by the build and by the installed package: finds HIP
# (hip::host, which libpreduce links) and defines preduce_device_sources(), which compiles the
# named files for the AMD targets preduce was built for (PREDUCE_HIP_ARCHS) so they can include
# <preduce/extend.hpp> (custom operators and transforms). Those files need hipcc as the
# project's C++ compiler.
find_package(hip CONFIG QUIET)
if(NOT hip_FOUND)
  set(_preduce_hip_message "HIP was not found: install Debian's hipcc and libamdhip64-dev (or ROCm), or pass -Dhip_DIR=<dir of hip-config.cmake>")
  if(CMAKE_FIND_PACKAGE_NAME STREQUAL "preduce")
    set(preduce_FOUND FALSE)
    set(preduce_NOT_FOUND_MESSAGE "${_preduce_hip_message}")
    return()
  endif()
  message(FATAL_ERROR "preduce: BACKEND=hip: ${_preduce_hip_message}")
endif()

#! The offload flags of PREDUCE_HIP_ARCHS: one --offload-arch=<target> each.
set(PREDUCE_HIP_OFFLOAD_FLAGS "")
foreach(_preduce_arch IN LISTS PREDUCE_HIP_ARCHS)
  list(APPEND PREDUCE_HIP_OFFLOAD_FLAGS "--offload-arch=${_preduce_arch}")
endforeach()
unset(_preduce_arch)

#! preduce_device_sources(<target> <file>...): adds files that include <preduce/extend.hpp> to
#! <target>, compiled as HIP for PREDUCE_HIP_ARCHS, and links <target> for those targets.
function(preduce_device_sources target)
  if(NOT CMAKE_CXX_COMPILER MATCHES "hipcc")
    message(FATAL_ERROR "preduce_device_sources: preduce was built with BACKEND=hip; configure this project with -DCMAKE_CXX_COMPILER=hipcc")
  endif()
  set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS -x hip ${PREDUCE_HIP_OFFLOAD_FLAGS})
  target_sources(${target} PRIVATE ${ARGN})
  target_link_options(${target} PRIVATE ${PREDUCE_HIP_OFFLOAD_FLAGS})
endfunction()
