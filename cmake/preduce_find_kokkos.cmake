# SPDX-License-Identifier: Apache-2.0
# Finds Kokkos >= 3.4 and defines the imported target preduce_kokkos and preduce_device_sources();
# used by the build (backend_kokkos.cmake) and by the installed package config, so it relies on
# nothing in the source tree.
#
# Inputs (all optional): Kokkos_ROOT / Kokkos_DIR / CMAKE_PREFIX_PATH as for any package, and
# PREDUCE_KOKKOS_DIR, the directory of the KokkosConfig.cmake preduce was built with (the
# installed package config sets it, so consumers get the same Kokkos).
# Outputs: preduce_kokkos_FOUND, and preduce_kokkos_NOT_FOUND_MESSAGE when it is FALSE; when
# included by preduce's package config, a failure also sets preduce_FOUND to FALSE with that
# message, so find_package(preduce) reports it.
#
# Two installs are known to work:
#  1. A Kokkos 4.x (or 3.x) installed by its own CMake build: Kokkos::kokkos is used as is.
#  2. Debian's libtrilinos-kokkos-dev (Kokkos 3.4.01, Serial, built by Trilinos' TriBITS). Its
#     Kokkos::kokkos names the include directory <prefix>/include (the headers are in
#     <prefix>/include/trilinos) and links a bogus `-DKOKKOS_DEPENDENCE` item, so an equivalent
#     target is built from the headers and libtrilinos_kokkoscore. It was configured for C++14;
#     its headers and library work unchanged from C++17 code (checked with g++ 12).

if(TARGET preduce_kokkos)
  set(preduce_kokkos_FOUND TRUE)
  return()
endif()
set(preduce_kokkos_FOUND FALSE)

# Records why Kokkos is unusable and leaves this file.
macro(_preduce_kokkos_fail)
  string(CONCAT preduce_kokkos_NOT_FOUND_MESSAGE ${ARGN})
  if(CMAKE_FIND_PACKAGE_NAME STREQUAL "preduce")
    set(preduce_FOUND FALSE)
    set(preduce_NOT_FOUND_MESSAGE "${preduce_kokkos_NOT_FOUND_MESSAGE}")
  endif()
  return()
endmacro()

find_package(Kokkos CONFIG QUIET HINTS ${PREDUCE_KOKKOS_DIR})
if(NOT Kokkos_FOUND OR NOT TARGET Kokkos::kokkos)
  _preduce_kokkos_fail("Kokkos was not found. Install Debian's libtrilinos-kokkos-dev, or pass "
                       "-DKokkos_ROOT=<prefix of a Kokkos >= 3.4 install>.")
endif()
if(Kokkos_VERSION VERSION_LESS 3.4)
  _preduce_kokkos_fail("Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR} is too old: preduce needs Kokkos >= 3.4 "
                       "(pass -DKokkos_ROOT=<prefix of a newer install>).")
endif()

# Is Kokkos::kokkos usable as it is? Only an imported target whose plain include directories
# all lack Kokkos_Core.hpp is broken (a Kokkos built in the same tree, or 4.x's target that
# carries no directories of its own and links Kokkos::kokkoscore, is fine).
get_target_property(_preduce_kokkos_imported Kokkos::kokkos IMPORTED)
get_target_property(_preduce_kokkos_includes Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
set(_preduce_kokkos_broken FALSE)
if(_preduce_kokkos_imported AND _preduce_kokkos_includes AND NOT _preduce_kokkos_includes MATCHES "\\$<")
  set(_preduce_kokkos_broken TRUE)
  foreach(_dir IN LISTS _preduce_kokkos_includes)
    if(EXISTS "${_dir}/Kokkos_Core.hpp")
      set(_preduce_kokkos_broken FALSE)
    endif()
  endforeach()
endif()

if(_preduce_kokkos_broken)
  # The TriBITS config's own variables point at the right places.
  find_path(PREDUCE_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp HINTS ${Kokkos_INCLUDE_DIRS} PATH_SUFFIXES trilinos)
  find_library(PREDUCE_KOKKOS_LIBRARY NAMES trilinos_kokkoscore kokkoscore HINTS ${Kokkos_LIBRARY_DIRS})
  if(NOT PREDUCE_KOKKOS_INCLUDE_DIR OR NOT PREDUCE_KOKKOS_LIBRARY)
    _preduce_kokkos_fail("the Kokkos package at ${Kokkos_DIR} names include directories without Kokkos_Core.hpp "
                         "(${_preduce_kokkos_includes}), and its headers or libtrilinos_kokkoscore could not be found "
                         "either. Reinstall libtrilinos-kokkos-dev, or pass -DKokkos_ROOT=<prefix of a Kokkos >= 3.4 install>.")
  endif()
  add_library(preduce_kokkos INTERFACE IMPORTED)
  set_target_properties(preduce_kokkos PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${PREDUCE_KOKKOS_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${PREDUCE_KOKKOS_LIBRARY};${CMAKE_DL_LIBS}")
  set(_preduce_kokkos_how "rebuilt target: ${PREDUCE_KOKKOS_INCLUDE_DIR}, ${PREDUCE_KOKKOS_LIBRARY}")
else()
  add_library(preduce_kokkos INTERFACE IMPORTED)
  set_target_properties(preduce_kokkos PROPERTIES INTERFACE_LINK_LIBRARIES Kokkos::kokkos)
  set(_preduce_kokkos_how "Kokkos::kokkos")
endif()
set(preduce_kokkos_FOUND TRUE)
if(NOT preduce_FIND_QUIETLY)
  message(STATUS "preduce: Kokkos ${Kokkos_VERSION} (${Kokkos_DEVICES}) from ${Kokkos_DIR}, ${_preduce_kokkos_how}")
endif()
unset(_preduce_kokkos_imported)
unset(_preduce_kokkos_includes)
unset(_preduce_kokkos_broken)
unset(_preduce_kokkos_how)
unset(_dir)

#! preduce_device_sources(<target> <file>...): adds files that include <preduce/extend.hpp> to
#! <target>. Kokkos code is ordinary C++ for the project's CXX compiler, which for Kokkos's CUDA
#! backend is already nvcc_wrapper (or clang), so the files only need preduce's usage
#! requirements, Kokkos's included. (preduce_kokkos itself is not linked by name: an imported
#! target is visible only below the directory that found it, preduce::preduce everywhere.)
function(preduce_device_sources target)
  target_sources(${target} PRIVATE ${ARGN})
  target_link_libraries(${target} PRIVATE preduce::preduce)
endfunction()
