#!/usr/bin/env bash
# gpu-check.sh: every GPU check of pce-prover in one run, on a machine with
# an NVIDIA GPU, its driver and NVRTC but no Rust, from binaries built
# elsewhere (see README, "Checking a GPU machine"). Prints one summary table.
#
#   scripts/gpu-check.sh [BIN_DIR]
#
# BIN_DIR holds pce-prover and libpce_backend_{cpu,cuda,opencl}.so
# (default: target/release), may hold kernel_probe (run when a CUDA check
# fails), and may hold cuda-kernels/, a ready CUDA
# kernel cache (CUBINs for sm_80/89/90/100, built without a GPU by
# `cargo run --release -p backend-cuda --example kernel_cache --
# target/release/cuda-kernels` with an NVRTC no newer than the driver, see
# README): with it, opening a device compiles nothing and NVRTC is not
# needed, unless the cached kernels fail the plugin's self-test.
# Parameters and logs go to $WORK (default: a temporary directory). When
# $OUT is set, only four files are written
# there, small enough to come back from a borrowed machine: summary.txt
# (the table), timings.json (every step's status and time, and the timing
# lines of the benchmarks and proofs), partition.json (`bench partition`'s
# figures) and logs.tar.gz (every log).
# Each step has a time limit, cut so that the whole run ends within
# TOTAL_SECONDS (470, under 8 minutes). GPU_BACKEND=opencl checks the
# OpenCL plugin instead (e.g. on AMD GPUs); QUICK=1 uses small sizes, to
# try the script on any machine.
set -uo pipefail

BIN_DIR=${1:-target/release}
BACKEND=${GPU_BACKEND:-cuda}
if [ -n "${QUICK:-}" ]; then
  CHECK_SIZES=(--max-log-ntt 10 --max-log-msm-g1 10 --max-log-msm-g2 8 --proofs 1)
  STREAM_LIMIT=262144
  STREAM_SIZES=(--max-log-ntt 4 --max-log-msm-g1 10 --max-log-msm-g2 8 --proofs 0)
  BENCH_SIZES=(--msm-g1 10..12 --msm-g2 8..9 --ntt 10..14)
  PARTITION_SIZES=(--shrink 10 --pool-log 12)
  SORTED_CHECK_SIZES=(--max-log-ntt 2 --max-log-msm-g1 10 --max-log-msm-g2 8 --proofs 0)
  SORTED_BENCH_SIZES=(--msm-g1 10..12 --msm-g2 8..9 --ntt 10..10)
  # PoCL proves the 2 KiB sector in about 3.5 minutes on 2 Zen 3 cores and
  # took more than 5 on 2 Xeon cores (its 2^22 H MSM in emulated kernels).
  DEMO_LIMIT=900
  # The whole QUICK run on PoCL, not on a lent GPU's clock.
  : "${TOTAL_SECONDS:=1200}"
else
  CHECK_SIZES=(--max-log-ntt 20 --max-log-msm-g1 20 --max-log-msm-g2 18 --proofs 3)
  STREAM_LIMIT=33554432
  STREAM_SIZES=(--max-log-ntt 4 --max-log-msm-g1 19 --max-log-msm-g2 18 --proofs 0)
  BENCH_SIZES=(--msm-g1 20..26 --msm-g2 20..24 --ntt 20..27)
  PARTITION_SIZES=()
  SORTED_CHECK_SIZES=(--max-log-ntt 4 --max-log-msm-g1 20 --max-log-msm-g2 18 --proofs 1)
  SORTED_BENCH_SIZES=(--msm-g1 22..26 --msm-g2 20..22 --ntt 20..20)
  DEMO_LIMIT=150
fi
PCE="$BIN_DIR/pce-prover"
export PCE_BACKEND_DIR="$BIN_DIR"
WORK=${WORK:-$(mktemp -d)}
LOGS="$WORK/logs"
export FIL_PROOFS_PARAMETER_CACHE=${FIL_PROOFS_PARAMETER_CACHE:-$WORK/params}
mkdir -p "$LOGS" "$FIL_PROOFS_PARAMETER_CACHE"

ROWS=()
STEPS_JSON=()
FAILED=0

# find_nvrtc: puts the directory of libnvrtc.so on LD_LIBRARY_PATH and says
# which one it is, or fails: the CUDA plugin compiles its kernels with
# NVRTC, and without it every CUDA step would fail for the same reason.
find_nvrtc() {
  local dir candidates=()
  if ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so'; then
    echo "NVRTC: $(ldconfig -p | grep -m1 -o '/[^ ]*libnvrtc\.so[^ ]*') (system loader path)"
    return 0
  fi
  for dir in /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib /usr/lib/x86_64-linux-gnu; do
    candidates+=("$dir")
  done
  if command -v python3 >/dev/null; then
    while IFS= read -r dir; do candidates+=("$dir"); done < <(python3 - 2>/dev/null <<'PY'
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for root in roots:
    for lib in glob.glob(os.path.join(root, "nvidia", "**", "libnvrtc.so*"), recursive=True):
        print(os.path.dirname(lib))
PY
    )
  fi
  for dir in "${candidates[@]}"; do
    for lib in "$dir"/libnvrtc.so*; do
      [ -e "$lib" ] || continue
      case "$lib" in *builtins*) continue ;; esac
      export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
      echo "NVRTC: $lib"
      return 0
    done
  done
  echo "NVRTC not found (looked in ldconfig -p, /usr/local/cuda*/lib64, /usr/local/cuda*/targets/*/lib," \
    "/usr/lib/x86_64-linux-gnu and the Python nvidia wheels); install the CUDA toolkit's NVRTC or" \
    "'pip install nvidia-cuda-nvrtc' and rerun"
  return 1
}

# The whole run ends within TOTAL_SECONDS (default 470: under 8 minutes):
# each step's limit is cut to what is left, and a step with under 10 s left
# is skipped (and reported as such).
TOTAL_SECONDS=${TOTAL_SECONDS:-470}
DEADLINE=$(($(date +%s) + TOTAL_SECONDS))

# step NAME LIMIT_SECONDS COMMAND...: runs one check, logs it, records a row.
step() {
  local name=$1 limit=$2
  shift 2
  local start end status left
  left=$((DEADLINE - $(date +%s)))
  if [ "$left" -lt 10 ]; then
    ROWS+=("$(printf '%-22s %-14s %8s' "$name" "SKIPPED" "-")")
    FAILED=1
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  start=$(date +%s.%N)
  echo "== $name: $*"
  if timeout "$limit" "$@" >"$LOGS/$name.log" 2>&1; then
    status=PASS
  else
    status="FAIL (exit $?)"
    FAILED=1
  fi
  end=$(date +%s.%N)
  tail -n 40 "$LOGS/$name.log"
  local seconds
  seconds=$(awk "BEGIN { printf \"%.1f\", $end - $start }")
  ROWS+=("$(printf '%-22s %-14s %8s s' "$name" "$status" "$seconds")")
  STEPS_JSON+=("{\"step\": \"$name\", \"status\": \"$status\", \"seconds\": $seconds}")
}

if [ "$BACKEND" = cuda ]; then
  # The carried kernel cache is copied, so that a CUBIN the driver refuses
  # can be rebuilt in place (the plugin does that once, with NVRTC).
  CACHED=0
  if [ -d "$BIN_DIR/cuda-kernels" ]; then
    export PCE_CUDA_CACHE="$WORK/cuda-kernels"
    mkdir -p "$PCE_CUDA_CACHE"
    cp "$BIN_DIR"/cuda-kernels/*.cubin "$PCE_CUDA_CACHE"/ 2>/dev/null &&
      CACHED=$(ls "$PCE_CUDA_CACHE"/*.cubin | wc -l)
  fi
  ROWS+=("$(printf '%-22s %-14s %8s' kernel-cache "$CACHED CUBINs" "-")")
  if find_nvrtc >"$LOGS/nvrtc.log" 2>&1; then
    ROWS+=("$(printf '%-22s %-14s %8s' nvrtc "FOUND" "-")")
  elif [ "$CACHED" -gt 0 ]; then
    ROWS+=("$(printf '%-22s %-14s %8s' nvrtc "MISSING" "-")")
    echo "NVRTC missing: going on with the carried kernel cache" >>"$LOGS/nvrtc.log"
  else
    ROWS+=("$(printf '%-22s %-14s %8s' nvrtc "MISSING" "-")")
    FAILED=1
    DEADLINE=0 # every CUDA step would fail the same way: skip them all
  fi
  cat "$LOGS/nvrtc.log"
fi

step devices 30 "$PCE" devices "$BACKEND"
# Opening the device loads the carried CUBIN for its architecture, or
# compiles the kernels (NVRTC to a CUBIN, minutes: times in
# docs/benchmarks.md) and caches them for the steps after it; either way
# the kernels then pass a self-test or are compiled afresh (logged here).
# A timeout here would make every later step compile again, so the limit
# is generous.
step compile-kernels 180 env RUST_LOG=info "$PCE" backend-check "$BACKEND" \
  --max-log-ntt 1 --max-log-msm-g1 4 --max-log-msm-g2 4 --proofs 0

# kernel_probe (when carried): each field and curve function against blst,
# for the kernels as built and for variants of them (functions inlined or
# not, optimisation off, fewer registers for more occupancy, PTX compiled
# by the driver), each compiled by this machine's NVRTC
# (crates/backend-cuda/examples/kernel_probe.rs): which function goes
# wrong. It runs at once when the kernels failed a self-test on opening
# (even if another build then passed: the evidence of a machine that gets
# them wrong comes before the benchmarks can use up the time), else at the
# end when a check failed or time is left.
PROBED=
run_probe() {
  PROBED=1
  step kernel-probe 90 "$BIN_DIR/kernel_probe" 60 "$WORK/variants"
}
if [ "$BACKEND" = cuda ] && [ -x "$BIN_DIR/kernel_probe" ] &&
  grep -q 'failed their self-test' "$LOGS/compile-kernels.log" 2>/dev/null; then
  run_probe
fi
# The first proof on the device, before anything else can eat the time:
# a fresh 2 KiB sector proven with the CPU plugin and with this backend,
# with the same r and s, each checked with verify_seal, and compared byte
# for byte (this also generates the test parameters, once).
step "c2-2kib-$BACKEND-vs-cpu" "$DEMO_LIMIT" "$PCE" demo --backend "$BACKEND" --reference cpu
step backend-check 90 "$PCE" backend-check "$BACKEND" "${CHECK_SIZES[@]}"
# A small "device memory" (32 MiB; 256 KiB with QUICK=1), every buffer
# counted against it: the largest MSM bases (G1 2^19, G2 2^18: 48 MiB)
# would not leave the quarter of it the MSM needs, so they are streamed
# from the host in chunks of 2 MiB, each uploaded on the copy stream while
# the previous chunk's kernels run (double buffering through pinned
# staging buffers), and the MSM budgets its terms and buckets in the rest.
step streamed-bases 60 env PCE_GPU_MEMORY_LIMIT=$STREAM_LIMIT "$PCE" backend-check "$BACKEND" \
  "${STREAM_SIZES[@]}"
# The proof kinds a storage provider runs besides PoRep, with this backend
# and with the CPU plugin, alternated: 2 KiB WindowPoSt, WinningPoSt and
# SnapDeals, and a WinningPoSt of a 32 GiB sector (the production circuit,
# of a sector with data only where challenged); every proof verified with
# filecoin-proofs' verifier before it counts.
if [ -z "${QUICK:-}" ]; then
  # Insecure 32 GiB WinningPoSt parameters are written only into the
  # run's own cache; a cache given from outside must hold published ones.
  KINDS_FLAGS=()
  if [ "$FIL_PROOFS_PARAMETER_CACHE" = "$WORK/params" ]; then
    KINDS_FLAGS=(--insecure-production-size)
  fi
  step "kinds-$BACKEND-vs-cpu" 90 "$PCE" bench kinds --backend "$BACKEND" --against cpu --rounds 1 \
    "${KINDS_FLAGS[@]}"
fi
# One partition of a 32 GiB PoRep sector at its real shape (domain 2^27,
# an H query of 134M points; a pool of random points repeated as bases):
# each step's time, the device memory in use and the host's peak RSS. Two
# partitions, the first warming up. The goal: under 1 s per partition.
# With the plugin's info logs: the CUDA engine's host-side copy rates, and
# (PCE_GPU_PROFILE) each kernel's time on the device over both partitions
# and the setup, as the device's own events measured it.
rm -f "$WORK/partition.json"
step partition-32gib 150 env RUST_LOG=warn,pce_plugin=info PCE_GPU_PROFILE=1 "$PCE" bench partition --shape 32GiB --backend "$BACKEND" \
  --runs 2 ${PARTITION_SIZES[@]+"${PARTITION_SIZES[@]}"} --json "$WORK/partition.json"
# The sorted MSM (PCE_GPU_MSM=sorted: the terms' digits sorted by bucket,
# each bucket summed in registers; the default is the per-thread bucket
# kernel of the partition above): checked against blst and the CPU
# plugin's proofs, then timed on the same partition, and (after the
# default's benchmark) against the CPU plugin.
rm -f "$WORK/partition-sorted.json"
step sorted-check 60 env PCE_GPU_MSM=sorted "$PCE" backend-check "$BACKEND" "${SORTED_CHECK_SIZES[@]}"
step sorted-partition 100 env PCE_GPU_MSM=sorted RUST_LOG=warn,pce_plugin=info PCE_GPU_PROFILE=1 \
  "$PCE" bench partition --shape 32GiB --backend "$BACKEND" \
  --runs 1 ${PARTITION_SIZES[@]+"${PARTITION_SIZES[@]}"} --json "$WORK/partition-sorted.json"
# The benchmarks compare each result with the CPU plugin's (a row says
# DIFFER, and the step fails, where they differ): the only check of the
# sizes above backend-check's 2^20.
step "bench-$BACKEND-vs-cpu" 150 env RUST_LOG=warn,pce_plugin=info "$PCE" bench backend "$BACKEND" --versus cpu \
  "${BENCH_SIZES[@]}" --reps 1
step sorted-bench 90 env PCE_GPU_MSM=sorted "$PCE" bench backend "$BACKEND" --versus cpu \
  "${SORTED_BENCH_SIZES[@]}" --reps 1
# The OpenCL checks only when more than two minutes are left.
if [ "$BACKEND" = cuda ] && [ $((DEADLINE - $(date +%s))) -gt 120 ] &&
  "$PCE" devices opencl >"$LOGS/opencl-devices.log" 2>&1; then
  step opencl-check 90 "$PCE" backend-check opencl \
    --max-log-ntt 16 --max-log-msm-g1 16 --max-log-msm-g2 12 --proofs 1
  step bench-opencl-vs-cpu 60 "$PCE" bench backend opencl --versus cpu \
    --msm-g1 16..22 --msm-g2 16..20 --ntt 16..24 --reps 1
fi

# Last, the kernel probe (see above) unless it ran already, when a check
# failed or time is left; then, while time is left, the speed of each
# variant that passed, in a short benchmark against the CPU plugin (the
# ratios compare the variants), with its kernels' registers.
if [ "$BACKEND" = cuda ] && [ -x "$BIN_DIR/kernel_probe" ] && [ -z "$PROBED" ] &&
  { [ "$FAILED" != 0 ] || [ $((DEADLINE - $(date +%s))) -gt 150 ]; }; then
  run_probe
fi
if [ -n "$PROBED" ]; then
  for variant in $(sed -n 's/.* PASS (.*\[\(.*\)\]$/\1/p' "$LOGS/kernel-probe.log" 2>/dev/null); do
    case "$variant" in ptxas-O0 | device-debug) continue ;; esac
    [ $((DEADLINE - $(date +%s))) -gt 40 ] || break
    step "variant-$variant" 40 env PCE_CUDA_CACHE="$WORK/variants/$variant" RUST_LOG=warn,pce_plugin=debug \
      "$PCE" bench backend cuda --versus cpu --msm-g1 22..22 --msm-g2 20..20 --ntt 22..22 --reps 2
  done
fi

# timing_lines: the lines of the logs that carry timings.
timing_lines() {
  grep -E '^(MSM|NTT|case|ratio)' "$LOGS/bench-$BACKEND-vs-cpu.log" 2>/dev/null | sed "s/^/$BACKEND vs cpu: /"
  if [ "$BACKEND" != opencl ]; then
    grep -E '^(MSM|NTT|case|ratio)' "$LOGS/bench-opencl-vs-cpu.log" 2>/dev/null | sed 's/^/opencl vs cpu: /'
  fi
  grep -E '^(32 GiB|backend|step|point pools|bases to|NTT domain|QAP|h to|H MSM|L MSM|A MSM|B G1|B G2|partition|device memory|host peak)' \
    "$LOGS/partition-32gib.log" 2>/dev/null | sed 's/^/partition: /'
  grep -E '^(StackedDrg|SnapDeals)' "$LOGS/kinds-$BACKEND-vs-cpu.log" 2>/dev/null | sed "s/^/kinds, $BACKEND vs cpu: /"
  grep -E '^(MSM|NTT)' "$LOGS/sorted-bench.log" 2>/dev/null | sed "s/^/sorted $BACKEND vs cpu: /"
  grep -E '^(QAP|H MSM|L MSM|A MSM|B G1|B G2|partition)' "$LOGS/sorted-partition.log" 2>/dev/null |
    sed 's/^/partition, sorted MSM: /'
  grep -h "kernel time on the device" "$LOGS/sorted-partition.log" 2>/dev/null | grep -E 'msm|sorted' |
    sed -e 's/.*kernel time on the device //' -e 's/ plugin=.*//' -e 's/^/kernel time, sorted MSM: /'
  # The CUDA engine's host-side copy rates, logged when a device closes.
  grep -h "host side of the device's copies" "$LOGS/partition-32gib.log" "$LOGS/bench-$BACKEND-vs-cpu.log" \
    2>/dev/null | sed -e 's/.*GB\/s) //' -e 's/^/copies: /'
  # Each kernel's device time in the partitions, largest first.
  grep -h "kernel time on the device" "$LOGS/partition-32gib.log" 2>/dev/null |
    sed -e 's/.*kernel time on the device //' -e 's/ plugin=.*//' -e 's/^/kernel time: /'
  grep -h 'self-test' "$LOGS/compile-kernels.log" "$LOGS/c2-2kib-$BACKEND-vs-cpu.log" 2>/dev/null | sed 's/^/kernels: /'
  grep -E '^(device 0|as built|PTX|Fp|point|2 blocks|ptxas|-G)' "$LOGS/kernel-probe.log" 2>/dev/null | sed 's/^/probe: /'
  for log in "$LOGS"/variant-*.log; do
    [ -e "$log" ] || continue
    local name
    name=$(basename "$log" .log)
    grep -E '^(MSM|NTT)' "$log" | sed "s/^/$name: /"
    grep -h 'self-test' "$log" | sed -e 's/.*pce_plugin: //' -e "s/^/$name: /"
    grep -h 'kernel resources' "$log" | grep -E 'buckets|ntt_global' |
      sed -e 's/.*kernel resources //' -e 's/ plugin=.*//' -e "s/^/$name: /"
  done
  grep -E '"(backend|device|pce_load_or_record|params_read|witness|prove|finish|verify_seal|peak_rss_bytes)"|identical' \
    "$LOGS/c2-2kib-$BACKEND-vs-cpu.log" 2>/dev/null | sed "s/^ */2 KiB C2, $BACKEND then cpu: /"
}

summary() {
  echo "== pce-prover GPU check, $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version,uuid --format=csv,noheader 2>/dev/null | head -1)"
  printf '%-22s %-14s %10s\n' step status time
  for row in "${ROWS[@]}"; do echo "$row"; done
  echo
  timing_lines
}

# json_string TEXT: TEXT as a JSON string.
json_string() {
  printf '"%s"' "$(printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/ /g')"
}

echo
summary
echo "logs: $LOGS"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  summary >"$OUT/summary.txt"
  {
    echo "{\"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"backend\": \"$BACKEND\","
    echo " \"gpu\": $(json_string "$(nvidia-smi --query-gpu=name,driver_version,memory.total,uuid --format=csv,noheader 2>/dev/null | head -1)"),"
    echo " \"steps\": ["
    (IFS=,; echo "  ${STEPS_JSON[*]}")
    echo " ],"
    echo " \"timings\": ["
    first=1
    while IFS= read -r line; do
      [ $first = 1 ] || echo ","
      printf '  %s' "$(json_string "$line")"
      first=0
    done < <(timing_lines)
    echo
    echo " ]}"
  } >"$OUT/timings.json"
  tar -C "$WORK" -czf "$OUT/logs.tar.gz" logs
  if [ -f "$WORK/partition.json" ]; then
    cp "$WORK/partition.json" "$OUT/"
    echo "summary.txt, timings.json, partition.json and logs.tar.gz written to $OUT"
  else
    echo "summary.txt, timings.json and logs.tar.gz written to $OUT (no partition.json: that step did not finish)"
  fi
fi
exit $FAILED
