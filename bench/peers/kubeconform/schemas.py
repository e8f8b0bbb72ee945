#!/usr/bin/env python3
"""Lays out Kubernetes' JSON Schemas as kubeconform reads them offline
(`-schema-location 'DIR/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json'`),
from the `vX.Y.Z-local-strict` folder of the PyPI package kubernetes-validate (openapi2jsonschema's
conversion of Kubernetes' published swagger.json, the source kubeconform's own schemas come from):
each kind's file with the definitions it reaches under `$defs`, so no reference leaves the file.

    python3 schemas.py kubernetes_validate/kubernetes-json-schema/v1.36.0-local-strict OUT
"""
import json
import os
import re
import sys

REF = re.compile(r"^(?:/api/_definitions\.json)?#/\$defs/(.+)$")


def main(src, out):
    version = re.match(r"v[0-9.]+", os.path.basename(src.rstrip("/"))).group(0)
    with open(os.path.join(src, "_definitions.json")) as f:
        definitions = json.load(f)["$defs"]
    target = os.path.join(out, f"{version}-standalone-strict")
    os.makedirs(target, exist_ok=True)

    def local(node, reached):
        if isinstance(node, list):
            return [local(n, reached) for n in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if key in ("properties", "patternProperties", "$defs"):
                value = {k: local(v, reached) for k, v in value.items()}
            elif key == "$ref":
                name = REF.match(value).group(1)
                if name not in reached:
                    reached[name] = None
                    reached[name] = local(definitions[name], reached)
                value = "#/$defs/" + name
            else:
                value = local(value, reached)
            out[key] = value
        return out

    for name in sorted(os.listdir(src)):
        if name.startswith("_") or name == "all.json" or not name.endswith(".json"):
            continue
        with open(os.path.join(src, name)) as f:
            schema = json.load(f)
        reached = {}
        schema = local(schema, reached)
        schema.pop("$id", None)
        if reached:
            schema["$defs"] = reached
        with open(os.path.join(target, name), "w") as f:
            json.dump(schema, f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
