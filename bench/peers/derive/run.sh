#!/usr/bin/env bash
# kubeskema's derive against kube-derive + schemars, in one sitting, on the same resource
# types (bench/peers/derive/gen.py): the compile time and peak memory of a crate of N resource
# types (its own compile: dependencies built first; three alternating runs each, the best
# wall time and the peak memory of that run), and the time to build one type's CRD (median of
# interleaved rounds). Prints each and the ratios.
#
#   bench/peers/derive/run.sh [N=50]
#
# Outside the workspace (kube-derive is never built by CI's workspace builds). Needs python3,
# GNU time (/usr/bin/time) and the crates.io registry.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
n=${1:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR=$work/target CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0

python3 "$root/bench/peers/derive/gen.py" "$n" "$work" "$root/runtime"
sides="ks ks-schema ks-apply kd"
for side in $sides; do
  (cd "$work/$side" && cargo build -q)
done

measure() { # side → "seconds kilobytes"
  touch "$work/$1/src/lib.rs"
  (cd "$work/$1" && /usr/bin/time -f "%e %M" cargo build -q 2>&1 >/dev/null | tail -n 1)
}
declare -A best_time best_mem
for round in 1 2 3; do
  for side in $sides; do
    read -r secs kb < <(measure "$side")
    echo "round $round $side: ${secs}s, ${kb} KB"
    if [[ -z ${best_time[$side]:-} ]] || (( $(echo "$secs < ${best_time[$side]}" | bc -l) )); then
      best_time[$side]=$secs
      best_mem[$side]=$kb
    fi
  done
done
echo "compile of a crate with $n resource types (debug, its own compile):"
echo "  kubeskema (Serialize, Deserialize + validating read, Validate + schema + CRD): ${best_time[ks]}s, ${best_mem[ks]} KB"
echo "  kubeskema, one derive (Schema): ${best_time[ks-schema]}s, ${best_mem[ks-schema]} KB"
echo "  kubeskema, Schema + ApplyConfiguration: ${best_time[ks-apply]}s, ${best_mem[ks-apply]} KB"
echo "  kube-derive + schemars (CustomResource, JsonSchema, serde's Serialize/Deserialize): ${best_time[kd]}s, ${best_mem[kd]} KB"
for side in ks ks-schema ks-apply; do
  printf "summary: %s vs kube-derive: compile time %.2fx; peak memory %.2fx\n" "$side" \
    "$(echo "${best_time[$side]} / ${best_time[kd]}" | bc -l)" "$(echo "${best_mem[$side]} / ${best_mem[kd]}" | bc -l)"
done

(cd "$work/time" && cargo run -q --release)
