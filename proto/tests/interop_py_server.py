# SPDX-License-Identifier: Apache-2.0
"""Interop: a grpcio (python3-grpcio) test server for the project's client.

usage: interop_py_server.py PROCESS_DESC [UNIX_SOCKET]
Serves process.v1.ProcessService with canned behaviour on an ephemeral
loopback port (and the Unix socket if given), prints "PORT <n>", and runs
until SIGTERM or until stdin closes.
  Execute ["echo", args...]        stdout = args joined by ' ' + "\\n"
  Execute ["fail", code, message]  ends with that status
  Execute ["sleep", ms]            answers after ms (grpcio enforces deadlines)
  Execute ["big", n]               stdout = n bytes
  Execute ["stats"]                stdout = "cancels=<n>"
  Start   ["count", n, size]       InitEvent 42, n stdout events, exit 0
  Start   ["forever"]              4 KiB stdout events until cancelled"""
import concurrent.futures
import signal
import sys
import threading
import time

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

stats = {"cancels": 0}
lock = threading.Lock()


def load(path):
    fds = descriptor_pb2.FileDescriptorSet.FromString(open(path, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    for f in fds.file:
        pool.Add(f)
    fac = message_factory.MessageFactory(pool)
    return lambda name: fac.GetPrototype(pool.FindMessageTypeByName(name))


def main():
    M = load(sys.argv[1])
    ExecuteRequest, ExecuteResponse = M("process.v1.ExecuteRequest"), M("process.v1.ExecuteResponse")
    StartRequest, StartResponse = M("process.v1.StartRequest"), M("process.v1.StartResponse")

    def parse(cls, data, context):
        try:
            return cls.FromString(data)
        except Exception:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "invalid request bytes")

    def execute(data, context):
        argv = list(parse(ExecuteRequest, data, context).config.command)
        if argv[:1] == ["echo"]:
            return ExecuteResponse(stdout=(" ".join(argv[1:]) + "\n").encode()).SerializeToString()
        if argv[:1] == ["fail"]:
            context.abort(grpc.StatusCode(next(c for c in grpc.StatusCode
                                               if c.value[0] == int(argv[1]))), argv[2])
        if argv[:1] == ["sleep"]:
            end = time.monotonic() + int(argv[1]) / 1000
            while time.monotonic() < end and context.is_active():
                time.sleep(0.01)
            return ExecuteResponse(stdout=b"slept\n").SerializeToString()
        if argv[:1] == ["big"]:
            return ExecuteResponse(stdout=b"b" * int(argv[1])).SerializeToString()
        if argv[:1] == ["stats"]:
            with lock:
                return ExecuteResponse(stdout=b"cancels=%d" % stats["cancels"]).SerializeToString()
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "unknown test command")

    def start(data, context):
        argv = list(parse(StartRequest, data, context).config.command)
        done = [False]

        def on_end():
            if not done[0]:
                with lock:
                    stats["cancels"] += 1
        context.add_callback(on_end)
        r = StartResponse()
        r.init.process_id = 42
        yield r.SerializeToString()
        if argv[:1] == ["forever"]:
            while context.is_active():
                yield StartResponse(stdout=b"f" * 4096).SerializeToString()
            return
        n, size = (int(argv[1]), int(argv[2])) if argv[:1] == ["count"] else (0, 0)
        for _ in range(n):
            yield StartResponse(stdout=b"x" * size).SerializeToString()
        r = StartResponse()
        r.exit.exit_code = 0
        done[0] = True
        yield r.SerializeToString()

    handler = grpc.method_handlers_generic_handler("process.v1.ProcessService", {
        "Execute": grpc.unary_unary_rpc_method_handler(execute),
        "Start": grpc.unary_stream_rpc_method_handler(start),
    })
    server = grpc.server(concurrent.futures.ThreadPoolExecutor(max_workers=300),
                         handlers=[handler])
    port = server.add_insecure_port("127.0.0.1:0")
    if len(sys.argv) > 2:
        server.add_insecure_port("unix:" + sys.argv[2])
    server.start()
    print("PORT %d" % port, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    server.stop(grace=1).wait(5)


if __name__ == "__main__":
    main()
