#!/usr/bin/env python3
"""kubeskema's native-kind check against kubeconform's, document by document: the corpus's
manifests of native kinds as they are, then mutated (a seeded walk picks one place per copy and
breaks it one of a few ways), each tool's verdict per document, and the documents where they
differ grouped by what the mutation did, with both tools' words.

    python3 compare.py KUBESKEMA KUBECONFORM SCHEMAS CORPUS [--seed N] [--mutants N]

KUBESKEMA is a `cargo-kubeskema` binary; KUBECONFORM a kubeconform binary; SCHEMAS the folder
`schemas.py` wrote; CORPUS the corpus folder (its `instances`). Both tools read Kubernetes
1.36.0's published OpenAPI: kubeskema the copy it carries, kubeconform the JSON Schemas
openapi2jsonschema made of the same spec (kubeconform's usual source). `run.sh` runs it all.
"""
import argparse
import collections
import copy
import json
import os
import random
import subprocess
import sys
import tempfile

import yaml

NATIVE_GROUPS = ("", "apps", "batch", "rbac.authorization.k8s.io", "networking.k8s.io", "policy", "storage.k8s.io",
                 "autoscaling", "scheduling.k8s.io", "coordination.k8s.io", "certificates.k8s.io",
                 "admissionregistration.k8s.io", "discovery.k8s.io", "node.k8s.io", "resource.k8s.io")


def native(doc):
    if not isinstance(doc, dict) or not isinstance(doc.get("apiVersion"), str) or not doc.get("kind"):
        return False
    group = doc["apiVersion"].rpartition("/")[0]
    return group in NATIVE_GROUPS


def corpus_documents(corpus):
    out = []
    root = os.path.join(corpus, "instances")
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml")):
                continue
            try:
                with open(os.path.join(folder, name)) as f:
                    docs = list(yaml.safe_load_all(f))
            except Exception:
                continue
            out.extend(d for d in docs if native(d))
    return out


def places(node, path=()):
    """Every (path, value) below the object's metadata/kind/apiVersion."""
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            if path == () and k in ("apiVersion", "kind"):
                continue
            yield from places(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from places(v, path + (i,))


def at(doc, path):
    for p in path:
        doc = doc[p]
    return doc


MUTATIONS = ("wrong scalar type", "unknown field", "field removed", "list for object", "object for list",
             "bad name", "null")


def mutate(doc, rng):
    """One mutation of a copy of `doc`, and what it was; None when it found no place."""
    doc = copy.deepcopy(doc)
    candidates = [(p, v) for p, v in places(doc) if p]
    kind = rng.choice(MUTATIONS)
    if kind == "bad name":
        doc.setdefault("metadata", {})["name"] = rng.choice(["Bad_Name", "a/b", "9-lives", "x" * 300, "a.b"])
        return doc, kind
    rng.shuffle(candidates)
    for path, value in candidates:
        parent, key = at(doc, path[:-1]), path[-1]
        if kind == "wrong scalar type" and isinstance(value, (str, int, bool)) and not isinstance(value, float):
            parent[key] = {str: 7, int: "seven", bool: "yes"}[type(value)] if not isinstance(value, bool) else "yes"
            return doc, kind
        if kind == "unknown field" and isinstance(value, dict) and path[0] not in ("metadata", "data", "stringData"):
            value["unknownFieldX"] = 1
            return doc, kind
        if kind == "field removed" and isinstance(parent, dict) and path[0] != "metadata":
            del parent[key]
            return doc, kind
        if kind == "list for object" and isinstance(value, dict):
            parent[key] = [value]
            return doc, kind
        if kind == "object for list" and isinstance(value, list) and value:
            parent[key] = value[0] if isinstance(value[0], dict) else {"a": value[0]}
            return doc, kind
        if kind == "null" and not isinstance(value, (dict, list)) and path[0] != "metadata":
            parent[key] = None
            return doc, kind
    return None


def run_kubeskema(binary, files):
    out = subprocess.run([binary, "kubeskema", "validate", "--strict", "--output", "json", *files],
                         capture_output=True, text=True)
    invalid = collections.defaultdict(list)
    for line in out.stdout.splitlines():
        finding = json.loads(line)
        if finding.get("level") == "error":
            invalid[os.path.basename(finding["file"])].append(finding["message"])
    return invalid


def run_kubeconform(binary, schemas, files):
    location = os.path.join(schemas, "{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}",
                            "{{ .ResourceKind }}{{ .KindSuffix }}.json")
    out = subprocess.run([binary, "-kubernetes-version", "1.36.0", "-strict", "-schema-location", location,
                          "-output", "json", *files], capture_output=True, text=True)
    invalid = collections.defaultdict(list)
    for resource in json.loads(out.stdout)["resources"]:
        if resource["status"] in ("statusInvalid", "statusError"):
            invalid[os.path.basename(resource["filename"])].append(resource["msg"])
    return invalid


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kubeskema")
    parser.add_argument("kubeconform")
    parser.add_argument("schemas")
    parser.add_argument("corpus")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mutants", type=int, default=4, help="mutated copies of each document")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    originals = corpus_documents(args.corpus)
    cases = [(doc, "as written") for doc in originals]
    for doc in originals:
        for _ in range(args.mutants):
            mutated = mutate(doc, rng)
            if mutated:
                cases.append(mutated)
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for i, (doc, _) in enumerate(cases):
            path = os.path.join(folder, f"{i:05}.yaml")
            with open(path, "w") as f:
                yaml.safe_dump(doc, f)
            files.append(path)
        ours = run_kubeskema(args.kubeskema, files)
        theirs = run_kubeconform(args.kubeconform, args.schemas, files)
    table = collections.Counter()
    differ = collections.defaultdict(list)
    for i, (doc, how) in enumerate(cases):
        name = f"{i:05}.yaml"
        verdict = ("invalid" if name in ours else "valid", "invalid" if name in theirs else "valid")
        table[(how, verdict)] += 1
        if verdict[0] != verdict[1]:
            differ[how].append((doc.get("kind"), ours.get(name, ["-"])[0][:160], theirs.get(name, ["-"])[0][-160:]))
    print(f"{len(originals)} native documents, {len(cases) - len(originals)} mutants (seed {args.seed})")
    print(f"{'case':<20} {'both valid':>10} {'both inv.':>10} {'only ks':>8} {'only kc':>8}")
    for how in ("as written",) + MUTATIONS:
        row = [table[(how, v)] for v in (("valid", "valid"), ("invalid", "invalid"), ("invalid", "valid"),
                                          ("valid", "invalid"))]
        print(f"{how:<20} {row[0]:>10} {row[1]:>10} {row[2]:>8} {row[3]:>8}")
    for how, rows in differ.items():
        print(f"\n== {how}: {len(rows)} differ")
        for kind, ks, kc in rows[:8]:
            print(f"  {kind}: kubeskema: {ks}\n  {' ' * len(str(kind))}  kubeconform: {kc}")
    agree = sum(v for (how, verdict), v in table.items() if verdict[0] == verdict[1])
    print(f"\nagree on {agree} of {len(cases)} documents ({100 * agree / len(cases):.1f}%)")


if __name__ == "__main__":
    sys.exit(main())
