# SPDX-License-Identifier: Apache-2.0
# The kokkos backend: Kokkos::parallel_reduce-shaped kernels on Kokkos's default execution space,
# compiled by the project's CXX compiler (nvcc_wrapper or clang where Kokkos targets a GPU).
include(preduce_find_kokkos)
if(NOT preduce_kokkos_FOUND)
  message(FATAL_ERROR "preduce: BACKEND=kokkos: ${preduce_kokkos_NOT_FOUND_MESSAGE}")
endif()

include(preduce_dispatch)
target_sources(preduce PRIVATE backends/kokkos/src/runtime.cpp)
preduce_add_dispatch_units(preduce cpp)
# PUBLIC: extend.hpp users compile the backend's kernel templates, which include Kokkos.
target_link_libraries(preduce PUBLIC preduce_kokkos)

# What the installed package needs (cmake/preduceConfig.cmake.in): the consumer module to
# include, and the Kokkos it must find again (set PREDUCE_KOKKOS_DIR before including it).
set(PREDUCE_CONSUMER_MODULES preduce_find_kokkos)
set(PREDUCE_KOKKOS_DIR "${Kokkos_DIR}")
