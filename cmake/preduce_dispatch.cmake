# SPDX-License-Identifier: Apache-2.0
# preduce_add_dispatch_units(<target> <extension>): one generated translation unit per dispatch
# group, part and width (portable/builtin_dispatch.hpp), so a backend's compiler builds the
# built-in operator instantiations in parallel. <extension> is cu, hip.cpp or cpp.
# Slowest first: the build tools start units in this order, so the longest ones begin at once
# (16 jobs on an H100 host at git 91d3e88, arrays + segments units before the split by width:
# binned_sums 549 + 450 s, extremes 394 + 408, args 391 + 375, binned_moments_double 376 + 313,
# binned_moments_float 321 + 263, binned_dots 313 + 289, moments 224 + 309, sums 233 + 242,
# logical_bitwise 206 + 241, dots 164 + 159, products 106 + 118).
set(PREDUCE_DISPATCH_GROUPS binned_sums extremes args binned_moments_double binned_moments_float binned_dots
    moments sums logical_bitwise dots products)
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
