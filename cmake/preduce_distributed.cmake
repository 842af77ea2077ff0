# SPDX-License-Identifier: Apache-2.0
# The distributed calls' engine adapters, each an optional library beside the core one (which
# holds the calls themselves, src/distributed/allreduce.cpp, and never needs an engine):
#   preduce::mpi   src/distributed/mpi.cpp over MPI (any backend), where MPI is found
#   preduce::nccl  src/distributed/nccl.cpp over NCCL (cuda backend), where nccl.h is found, and
#                  nccl_symmetric.cu: its exchanges over NCCL's symmetric memory (NCCL 2.28 or later)
# PREDUCE_WITH_MPI / PREDUCE_WITH_NCCL: AUTO (build where found), ON (required) or OFF.
set(PREDUCE_WITH_MPI AUTO CACHE STRING "Build preduce::mpi: AUTO, ON or OFF")
set(PREDUCE_WITH_NCCL AUTO CACHE STRING "Build preduce::nccl (cuda backend): AUTO, ON or OFF")
set(PREDUCE_COMPONENTS)

if(NOT PREDUCE_WITH_MPI STREQUAL "OFF")
  if(PREDUCE_WITH_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS CXX)
  else()
    find_package(MPI QUIET COMPONENTS CXX)
  endif()
  if(MPI_CXX_FOUND)
    add_library(preduce_mpi src/distributed/mpi.cpp)
    add_library(preduce::mpi ALIAS preduce_mpi)
    set_target_properties(preduce_mpi PROPERTIES EXPORT_NAME mpi POSITION_INDEPENDENT_CODE ON)
    target_link_libraries(preduce_mpi PUBLIC preduce MPI::MPI_CXX)
    list(APPEND PREDUCE_COMPONENTS mpi)
  endif()
endif()

if(BACKEND STREQUAL "cuda" AND NOT PREDUCE_WITH_NCCL STREQUAL "OFF")
  find_path(PREDUCE_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV NCCL_HOME PATH_SUFFIXES include)
  find_library(PREDUCE_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ENV NCCL_HOME PATH_SUFFIXES lib lib64)
  if(PREDUCE_NCCL_INCLUDE_DIR AND PREDUCE_NCCL_LIBRARY)
    # nccl_symmetric.cu: the exchanges over NCCL's symmetric memory (its device API, NCCL 2.28+).
    add_library(preduce_nccl src/distributed/nccl.cpp src/distributed/nccl_symmetric.cu)
    add_library(preduce::nccl ALIAS preduce_nccl)
    set_target_properties(preduce_nccl PROPERTIES EXPORT_NAME nccl POSITION_INDEPENDENT_CODE ON)
    target_include_directories(preduce_nccl PUBLIC "$<BUILD_INTERFACE:${PREDUCE_NCCL_INCLUDE_DIR}>")
    target_link_libraries(preduce_nccl PUBLIC preduce CUDA::cudart "$<BUILD_INTERFACE:${PREDUCE_NCCL_LIBRARY}>"
                                              "$<INSTALL_INTERFACE:$<IF:$<BOOL:${PREDUCE_NCCL_LIBRARY}>,nccl,>>")
    list(APPEND PREDUCE_COMPONENTS nccl)
  elseif(PREDUCE_WITH_NCCL STREQUAL "ON")
    message(FATAL_ERROR "preduce: PREDUCE_WITH_NCCL=ON but nccl.h / libnccl were not found (set NCCL_HOME)")
  endif()
endif()
message(STATUS "preduce: distributed components: ${PREDUCE_COMPONENTS}")
