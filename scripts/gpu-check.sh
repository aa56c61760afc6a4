#!/usr/bin/env bash
# gpu-check.sh: every GPU check of pce-prover in one run, on a machine with
# an NVIDIA GPU, its driver and NVRTC but no Rust, from binaries built
# elsewhere (see README, "Checking a GPU machine"). Prints one summary table.
#
#   scripts/gpu-check.sh [BIN_DIR]
#
# BIN_DIR holds pce-prover and libpce_backend_{cpu,cuda,opencl}.so
# (default: target/release). Logs go to $OUT (default: a temporary
# directory); each step has a time limit, cut so that the whole run ends
# within TOTAL_SECONDS (470, under 8 minutes). GPU_BACKEND=opencl checks the OpenCL plugin instead (e.g. on
# AMD GPUs); QUICK=1 uses small sizes, to try the script on any machine.
set -uo pipefail

BIN_DIR=${1:-target/release}
BACKEND=${GPU_BACKEND:-cuda}
if [ -n "${QUICK:-}" ]; then
  CHECK_SIZES=(--max-log-ntt 10 --max-log-msm-g1 10 --max-log-msm-g2 8 --proofs 1)
  STREAM_LIMIT=65536
  STREAM_SIZES=(--max-log-ntt 4 --max-log-msm-g1 10 --max-log-msm-g2 8 --proofs 0)
  BENCH_SIZES=(--msm-g1 10..12 --msm-g2 8..9 --ntt 10..14)
else
  CHECK_SIZES=(--max-log-ntt 20 --max-log-msm-g1 20 --max-log-msm-g2 18 --proofs 3)
  STREAM_LIMIT=33554432
  STREAM_SIZES=(--max-log-ntt 4 --max-log-msm-g1 19 --max-log-msm-g2 18 --proofs 0)
  BENCH_SIZES=(--msm-g1 20..26 --msm-g2 20..24 --ntt 20..27)
fi
PCE="$BIN_DIR/pce-prover"
export PCE_BACKEND_DIR="$BIN_DIR"
OUT=${OUT:-$(mktemp -d)}
export FIL_PROOFS_PARAMETER_CACHE=${FIL_PROOFS_PARAMETER_CACHE:-$OUT/params}
mkdir -p "$OUT" "$FIL_PROOFS_PARAMETER_CACHE"

ROWS=()
FAILED=0

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
  echo "== $name: $*" | tee -a "$OUT/all.log"
  if timeout "$limit" "$@" >"$OUT/$name.log" 2>&1; then
    status=PASS
  else
    status="FAIL (exit $?)"
    FAILED=1
  fi
  end=$(date +%s.%N)
  cat "$OUT/$name.log" >>"$OUT/all.log"
  tail -n 40 "$OUT/$name.log"
  ROWS+=("$(printf '%-22s %-14s %8.1f s' "$name" "$status" "$(awk "BEGIN { print $end - $start }")")")
}

step devices 30 "$PCE" devices "$BACKEND"
# Opening the device compiles the kernels (NVRTC to a CUBIN: 8 s to PTX on
# 2 cores, ptxas after that), cached for the steps after it. A timeout here
# would make every later step compile again, so the limit is generous.
step compile-kernels 180 "$PCE" backend-check "$BACKEND" \
  --max-log-ntt 1 --max-log-msm-g1 4 --max-log-msm-g2 4 --proofs 0
step backend-check 90 "$PCE" backend-check "$BACKEND" "${CHECK_SIZES[@]}"
# A small "device memory" (32 MiB; 64 KiB with QUICK=1): the largest MSM
# bases (G1 2^19, G2 2^18: 48 MiB) exceed its 24 MiB for bases and are
# streamed from the host in chunks of 2 MiB, each uploaded on the copy
# stream while the previous chunk's kernels run (double buffering through
# pinned staging buffers).
step streamed-bases 60 env PCE_GPU_MEMORY_LIMIT=$STREAM_LIMIT "$PCE" backend-check "$BACKEND" \
  "${STREAM_SIZES[@]}"
step "bench-$BACKEND-vs-cpu" 150 "$PCE" bench backend "$BACKEND" --versus cpu \
  "${BENCH_SIZES[@]}" --reps 1
step c2-2kib-cpu 90 "$PCE" demo --backend cpu
step "c2-2kib-$BACKEND" 60 "$PCE" demo --backend "$BACKEND"
# The OpenCL checks only when more than two minutes are left.
if [ "$BACKEND" = cuda ] && [ $((DEADLINE - $(date +%s))) -gt 120 ] &&
  "$PCE" devices opencl >"$OUT/opencl-devices.log" 2>&1; then
  step opencl-check 90 "$PCE" backend-check opencl \
    --max-log-ntt 16 --max-log-msm-g1 16 --max-log-msm-g2 12 --proofs 1
  step bench-opencl-vs-cpu 60 "$PCE" bench backend opencl --versus cpu \
    --msm-g1 16..22 --msm-g2 16..20 --ntt 16..24 --reps 1
fi

echo
echo "== pce-prover GPU check, $(date -u +%Y-%m-%d), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
printf '%-22s %-14s %10s\n' step status time
for row in "${ROWS[@]}"; do echo "$row"; done
echo
echo "-- timings ($BACKEND vs cpu)"
grep -E '^(MSM|NTT|case|ratio)' "$OUT/bench-$BACKEND-vs-cpu.log" 2>/dev/null
for backend in cpu "$BACKEND"; do
  echo "-- 2 KiB C2 with $backend"
  grep -E '"(backend|device|pce_load_or_record|params_read|witness|prove|verify_partitions|verify_seal|peak_rss_bytes)"' "$OUT/c2-2kib-$backend.log" 2>/dev/null
done
if [ -e "$OUT/bench-opencl-vs-cpu.log" ]; then
  echo "-- timings (opencl vs cpu)"
  grep -E '^(MSM|NTT|case|ratio)' "$OUT/bench-opencl-vs-cpu.log"
fi
echo "logs: $OUT"
exit $FAILED
