#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that openapi/sandboxd.yaml is a well-formed OpenAPI 3.0 document and
that it describes the REST surface of the contract (section 2): every route,
method and status code, and the five component schemas with their required
fields, types and enums. No network; uses only Debian's python3-yaml.

Usage: check_openapi.py sandboxd.yaml
"""
import re
import sys

import yaml

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
SCHEMA_KEYS = {
    "$ref", "type", "format", "properties", "required", "items", "enum", "pattern",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
    "maxLength", "minItems", "maxItems", "uniqueItems", "nullable", "additionalProperties",
    "allOf", "oneOf", "anyOf", "not", "description", "default", "example", "title",
    "readOnly", "writeOnly", "deprecated", "discriminator", "multipleOf",
    "minProperties", "maxProperties", "xml", "externalDocs",
}
SCHEMA_TYPES = {"string", "integer", "number", "boolean", "array", "object"}

# Contract section 2: the error code each listed status carries.
ERROR_CODES = {
    "400": "INVALID_ARGUMENT", "403": "PERMISSION_DENIED", "404": "NOT_FOUND",
    "409": "CONFLICT", "500": "INTERNAL", "503": "UNAVAILABLE",
}
# Contract section 2 table: route -> method -> statuses that must be documented.
ROUTES = {
    "/v1/files/{path}": {
        "get": ["200", "403", "404"],
        "head": ["200", "404", "403"],
        "put": ["204", "400", "403"],
        "delete": ["204", "400", "403", "404", "409"],
    },
    "/v1/health": {"get": ["200", "503"]},
    "/v1/metadata": {"get": ["200"]},
}

problems = []


def problem(where, what):
    problems.append(f"{where}: {what}")


def resolve(doc, node, where):
    """Follows a local $ref (possibly chained); returns the target or None."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/"):
            problem(where, f"$ref {ref!r} is not a local reference")
            return None
        target = doc
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                problem(where, f"$ref {ref} does not resolve")
                return None
            target = target[part]
        node = target
        seen += 1
        if seen > 16:
            problem(where, f"$ref chain too long at {ref}")
            return None
    return node


def check_schema(doc, schema, where, depth=0):
    if depth > 32:
        problem(where, "schema nesting too deep")
        return
    if not isinstance(schema, dict):
        problem(where, "schema is not a mapping")
        return
    if "$ref" in schema:
        if resolve(doc, schema, where) is None:
            return
        return
    for key in schema:
        if key not in SCHEMA_KEYS and not key.startswith("x-"):
            problem(where, f"unknown schema keyword {key!r}")
    if "type" in schema and schema["type"] not in SCHEMA_TYPES:
        problem(where, f"type {schema['type']!r} is not an OpenAPI 3.0 type")
    if "pattern" in schema:
        try:
            re.compile(schema["pattern"])
        except re.error as exc:
            problem(where, f"pattern does not compile: {exc}")
    if "required" in schema:
        req = schema["required"]
        if not isinstance(req, list) or not req or not all(isinstance(r, str) for r in req):
            problem(where, "required must be a non-empty list of names")
        elif "properties" in schema:
            for name in req:
                if name not in schema["properties"]:
                    problem(where, f"required field {name!r} has no property")
    if "enum" in schema and (not isinstance(schema["enum"], list) or not schema["enum"]):
        problem(where, "enum must be a non-empty list")
    for name, sub in (schema.get("properties") or {}).items():
        check_schema(doc, sub, f"{where}.properties.{name}", depth + 1)
    if "items" in schema:
        check_schema(doc, schema["items"], f"{where}.items", depth + 1)
    elif schema.get("type") == "array":
        problem(where, "array schema without items (required by OpenAPI 3.0)")
    ap = schema.get("additionalProperties")
    if isinstance(ap, dict):
        check_schema(doc, ap, f"{where}.additionalProperties", depth + 1)
    for comb in ("allOf", "oneOf", "anyOf"):
        for i, sub in enumerate(schema.get(comb) or []):
            check_schema(doc, sub, f"{where}.{comb}[{i}]", depth + 1)


def check_response(doc, resp, where):
    resp = resolve(doc, resp, where)
    if resp is None:
        return None
    if not isinstance(resp, dict) or "description" not in resp:
        problem(where, "a response needs a description")
        return None
    for ctype, media in (resp.get("content") or {}).items():
        if "schema" not in media:
            problem(f"{where}.content.{ctype}", "media type without schema")
        else:
            check_schema(doc, media["schema"], f"{where}.content.{ctype}.schema")
    return resp


def error_code_of(doc, resp, where):
    """The fixed error code a JSON error response declares (via allOf enum)."""
    schema = resolve(doc, ((resp.get("content") or {}).get("application/json") or {})
                     .get("schema"), where)
    if not isinstance(schema, dict):
        return None
    codes = None
    parts = [schema] + [resolve(doc, s, where) for s in schema.get("allOf") or []]
    for part in parts:
        enum = (((part or {}).get("properties") or {}).get("code") or {}).get("enum")
        if enum is not None:
            codes = set(enum) if codes is None else codes & set(enum)
    return codes


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)

    if not isinstance(doc, dict):
        print("document is not a mapping")
        return 1
    if not re.fullmatch(r"3\.0\.\d+", str(doc.get("openapi", ""))):
        problem("openapi", f"version {doc.get('openapi')!r} is not 3.0.x")
    info = doc.get("info") or {}
    for key in ("title", "version"):
        if not isinstance(info.get(key), str):
            problem("info", f"{key} missing or not a string")
    for key in doc:
        if key not in {"openapi", "info", "servers", "paths", "components", "security",
                       "tags", "externalDocs"} and not key.startswith("x-"):
            problem("root", f"unknown field {key!r}")

    paths = doc.get("paths") or {}
    for template, item in paths.items():
        if not template.startswith("/"):
            problem(template, "path does not start with /")
        params = re.findall(r"\{([^}]+)\}", template)
        declared = [resolve(doc, p, template) for p in item.get("parameters") or []]
        for name in params:
            if not any(p and p.get("in") == "path" and p.get("name") == name
                       and p.get("required") is True for p in declared):
                problem(template, f"path parameter {name!r} not declared as required")
        for method, op in item.items():
            if method not in HTTP_METHODS:
                continue
            where = f"{method.upper()} {template}"
            responses = op.get("responses") or {}
            if not responses:
                problem(where, "no responses")
            for status, resp in responses.items():
                if not re.fullmatch(r"[1-5]\d\d", str(status)):
                    problem(where, f"status key {status!r} is not a quoted 3-digit code")
                    continue
                resolved = check_response(doc, resp, f"{where} {status}")
                if resolved is None:
                    continue
                want = ERROR_CODES.get(str(status))
                if want and method != "head":
                    codes = error_code_of(doc, resolved, f"{where} {status}")
                    if codes != {want}:
                        problem(f"{where} {status}", f"error code fixed to {codes}, want {want}")
            for p in op.get("parameters") or []:
                p = resolve(doc, p, where)
                if p is not None:
                    check_schema(doc, p.get("schema"), f"{where} parameter {p.get('name')}")

    for template, methods in ROUTES.items():
        item = paths.get(template)
        if item is None:
            problem(template, "route of the contract is missing")
            continue
        for method, statuses in methods.items():
            op = item.get(method)
            if op is None:
                problem(template, f"{method.upper()} is missing")
                continue
            for status in statuses:
                if status not in (op.get("responses") or {}):
                    problem(f"{method.upper()} {template}", f"status {status} not documented")

    schemas = (doc.get("components") or {}).get("schemas") or {}
    for name, schema in schemas.items():
        check_schema(doc, schema, f"components.schemas.{name}")

    def expect(name, required, props):
        s = schemas.get(name)
        if s is None:
            problem(name, "schema missing")
            return
        if sorted(s.get("required") or []) != sorted(required):
            problem(name, f"required {s.get('required')} != {required}")
        for prop, (typ, extra) in props.items():
            p = resolve(doc, (s.get("properties") or {}).get(prop), name) or {}
            if p.get("type") != typ:
                problem(f"{name}.{prop}", f"type {p.get('type')!r} != {typ!r}")
            for key, val in extra.items():
                if p.get(key) != val:
                    problem(f"{name}.{prop}", f"{key} {p.get(key)!r} != {val!r}")

    expect("DirectoryListing", ["path", "entries"],
           {"path": ("string", {}), "entries": ("array", {})})
    expect("FileEntry", ["name", "size", "type", "modified_at"],
           {"name": ("string", {}), "size": ("integer", {"format": "int64"}),
            "type": ("string", {"enum": ["file", "directory"]}),
            "modified_at": ("string", {"format": "date-time"}), "mode": ("string", {})})
    expect("HealthResponse", ["status"],
           {"status": ("string", {"enum": ["ok"]}), "uptime_seconds": ("integer", {})})
    expect("MetadataResponse", ["env"], {"env": ("object", {})})
    expect("Error", ["code", "message"],
           {"code": ("string", {"enum": list(ERROR_CODES.values())}),
            "message": ("string", {})})

    mode_pattern = (schemas.get("FileEntry", {}).get("properties", {})
                    .get("mode", {}).get("pattern"))
    if mode_pattern:
        for good in ("0644", "0755", "0000", "0777", "4755", "04755"):
            if not re.search(mode_pattern, good):
                problem("FileEntry.mode", f"pattern rejects {good!r}")
        for bad in ("644", "00644", "rw-r--r--", "0o644", "420", "0999", ""):
            if re.search(mode_pattern, bad):
                problem("FileEntry.mode", f"pattern accepts {bad!r}")

    mode_param = resolve(doc, {"$ref": "#/components/parameters/Mode"}, "Mode") or {}
    if (mode_param.get("schema") or {}).get("pattern") != "^0[0-7]{3}$":
        problem("parameters.Mode", "pattern is not the contract's ^0[0-7]{3}$")
    put = (paths.get("/v1/files/{path}") or {}).get("put") or {}
    bodies = ((put.get("requestBody") or {}).get("content") or {})
    for ctype in ("application/octet-stream", "multipart/form-data"):
        if ctype not in bodies:
            problem("PUT /v1/files/{path}", f"request body {ctype} missing")

    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) in {sys.argv[1]}")
        return 1
    print(f"{sys.argv[1]}: OpenAPI {doc['openapi']}, {len(paths)} paths, "
          f"{len(schemas)} schemas: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
