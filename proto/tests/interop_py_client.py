# SPDX-License-Identifier: Apache-2.0
"""Interop: a grpcio (python3-grpcio) client against grpc_test_server, the
test service built on the project's server side.

usage: interop_py_client.py SERVER_BINARY PROCESS_DESC REFLECTION_DESC
Starts the server on an ephemeral loopback port and a Unix socket, runs every
check, stops the server. Exit status 0 = all checks passed."""
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

SVC = "/process.v1.ProcessService/"
REFL_V1 = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
REFL_V1ALPHA = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"


def load_messages(path):
    fds = descriptor_pb2.FileDescriptorSet.FromString(open(path, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    out = {}
    for f in fds.file:
        fd = pool.FindFileByName(f.name)
        for name in fd.message_types_by_name:
            full = fd.message_types_by_name[name].full_name
            out[full] = message_factory.MessageFactory(pool).GetPrototype(
                pool.FindMessageTypeByName(full))
    return out


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def main():
    server_bin, process_desc, refl_desc = sys.argv[1:4]
    M = load_messages(process_desc)
    R = load_messages(refl_desc)
    tmp = tempfile.mkdtemp(prefix="grpc-interop-")
    sock = os.path.join(tmp, "s.sock")
    proc = subprocess.Popen([server_bin, "--port", "0", "--unix", sock],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        check(line.startswith("PORT "), "server reports its port")
        port = int(line.split()[1])
        run_checks(M, R, "127.0.0.1:%d" % port, "unix:" + sock)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if os.path.exists(sock):
            os.unlink(sock)
        os.rmdir(tmp)
    check(proc.returncode == 0, "server shut down gracefully on SIGTERM (rc %s)" % proc.returncode)


def execute_req(M, *argv):
    r = M["process.v1.ExecuteRequest"]()
    r.config.command.extend(argv)
    return r.SerializeToString()


def start_req(M, *argv):
    r = M["process.v1.StartRequest"]()
    r.config.command.extend(argv)
    return r.SerializeToString()


def run_checks(M, R, target, unix_target):
    ch = grpc.insecure_channel(target)
    grpc.channel_ready_future(ch).result(timeout=10)
    execute = ch.unary_unary(SVC + "Execute")
    start = ch.unary_stream(SVC + "Start")
    ExecuteResponse = M["process.v1.ExecuteResponse"]
    StartResponse = M["process.v1.StartResponse"]

    resp = ExecuteResponse.FromString(execute(execute_req(M, "echo", "hello", "world"), timeout=10))
    check(resp.stdout == b"hello world\n", "unary Execute echo")

    msg = "bad 100% \u00fcn\u00efc\u00f6de \u2713 %41"
    try:
        execute(execute_req(M, "fail", "9", msg), timeout=10)
        check(False, "fail returns an error")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.FAILED_PRECONDITION, "status code FAILED_PRECONDITION")
        check(e.details() == msg, "grpc-message with non-ASCII and %% survives: %r" % e.details())

    try:
        ch.unary_unary(SVC + "NoSuchMethod")(b"", timeout=10)
        check(False, "unknown method fails")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.UNIMPLEMENTED, "unknown method -> UNIMPLEMENTED")

    try:
        execute(b"\xff\xff\xff\xff", timeout=10)
        check(False, "garbage request fails")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, "invalid protobuf -> INVALID_ARGUMENT")
    resp = ExecuteResponse.FromString(execute(execute_req(M, "echo", "again"), timeout=10))
    check(resp.stdout == b"again\n", "connection usable after an invalid request")

    try:
        execute(execute_req(M, "echo", "x" * (5 * 1024 * 1024)), timeout=20)
        check(False, "oversized request fails")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED,
              "request over 4 MiB -> RESOURCE_EXHAUSTED (%s)" % e.code())

    t0 = time.monotonic()
    try:
        execute(execute_req(M, "sleep", "5000"), timeout=0.5)
        check(False, "deadline exceeded")
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.DEADLINE_EXCEEDED, "deadline -> DEADLINE_EXCEEDED")
    check(time.monotonic() - t0 < 4, "deadline ended the call before the handler finished")
    stats = b""
    for _ in range(50):
        stats = ExecuteResponse.FromString(execute(execute_req(M, "stats"), timeout=10)).stdout
        if not stats.startswith(b"cancels=0"):
            break
        time.sleep(0.1)
    check(not stats.startswith(b"cancels=0"), "server handler saw the deadline cancel: %r" % stats)

    events = [StartResponse.FromString(b) for b in start(start_req(M, "count", "100", "16"),
                                                          timeout=20)]
    check(len(events) == 102, "server streaming: init + 100 stdout + exit (%d)" % len(events))
    check(events[0].WhichOneof("event") == "init" and events[0].init.process_id == 42, "init event")
    check(all(e.WhichOneof("event") == "stdout" and len(e.stdout) == 16 for e in events[1:-1]),
          "stdout events")
    check(events[-1].WhichOneof("event") == "exit", "exit event last")

    before = int(stats.split(b"=")[1].split()[0])
    it = start(start_req(M, "forever"), timeout=30)
    got = [next(it) for _ in range(20)]
    check(len(got) == 20, "forever stream delivers")
    it.cancel()
    after = before
    for _ in range(50):
        s = ExecuteResponse.FromString(execute(execute_req(M, "stats"), timeout=10)).stdout
        after = int(s.split(b"=")[1].split()[0])
        if after > before:
            break
        time.sleep(0.1)
    check(after > before, "client cancellation reached the server handler")

    def one_stream(i):
        evs = list(start(start_req(M, "count", "5", "16"), timeout=30))
        return len(evs)
    with concurrent.futures.ThreadPoolExecutor(max_workers=120) as ex:
        counts = list(ex.map(one_stream, range(120)))
    check(counts == [7] * 120, "120 concurrent Start streams on one channel")

    for path in (REFL_V1, REFL_V1ALPHA):
        refl = ch.stream_stream(path)
        Req = R["grpc.reflection.v1.ServerReflectionRequest"]
        Resp = R["grpc.reflection.v1.ServerReflectionResponse"]
        reqs = [Req(list_services=""), Req(file_containing_symbol="process.v1.ProcessService"),
                Req(file_by_filename="google/protobuf/empty.proto"),
                Req(file_containing_symbol="no.such.Symbol")]
        answers = [Resp.FromString(b) for b in refl(iter(r.SerializeToString() for r in reqs),
                                                    timeout=10)]
        check(len(answers) == 4, "%s answers every request" % path)
        names = [s.name for s in answers[0].list_services_response.service]
        check("process.v1.ProcessService" in names, "reflection lists ProcessService: %s" % names)
        files = [descriptor_pb2.FileDescriptorProto.FromString(b)
                 for b in answers[1].file_descriptor_response.file_descriptor_proto]
        svc = [s for f in files for s in f.service if s.name == "ProcessService"]
        check(len(svc) == 1 and any(m.name == "Start" and m.server_streaming for m in svc[0].method),
              "reflection returns the file defining ProcessService")
        check(any(f.name == "google/protobuf/empty.proto" for f in files),
              "its dependencies come along")
        e = [descriptor_pb2.FileDescriptorProto.FromString(b)
             for b in answers[2].file_descriptor_response.file_descriptor_proto]
        check(e and e[0].name == "google/protobuf/empty.proto", "file_by_filename")
        check(answers[3].error_response.error_code == 5, "unknown symbol -> NOT_FOUND error")
    ch.close()

    uch = grpc.insecure_channel(unix_target)
    resp = ExecuteResponse.FromString(uch.unary_unary(SVC + "Execute")(
        execute_req(M, "echo", "unix"), timeout=10))
    check(resp.stdout == b"unix\n", "unary over the Unix socket")
    uch.close()


if __name__ == "__main__":
    main()
