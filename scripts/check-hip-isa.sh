#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reads the AMD GPU code the hip backend compiled and fails unless the wavefront reductions are
# the DPP-fused sequences of portable/wave_steps.hpp. No AMD GPU needed: it disassembles the code
# objects inside the library's objects (clang-offload-bundler-15 and llvm-objdump-15, from
# Debian's clang-15 / llvm-15, which hipcc depends on).
#   scripts/check-hip-isa.sh [BUILD_DIR]     (default build/hip; configured with -DBACKEND=hip)
#   scripts/check-hip-isa.sh --targets       prints the object targets it reads, for a build
#                                            that compiles only those (as CI does, at -O3)
# Reads the dispatch objects of the units that hold these reductions (isa_units below).
# Checks, for every target among gfx90a, gfx940, gfx1030 that BUILD_DIR was compiled for
# (gfx90a must be one):
#   1. the single-pass f32 sum kernel of the target's wavefront size runs the whole sequence as
#      DPP-modified adds, in order, and reads the result lane with v_readlane_b32:
#        wave64 (gfx90a, gfx940): quad_perm:[1,0,3,2] quad_perm:[2,3,0,1] row_ror:4 row_ror:8
#                                 row_bcast:15 row_bcast:31, lane 63
#        wave32 (gfx1030):        the same four in-row steps, v_permlanex16_b32, lane 31
#   2. the objects read use DPP-modified ALU instructions for add (f32, u32; GFX10 names the
#      latter v_add_nc_u32), mul (f32), min and max (i32, u32), and, or and xor: each appears at
#      least once.
#   3. the kernels instantiated for the other wavefront size are traps (s_trap), never code.
# Prints what it found (instruction counts per target) so CI logs show the evidence.
set -euo pipefail
cd "$(dirname "$0")/.."
isa_units=(sums products extremes logical_bitwise)
targets=()
for u in "${isa_units[@]}"; do targets+=("CMakeFiles/preduce.dir/dispatch/dispatch_${u}_arrays_wide.hip.cpp.o"); done
if [ "${1:-}" = --targets ]; then echo "${targets[@]}"; exit 0; fi
build=${1:-build/hip}
objects=()
for t in "${targets[@]}"; do
  [ -f "$build/$t" ] || { echo "check-hip-isa: no $t in $build (build it with -DBACKEND=hip first)" >&2; exit 2; }
  objects+=("$build/$t")
done
for tool in llvm-objcopy-15 clang-offload-bundler-15 llvm-objdump-15; do
  command -v "$tool" >/dev/null || { echo "check-hip-isa: $tool not found (apt-get install llvm-15 clang-15)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Disassembles the code object of target $1 from every dispatch object into $work/$1/<unit>.s.
disassemble() {
  local arch=$1 o unit
  mkdir -p "$work/$arch"
  for o in "${objects[@]}"; do
    unit=$(basename "$o" .hip.cpp.o)
    llvm-objcopy-15 --dump-section=.hip_fatbin="$work/fatbin" "$o" "$work/discard.o"
    clang-offload-bundler-15 --list --type=o --input="$work/fatbin" | grep -qx "hipv4-amdgcn-amd-amdhsa--$arch" || return 1
    clang-offload-bundler-15 --type=o --input="$work/fatbin" --targets="hipv4-amdgcn-amd-amdhsa--$arch" \
      --output="$work/$arch/$unit.co" --unbundle
    llvm-objdump-15 -d -C --mcpu="$arch" "$work/$arch/$unit.co" >"$work/$arch/$unit.s"
  done
}

# Prints the instructions of the kernel whose demangled name contains $2, from file $1.
kernel_body() {
  awk -v want="$2" '/^[0-9a-f]+ </ { inside = index($0, want) > 0; next } inside' "$1"
}

# Checks that the DPP modifiers and the readlane of $3 appear in this order in the kernel body $1
# ($2: a name for messages).
check_sequence() {
  local body=$1 what=$2 expected=$3 found
  found=$(grep -oE 'v_add_f32_dpp .*(quad_perm:\[[0-9,]+\]|row_ror:[0-9]+|row_bcast:[0-9]+)|v_permlanex16_b32|v_readlane_b32 [^,]+, v[0-9]+, [0-9]+' <<<"$body" |
          sed -E 's/v_add_f32_dpp .*(quad_perm:\[[0-9,]+\]|row_ror:[0-9]+|row_bcast:[0-9]+).*/\1/; s/v_readlane_b32 [^,]+, v[0-9]+, ([0-9]+)/readlane:\1/' |
          tr '\n' ' ')
  echo "  $what: $found"
  # The kernel holds the sequence twice (the block's wavefronts, then the last block's second
  # round): every occurrence must be the whole sequence in order, with nothing else between.
  if [ -z "$found" ] || [ -n "${found//"$expected "/}" ]; then fail "$what: expected only repetitions of '$expected'"; fi
}

sum_kernel='preduce::detail::reducer<preduce::plus<float>, float, void>, preduce::detail::array_source<float>>('
checked=0
for arch in gfx90a gfx940 gfx1030; do
  if ! disassemble "$arch"; then
    [ "$arch" = gfx90a ] && fail "$build was not compiled for gfx90a (configure with PREDUCE_HIP_ARCHS containing gfx90a)"
    continue
  fi
  checked=$((checked + 1))
  echo "== $arch"
  if [ "$arch" = gfx1030 ]; then wave=32 other=64; else wave=64 other=32; fi
  body=$(kernel_body "$work/$arch/dispatch_sums_arrays_wide.s" "reduce_whole_kernel<(preduce::backend::device_shape)0, $wave, 256, $sum_kernel")
  [ -n "$body" ] || fail "$arch: no single-pass f32 sum kernel for wave$wave"
  if [ $wave = 64 ]; then
    expected='quad_perm:[1,0,3,2] quad_perm:[2,3,0,1] row_ror:4 row_ror:8 row_bcast:15 row_bcast:31 readlane:63'
  else
    expected='quad_perm:[1,0,3,2] quad_perm:[2,3,0,1] row_ror:4 row_ror:8 v_permlanex16_b32 readlane:31'
  fi
  check_sequence "$body" "f32 sum, wave$wave, single_pass" "$expected"

  other_body=$(kernel_body "$work/$arch/dispatch_sums_arrays_wide.s" "reduce_whole_kernel<(preduce::backend::device_shape)0, $other, 256, $sum_kernel")
  if grep -q s_trap <<<"$other_body" && ! grep -q _dpp <<<"$other_body"; then
    echo "  wave$other instantiation: a trap, as intended"
  else
    fail "$arch: the wave$other f32 sum kernel is not a bare trap"
  fi

  echo "  DPP-modified ALU instructions in the objects read (count):"
  cat "$work/$arch"/*.s | grep -oE '\bv_[a-z0-9_]+_dpp\b' | grep -v '^v_mov_b32_dpp$' | sort | uniq -c | sed 's/^/    /'
  add_u32=v_add_u32_dpp
  [ "$arch" = gfx1030 ] && add_u32=v_add_nc_u32_dpp  # GFX10's name for the carry-less integer add
  for insn in v_add_f32_dpp $add_u32 v_mul_f32_dpp v_min_i32_dpp v_max_i32_dpp v_min_u32_dpp v_max_u32_dpp \
              v_and_b32_dpp v_or_b32_dpp v_xor_b32_dpp; do
    grep -qw "$insn" "$work/$arch"/*.s || fail "$arch: no $insn in the objects read"
  done
done

if [ "$failures" -gt 0 ]; then
  echo "check-hip-isa: $failures failure(s)"
  exit 1
fi
echo "check-hip-isa: ok ($checked target(s))"
