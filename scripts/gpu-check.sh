#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Everything that needs a GPU, in one call of the device tool: configure and build the cuda
# backend (sm_90), run the whole suite, compute-sanitizer, preduce-bench and its host-latency
# mode. Results go to $OUT: summary.txt, build.log, ninja_log (when ninja built it), ctest.log,
# sanitizer.log, bench.txt (the bench's table, then the latency table), bench.json,
# latency.json. On a lent machine of four GPUs (64 cores) build, suite, tools and bench fit one
# 600 s call; on one GPU's 16 cores the build alone takes most of a call: run the stages after
# it in a second call while the machine is warm (STAGES="test sanitize bench latency").
# The device tool brings back at most 8 files from $OUT and these are 8: a command that adds its
# own should leave them in $OUT as one archive (tar), or summary.txt and others are left behind.
#   STAGES="build sass test sanitize bench latency"  the stages to run (default: all; sass counts
#                                       the library's vector loads, shuffles and spills: ~2 minutes)
#   BUILD_TARGETS="preduce-bench"       build only these targets (default: everything)
#   BENCH_ARGS="--quick"                arguments for preduce-bench
#   SAN_TIMEOUT=420 SAN_CASES='*'       each sanitizer's time cap (s) and doctest --test-case filter
#   STUDY=1                             build the study-only variants too (-DPREDUCE_STUDY_KERNELS=ON:
#                                       algorithm::two_pass, the non-default warp algorithms)
#   GIT_REVISION=<rev>[-dirty]          the revision the bench JSON records (the device's copy of
#                                       the tree has no .git): GIT_REVISION=$(git describe --always --dirty)
# The stage "python" (not in the default list) builds the Python extension with the library
# (-DPREDUCE_PYTHON=ON; BUILD_TARGETS=_preduce builds the library and it alone), runs pytest on
# python/tests (torch and CuPy arrays) and bench/python_bench.py: python.txt, python.json.
# The stage "distributed" (not in the default list; for machines of several GPUs) runs the NCCL
# tests (a thread per GPU over the symmetric path, again over NCCL's collectives with
# PREDUCE_NCCL_SYMMETRIC=0, then a process per GPU under mpirun; each under a 300 s timeout, a
# hang being a failure) and preduce-dist-bench on every
# GPU, on 2, and on 1, 2 and all GPUs for the 2^31-element strong-scaling sum (DIST_SCALING=0
# leaves it out): dist.txt and dist-<K>.json / scaling-<K>.json in $OUT (tar them if more than 8
# files would come back).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/preduce-gpu}
mkdir -p "$OUT"
build=${BUILD_DIR:-build/gpu}
stages=${STAGES:-build sass test sanitize bench latency}
summary="$OUT/summary.txt"
note() { echo "$*" | tee -a "$summary"; }
has() { [[ " $stages " == *" $1 "* ]]; }

note "== $(date -u +%FT%TZ) ${GIT_REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)} stages: $stages"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader | tee -a "$summary"

if has build; then
  start=$SECONDS
  # Ninja where the machine has it: its objects wait only for the library's generated sources,
  # not its link, so the tests and the bench compile beside the library's dispatch units. One job
  # per core: the units are independent, and the slowest sets the build's time. On a 64-core
  # host of four H200s at git b30c675 the whole build took 241 s (64 jobs; its longest unit
  # 232 s); at git 91d3e88, before the split by width, 16 jobs on a 64-core H100 host took 758 s.
  generator=()
  if command -v ninja >/dev/null && [ ! -f "$build/Makefile" ]; then generator=(-G Ninja); fi
  { cmake -S . -B "$build" ${generator[@]+"${generator[@]}"} -DBACKEND=cuda -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release \
      -DPREDUCE_GIT_REVISION="${GIT_REVISION:-}" -DPREDUCE_STUDY_KERNELS="$([ -n "${STUDY:-}" ] && echo ON || echo OFF)" \
      -DPREDUCE_PYTHON="$(has python && echo ON || echo OFF)" &&
    cmake --build "$build" -j "$(nproc)" ${BUILD_TARGETS:+--target $BUILD_TARGETS}; } >"$OUT/build.log" 2>&1
  rc=$?
  note "build: rc=$rc in $((SECONDS - start)) s"
  if [ -f "$build/.ninja_log" ]; then cp "$build/.ninja_log" "$OUT/ninja_log"; fi
  if [ $rc -ne 0 ]; then grep -E 'error|Error' "$OUT/build.log" | head -40; exit 1; fi
fi

if has sass; then
  # What the compiler made of the kernels: 16-byte loads, fused shuffles, redux.sync, spills.
  # (Through a file: the listing is hundreds of MB, more than a shell variable copes with.)
  sass="$build/libpreduce.sass"
  cuobjdump -sass "$build/libpreduce.a" >"$sass" 2>/dev/null
  note "sass: LDG.E.128=$(grep -c 'LDG.E.128' "$sass") SHFL.DOWN=$(grep -c 'SHFL.DOWN' "$sass") REDUX=$(grep -c 'REDUX' "$sass") local-memory(LDL/STL)=$(grep -cE 'LDL|STL' "$sass")"
  rm -f "$sass"
fi

# The GPU stages. On a machine with several GPUs they run side by side, each on a GPU of its own
# (CUDA_VISIBLE_DEVICES), so the bench's timings share their GPU with nothing; with one GPU they
# run in turn.
run_test() {
  local start=$SECONDS
  ctest --test-dir "$build" --output-on-failure -j 8 --timeout 600 >"$OUT/ctest.log" 2>&1
  note "ctest: rc=$? in $((SECONDS - start)) s: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
  grep -E '^\s*[0-9]+ - |Failed|\*\*\*' "$OUT/ctest.log" | head -40 | tee -a "$summary"
}

run_sanitize() {
  # The four tools run side by side on the suite without its slowest cases (2^32 and 2^24
  # inputs, the big-size tests, which crawl under the tools) and without the deliberate faults;
  # each stops after SAN_TIMEOUT seconds (the log then has no ERROR SUMMARY line, but a tool
  # prints each error as it finds it: the summary counts those).
  # The concurrency suite runs its short form there: 10 calls a thread per form and queue kind,
  # 8 threads (2 under racecheck, which fails to track the launches of 8 threads on one stream,
  # "Internal Sanitizer Error", or hangs: docs/reliability.md).
  local exclude='*2^32*,*2pow32*,*2pow24*,reduce.large*,device_fault*' start=$SECONDS tool log rc
  local -A pid
  for tool in memcheck racecheck synccheck initcheck; do
    PREDUCE_CONCURRENCY_CALLS=10 PREDUCE_CONCURRENCY_THREADS=$([ "$tool" = racecheck ] && echo 2 || echo 8) \
      timeout "${SAN_TIMEOUT:-420}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$build/tests/preduce-tests" \
      --test-case="${SAN_CASES:-*}" --test-case-exclude="$exclude" \
      >"$OUT/sanitizer-$tool.log" 2>&1 &
    pid[$tool]=$!
  done
  for tool in memcheck racecheck synccheck initcheck; do
    wait "${pid[$tool]}"; rc=$?
    log="$OUT/sanitizer-$tool.log"
    if [ $rc -eq 124 ]; then
      note "sanitizer $tool: stopped at its ${SAN_TIMEOUT:-420} s cap; $(grep -E '^========= [A-Z]' "$log" | grep -cvE 'COMPUTE-SANITIZER|SUMMARY|Target application') errors reported before it"
    else
      note "sanitizer $tool: rc=$rc $(grep -E 'ERROR SUMMARY' "$log" | tail -1) $(grep -aE '^\[doctest\] test cases' "$log" | tail -1)"
    fi
  done
  note "sanitizers: $((SECONDS - start)) s"
  for tool in memcheck racecheck synccheck initcheck; do cat "$OUT/sanitizer-$tool.log"; done >"$OUT/sanitizer.log"
  rm -f "$OUT"/sanitizer-*.log
}

run_bench() {
  local start=$SECONDS
  "$build/bench/preduce-bench" ${BENCH_ARGS:---quick} --json "$OUT/bench.json" >"$OUT/bench.txt" 2>"$OUT/bench.err"
  note "bench: rc=$? in $((SECONDS - start)) s"
  tail -5 "$OUT/bench.err" >>"$summary"; rm -f "$OUT/bench.err"
}

run_latency() {
  # Host wall time of calls: alone on its GPU, since it times the host as much as the device.
  local start=$SECONDS
  "$build/bench/preduce-bench" --latency --json "$OUT/latency.json" >"$OUT/latency.txt" 2>"$OUT/latency.err"
  note "latency: rc=$? in $((SECONDS - start)) s"
  tail -3 "$OUT/latency.err" >>"$summary"; rm -f "$OUT/latency.err"
}

run_python() {
  local start=$SECONDS
  PYTHONPATH="$build/python" python3 -m pytest -q -p no:cacheprovider python/tests >"$OUT/python.txt" 2>&1
  note "python tests: rc=$? in $((SECONDS - start)) s: $(tail -1 "$OUT/python.txt")"
  start=$SECONDS
  PYTHONPATH="$build/python" GIT_REVISION="${GIT_REVISION:-}" python3 bench/python_bench.py ${PYTHON_BENCH_ARGS:-} --json "$OUT/python.json" >>"$OUT/python.txt" 2>&1
  note "python bench: rc=$? in $((SECONDS - start)) s"
}

run_distributed() {
  # NCCL's multicast stays off on shared machines; mpirun runs as root there.
  export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  local start=$SECONDS k
  {
    # The exchanges over symmetric memory, then through NCCL's collectives; a hang is a failure.
    timeout 300 "$build/tests/preduce-nccl-tests" || echo "preduce-nccl-tests: exit $?"
    PREDUCE_NCCL_SYMMETRIC=0 timeout 300 "$build/tests/preduce-nccl-tests" || echo "preduce-nccl-tests (NCCL's collectives): exit $?"
    timeout 300 mpirun -np "$gpus" "$build/tests/preduce-nccl-tests" --mpi || echo "preduce-nccl-tests --mpi: exit $?"
    for k in $(printf '%s\n' "$gpus" 2 | sort -u); do
      timeout 300 mpirun -np "$k" "$build/bench/preduce-dist-bench" --json "$OUT/dist-$k.json"
    done
    for k in $( [ "${DIST_SCALING:-1}" = 1 ] && printf '%s\n' 1 2 "$gpus" | sort -un); do
      timeout 300 mpirun -np "$k" "$build/bench/preduce-dist-bench" --total 2147483648 --json "$OUT/scaling-$k.json"
    done
  } >"$OUT/dist.txt" 2>&1
  note "distributed: rc=$? in $((SECONDS - start)) s: $(grep -E 'passed.*failed' "$OUT/dist.txt" | tr '\n' ' ')"
}

gpus=$(nvidia-smi -L | wc -l)
next_gpu=0
for stage in test sanitize bench latency; do
  has "$stage" || continue
  if [ "$gpus" -gt 1 ]; then
    (export CUDA_VISIBLE_DEVICES=$((next_gpu % gpus)); "run_$stage") &
    next_gpu=$((next_gpu + 1))
  else
    "run_$stage"
  fi
done
wait
if has python; then run_python; fi
if has distributed; then run_distributed; fi
if has latency; then cat "$OUT/latency.txt" >>"$OUT/bench.txt"; rm -f "$OUT/latency.txt"; fi
if has bench || has latency; then cat "$OUT/bench.txt"; fi
if has distributed; then cat "$OUT/dist.txt"; fi
