# SPDX-License-Identifier: Apache-2.0
# preduce_add_dispatch_units(<target> <extension>): one generated translation unit per dispatch
# group, part and width (portable/builtin_dispatch.hpp), so a backend's compiler builds the
# built-in operator instantiations in parallel. <extension> is cu, hip.cpp or cpp. The groups are
# the rows of portable/preduce/portable/dispatch_table.hpp, read from it here in its order
# (slowest first, so the build tools start the longest units at once).
set(PREDUCE_DISPATCH_TABLE "${PROJECT_SOURCE_DIR}/portable/preduce/portable/dispatch_table.hpp")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PREDUCE_DISPATCH_TABLE}")
file(READ "${PREDUCE_DISPATCH_TABLE}" preduce_table)
string(REGEX MATCHALL "\n  X\\([a-z_]+," preduce_rows "${preduce_table}")  # (the rows end in a backslash, so no file(STRINGS))
set(PREDUCE_DISPATCH_GROUPS "")
foreach(preduce_row IN LISTS preduce_rows)
  string(REGEX REPLACE "\n  X\\(([a-z_]+)," "\\1" preduce_group "${preduce_row}")
  list(APPEND PREDUCE_DISPATCH_GROUPS "${preduce_group}")
endforeach()
if(NOT PREDUCE_DISPATCH_GROUPS)
  message(FATAL_ERROR "no dispatch groups read from ${PREDUCE_DISPATCH_TABLE}")
endif()
function(preduce_add_dispatch_units target extension)
  foreach(GROUP IN LISTS PREDUCE_DISPATCH_GROUPS)
    foreach(PART arrays segments)
      foreach(WIDTH wide narrow)
        set(out "${CMAKE_CURRENT_BINARY_DIR}/dispatch/dispatch_${GROUP}_${PART}_${WIDTH}.${extension}")
        configure_file("${PROJECT_SOURCE_DIR}/cmake/dispatch_group.in" "${out}" @ONLY)
        target_sources(${target} PRIVATE "${out}")
      endforeach()
    endforeach()
  endforeach()
endfunction()
