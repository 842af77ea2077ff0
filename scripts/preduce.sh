#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One-command set-up on a fresh Debian machine: installs what is missing, configures, builds, runs.
#   scripts/preduce.sh bench [preduce-bench args]   build preduce-bench and run it (default: --quick)
#   scripts/preduce.sh test  [ctest args]           build the library and the suite, run the suite
# BACKEND=cuda|hip|kokkos overrides the default (cuda where nvcc and an NVIDIA GPU are present,
# else kokkos). BUILD_DIR overrides build/<backend>. JOBS overrides the parallel build width.
# PREDUCE_HIP_ARCHS (hip) names the AMD targets, e.g. gfx942 (default gfx90a;gfx940;gfx1030).
set -euo pipefail
cd "$(dirname "$0")/.."

what=${1:-}
shift || true
case "$what" in bench|test) ;; *) echo "usage: $0 bench|test [args...]" >&2; exit 2 ;; esac

need_packages=()
command -v cmake >/dev/null || need_packages+=(cmake)
command -v g++ >/dev/null || need_packages+=(g++)
command -v make >/dev/null || need_packages+=(make)
[ -f /usr/include/doctest/doctest.h ] || need_packages+=(doctest-dev)
if [ "${BACKEND:-}" != cuda ] && [ "${BACKEND:-}" != hip ] && [ -z "${Kokkos_ROOT:-}" ] &&
   ! ls /usr/include/trilinos/Kokkos_Core.hpp >/dev/null 2>&1; then
  need_packages+=(libtrilinos-kokkos-dev)
fi
if [ "${BACKEND:-}" = hip ] && ! command -v hipcc >/dev/null && [ ! -x /opt/rocm/bin/hipcc ]; then
  need_packages+=(hipcc libamdhip64-dev rocm-device-libs librocprim-dev)  # Debian's HIP 5.2 and rocPRIM
fi
if [ ${#need_packages[@]} -gt 0 ]; then
  echo "preduce: installing ${need_packages[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${need_packages[@]}"
fi

# nvcc lives outside PATH in the toolkit's default location.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
if [ -z "${BACKEND:-}" ]; then
  BACKEND=kokkos
  if command -v nvcc >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then BACKEND=cuda; fi
fi
build=${BUILD_DIR:-build/$BACKEND}
jobs=${JOBS:-$(nproc)}

configure=(cmake -S . -B "$build" -DBACKEND="$BACKEND" -DCMAKE_BUILD_TYPE=Release)
[ -n "${Kokkos_ROOT:-}" ] && configure+=(-DKokkos_ROOT="$Kokkos_ROOT")
[ -n "${PREDUCE_HIP_ARCHS:-}" ] && configure+=(-DPREDUCE_HIP_ARCHS="$PREDUCE_HIP_ARCHS")
"${configure[@]}"

if [ "$what" = bench ]; then
  cmake --build "$build" -j "$jobs" --target preduce-bench
  [ $# -gt 0 ] || set -- --quick
  exec "$build/bench/preduce-bench" "$@"
else
  cmake --build "$build" -j "$jobs"
  exec ctest --test-dir "$build" --output-on-failure -j "$jobs" "$@"
fi
