# SPDX-License-Identifier: Apache-2.0
# preduce_add_dispatch_units(<target> <extension>): one generated translation unit per dispatch
# group and part (portable/builtin_dispatch.hpp), so a backend's compiler builds the built-in
# operator instantiations in parallel. <extension> is cu, hip.cpp or cpp.
# Slowest first: the build tools start units in this order, so the longest ones begin at once
# (one core at git 511cc70, both parts together: binned_moments 533 s before its split by
# accumulator, binned_sums 384, extremes 367, args 331, binned_dots 235, moments 211, sums 209,
# logical_bitwise 205, dots 135, products 105).
set(PREDUCE_DISPATCH_GROUPS binned_moments_double binned_moments_float binned_sums extremes args binned_dots
    moments sums logical_bitwise dots products)
function(preduce_add_dispatch_units target extension)
  foreach(GROUP IN LISTS PREDUCE_DISPATCH_GROUPS)
    foreach(PART arrays segments)
      set(out "${CMAKE_CURRENT_BINARY_DIR}/dispatch/dispatch_${GROUP}_${PART}.${extension}")
      configure_file("${PROJECT_SOURCE_DIR}/cmake/dispatch_group.in" "${out}" @ONLY)
      target_sources(${target} PRIVATE "${out}")
    endforeach()
  endforeach()
endfunction()
