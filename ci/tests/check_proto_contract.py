#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that the descriptor set built from proto/ reproduces the wire
contract (CONTRACT.md section 1) exactly: package, service, RPC kinds, every
message's field names, numbers, types, labels, oneofs, optional presence, and
the Signal enum. Run with Debian's python3 (python3-protobuf)."""
import sys

from google.protobuf import descriptor_pb2 as d

F = d.FieldDescriptorProto
T_STR, T_BYTES, T_U32, T_I32, T_MSG, T_ENUM = (
    F.TYPE_STRING, F.TYPE_BYTES, F.TYPE_UINT32, F.TYPE_INT32, F.TYPE_MESSAGE, F.TYPE_ENUM)
OPT, REP = F.LABEL_OPTIONAL, F.LABEL_REPEATED

# message -> [(field, number, type, type_name or None, label, oneof or None, proto3_optional)]
EXPECTED = {
    "PTY": [("cols", 1, T_U32, None, OPT, None, False), ("rows", 2, T_U32, None, OPT, None, False)],
    "ProcessConfig": [
        ("command", 1, T_STR, None, REP, None, False),
        ("env_vars", 2, T_MSG, ".process.v1.ProcessConfig.EnvVarsEntry", REP, None, False),
        ("cwd", 3, T_STR, None, OPT, "_cwd", True),
    ],
    "StartRequest": [
        ("config", 1, T_MSG, ".process.v1.ProcessConfig", OPT, None, False),
        ("pty", 2, T_MSG, ".process.v1.PTY", OPT, "_pty", True),
    ],
    "InitEvent": [("process_id", 1, T_I32, None, OPT, None, False)],
    "ExitEvent": [("exit_code", 1, T_I32, None, OPT, None, False)],
    "StartResponse": [
        ("init", 1, T_MSG, ".process.v1.InitEvent", OPT, "event", False),
        ("stdout", 2, T_BYTES, None, OPT, "event", False),
        ("stderr", 3, T_BYTES, None, OPT, "event", False),
        ("exit", 4, T_MSG, ".process.v1.ExitEvent", OPT, "event", False),
    ],
    "ExecuteRequest": [("config", 1, T_MSG, ".process.v1.ProcessConfig", OPT, None, False)],
    "ExecuteResponse": [
        ("exit_code", 1, T_I32, None, OPT, None, False),
        ("stdout", 2, T_BYTES, None, OPT, None, False),
        ("stderr", 3, T_BYTES, None, OPT, None, False),
    ],
    "WriteStdinRequest": [
        ("process_id", 1, T_I32, None, OPT, None, False),
        ("input", 2, T_BYTES, None, OPT, "payload", False),
        ("eof", 3, T_MSG, ".google.protobuf.Empty", OPT, "payload", False),
    ],
    "WriteStdinResponse": [],
    "SendSignalRequest": [
        ("process_id", 1, T_I32, None, OPT, None, False),
        ("signal", 2, T_ENUM, ".process.v1.Signal", OPT, None, False),
    ],
    "SendSignalResponse": [],
    "ResizeTTYRequest": [
        ("process_id", 1, T_I32, None, OPT, None, False),
        ("cols", 2, T_U32, None, OPT, None, False),
        ("rows", 3, T_U32, None, OPT, None, False),
    ],
    "ResizeTTYResponse": [],
}
RPCS = {
    "Start": ("StartRequest", "StartResponse", True),
    "Execute": ("ExecuteRequest", "ExecuteResponse", False),
    "WriteStdin": ("WriteStdinRequest", "WriteStdinResponse", False),
    "SendSignal": ("SendSignalRequest", "SendSignalResponse", False),
    "ResizeTTY": ("ResizeTTYRequest", "ResizeTTYResponse", False),
}
SIGNAL = [("SIGNAL_UNSPECIFIED", 0), ("SIGNAL_SIGINT", 2), ("SIGNAL_SIGKILL", 9), ("SIGNAL_SIGTERM", 15)]


def main(path):
    fds = d.FileDescriptorSet()
    with open(path, "rb") as f:
        fds.ParseFromString(f.read())
    files = {f.name: f for f in fds.file}
    errors = []
    if "google/protobuf/empty.proto" not in files:
        errors.append("descriptor set lacks google/protobuf/empty.proto (--include_imports)")
    proc = [f for f in fds.file if f.package == "process.v1"]
    if len(proc) != 1:
        sys.exit(f"expected one process.v1 file, found {len(proc)}")
    fd = proc[0]
    if fd.syntax != "proto3":
        errors.append(f"syntax is {fd.syntax!r}, want proto3")
    if list(fd.dependency) != ["google/protobuf/empty.proto"]:
        errors.append(f"imports are {list(fd.dependency)}")

    msgs = {m.name: m for m in fd.message_type}
    if set(msgs) != set(EXPECTED):
        errors.append(f"messages differ: extra {set(msgs) - set(EXPECTED)}, missing {set(EXPECTED) - set(msgs)}")
    for name, fields in EXPECTED.items():
        m = msgs.get(name)
        if m is None:
            continue
        got = []
        for f in m.field:
            oneof = m.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else None
            got.append((f.name, f.number, f.type, f.type_name or None, f.label, oneof, f.proto3_optional))
        if got != fields:
            errors.append(f"{name}: fields\n   got  {got}\n   want {fields}")
    env = [n for n in msgs["ProcessConfig"].nested_type if n.name == "EnvVarsEntry"]
    if not env or not env[0].options.map_entry or [(f.name, f.number, f.type) for f in env[0].field] != [
            ("key", 1, T_STR), ("value", 2, T_STR)]:
        errors.append("ProcessConfig.env_vars is not map<string,string>")

    enums = {e.name: e for e in fd.enum_type}
    if set(enums) != {"Signal"}:
        errors.append(f"enums are {set(enums)}, want {{'Signal'}}")
    elif [(v.name, v.number) for v in enums["Signal"].value] != SIGNAL:
        errors.append(f"Signal values {[(v.name, v.number) for v in enums['Signal'].value]}")

    if [s.name for s in fd.service] != ["ProcessService"]:
        errors.append(f"services are {[s.name for s in fd.service]}")
    else:
        rpcs = {m.name: m for m in fd.service[0].method}
        if set(rpcs) != set(RPCS):
            errors.append(f"RPCs are {sorted(rpcs)}")
        for name, (req, resp, stream) in RPCS.items():
            m = rpcs.get(name)
            if m and (m.input_type, m.output_type, m.server_streaming, m.client_streaming) != (
                    ".process.v1." + req, ".process.v1." + resp, stream, False):
                errors.append(f"RPC {name}: {m.input_type} -> {m.output_type} stream={m.server_streaming}")
    for e in errors:
        print("MISMATCH:", e)
    if errors:
        sys.exit(1)
    print(f"process.v1 descriptor matches the contract: {len(msgs)} messages, {len(RPCS)} RPCs")


if __name__ == "__main__":
    main(sys.argv[1])
