# SPDX-License-Identifier: Apache-2.0
"""Reflection names of sandboxd-ref as a client holding the upstream
reference's generated stubs sees them (python3-grpcio).

usage: reflection_names_test.py DAEMON_BINARY PROCESS_DESC PLAIN_DESC REFLECTION_DESC

PROCESS_DESC is the descriptor set the daemon serves; PLAIN_DESC the same
process.proto compiled under its own file name, to show that only the name
differs.

The upstream reference registers its file as process/v1/process.proto. A
client whose pool already holds that file (the Python SDK bundles the
generated stubs) and adds the reflected descriptors must get the same file
under the same name: a second name for the same symbols is a conflict
("... is already defined in file ..."). Starts the daemon on ephemeral
loopback ports over a temporary root, resolves every ProcessService symbol
(the service, each method, each message and enum) through reflection and
checks the file name of each answer, then adds the answers to a pool that
holds the reference-named file. Exit 0 = every check passed."""
import os
import subprocess
import sys
import tempfile
import time

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

UPSTREAM_NAME = "process/v1/process.proto"
REFL = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def load_set(path):
    return descriptor_pb2.FileDescriptorSet.FromString(open(path, "rb").read())


def reflection_messages(path):
    fds = load_set(path)
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    get = message_factory.MessageFactory(pool).GetPrototype
    return (get(pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionRequest")),
            get(pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionResponse")))


def symbols(proto_file):
    """Every symbol a client resolves: service, methods, messages (nested
    too), enums."""
    pkg = proto_file.package
    out = []
    for s in proto_file.service:
        out.append(f"{pkg}.{s.name}")
        out += [f"{pkg}.{s.name}.{m.name}" for m in s.method]

    def walk(prefix, msgs, enums):
        for e in enums:
            out.append(f"{prefix}.{e.name}")
        for m in msgs:
            out.append(f"{prefix}.{m.name}")
            walk(f"{prefix}.{m.name}", m.nested_type, m.enum_type)

    walk(pkg, proto_file.message_type, proto_file.enum_type)
    return out


def start_daemon(binary, root):
    proc = subprocess.Popen([binary, "--listen-host", "127.0.0.1", "--grpc-port", "0",
                             "--rest-port", "0", "--root-dir", root],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    port = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and port is None:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("grpc-port="):
            port = int(line.split("=", 1)[1])
    return proc, port


def main():
    daemon, process_desc, plain_desc, refl_desc = sys.argv[1:5]
    local = [f for f in load_set(process_desc).file if f.package == "process.v1"]
    check(len(local) == 1, "the built descriptor set holds the process.v1 file")
    local = local[0]
    check(local.name == UPSTREAM_NAME, f"the built descriptor is named {UPSTREAM_NAME}")
    plain = [f for f in load_set(plain_desc).file if f.package == "process.v1"][0]
    renamed = descriptor_pb2.FileDescriptorProto()
    renamed.CopyFrom(plain)
    renamed.name = UPSTREAM_NAME
    check(renamed.SerializeToString() == local.SerializeToString(),
          "apart from its name the file is process.proto, byte for byte")
    Req, Resp = reflection_messages(refl_desc)
    names = symbols(local)
    check(len(names) > 20, f"{len(names)} ProcessService symbols to resolve")

    with tempfile.TemporaryDirectory(prefix="sbx-refl-") as tmp:
        proc, port = start_daemon(daemon, os.path.join(tmp, "root"))
        try:
            check(port is not None, "sandboxd-ref reports its gRPC port")
            with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                refl = ch.stream_stream(REFL)
                reqs = [Req(file_containing_symbol=n) for n in names]
                reqs.append(Req(file_by_filename=UPSTREAM_NAME))
                answers = [Resp.FromString(b) for b in
                           refl(iter(r.SerializeToString() for r in reqs), timeout=30)]
            check(len(answers) == len(reqs), "reflection answers every request")
            served = {}
            for n, a in zip(names + [UPSTREAM_NAME], answers):
                check(a.WhichOneof("message_response") == "file_descriptor_response",
                      f"{n} resolves")
                files = [descriptor_pb2.FileDescriptorProto.FromString(b)
                         for b in a.file_descriptor_response.file_descriptor_proto]
                own = [f for f in files if f.package == "process.v1"]
                check(len(own) == 1 and own[0].name == UPSTREAM_NAME,
                      f"{n} is defined in {UPSTREAM_NAME} "
                      f"(got {[f.name for f in own]})")
                for f in files:
                    served[f.name] = f
            check(served[UPSTREAM_NAME] == local, "the served file is the built one")

            # The client of the reference: its pool holds the upstream-named
            # file (as generated stubs register it); the reflected files must
            # add without a conflict.
            pool = descriptor_pool.DescriptorPool()
            deps = {f.name: f for f in load_set(process_desc).file}
            for name in local.dependency:
                pool.Add(deps[name])
            pool.Add(local)
            for f in served.values():
                pool.Add(f)
            check(pool.FindFileContainingSymbol("process.v1.ProcessService").name ==
                  UPSTREAM_NAME, "reflected descriptors join a pool holding the reference's stubs")
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


if __name__ == "__main__":
    main()
