# SPDX-License-Identifier: Apache-2.0
# `cmake --install` gives include/preduce/{*.hpp,detail,portable,backend}, the library, and a
# package config: find_package(preduce) -> preduce::preduce, preduce_BACKEND, and
# preduce_device_sources() for files that include <preduce/extend.hpp>; with COMPONENTS mpi or
# nccl, preduce::mpi / preduce::nccl (each in an export set of its own, so only a consumer who
# asks for one needs its engine).
include(CMakePackageConfigHelpers)
set(PREDUCE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/preduce")

install(TARGETS preduce EXPORT preduceTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/preduce DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY portable/preduce DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY backends/${BACKEND}/include/preduce DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT preduceTargets NAMESPACE preduce:: DESTINATION ${PREDUCE_INSTALL_CMAKEDIR})
foreach(component IN LISTS PREDUCE_COMPONENTS)
  install(TARGETS preduce_${component} EXPORT preduce_${component}Targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT preduce_${component}Targets NAMESPACE preduce:: DESTINATION ${PREDUCE_INSTALL_CMAKEDIR})
endforeach()

configure_package_config_file(cmake/preduceConfig.cmake.in "${CMAKE_CURRENT_BINARY_DIR}/preduceConfig.cmake"
  INSTALL_DESTINATION ${PREDUCE_INSTALL_CMAKEDIR})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/preduceConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
set(_preduce_modules)
foreach(m IN LISTS PREDUCE_CONSUMER_MODULES)
  list(APPEND _preduce_modules "${PROJECT_SOURCE_DIR}/cmake/${m}.cmake")
endforeach()
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/preduceConfig.cmake" "${CMAKE_CURRENT_BINARY_DIR}/preduceConfigVersion.cmake"
  ${_preduce_modules} DESTINATION ${PREDUCE_INSTALL_CMAKEDIR})
