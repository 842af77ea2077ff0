# SPDX-License-Identifier: Apache-2.0
# preduce_add_dispatch_units(<target> <extension>): one generated translation unit per dispatch
# group and part (portable/builtin_dispatch.hpp), so a backend's compiler builds the built-in
# operator instantiations in parallel. <extension> is cu, hip.cpp or cpp.
set(PREDUCE_DISPATCH_GROUPS sums products dots moments extremes args logical_bitwise binned_sums binned_dots binned_moments)
function(preduce_add_dispatch_units target extension)
  foreach(GROUP IN LISTS PREDUCE_DISPATCH_GROUPS)
    foreach(PART arrays segments)
      set(out "${CMAKE_CURRENT_BINARY_DIR}/dispatch/dispatch_${GROUP}_${PART}.${extension}")
      configure_file("${PROJECT_SOURCE_DIR}/cmake/dispatch_group.in" "${out}" @ONLY)
      target_sources(${target} PRIVATE "${out}")
    endforeach()
  endforeach()
endfunction()
