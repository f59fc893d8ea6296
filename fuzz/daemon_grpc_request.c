/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding and validation of every ProcessService request message, as the
 * daemon's handlers do it: protobuf-c unpacking, the unknown-field count,
 * launch_spec_init for Start and Execute (with the environment the child
 * would get), the signal mapping, the status mapping of cwd errors.
 *
 * Oracle: a message that decodes re-encodes to bytes that decode to the same
 * encoding (no field lost or invented); a launch spec holds exactly the
 * command and the environment the message carried, NULL-terminated; every
 * environment entry the child would get has the form KEY=VALUE; a signal
 * maps to INT, KILL or TERM or is refused.
 *
 * Input: byte 0 picks the message type (Start, Execute, WriteStdin,
 * SendSignal, ResizeTTY); the rest is the request message. */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs/resolve.h"
#include "fuzz_check.h"
#include "grpc_service/request.h"
#include "process.pb-c.h"
#include "sbx_grpc_status.h"

static const ProtobufCMessageDescriptor *const types[] = {
    &process__v1__start_request__descriptor,       &process__v1__execute_request__descriptor,
    &process__v1__write_stdin_request__descriptor, &process__v1__send_signal_request__descriptor,
    &process__v1__resize_ttyrequest__descriptor,
};

/* protobuf-c keeps a field numbered 0 (invalid in protobuf) as an unknown
 * field and writes it back out, which then does not decode. The daemon never
 * re-encodes a request, so this is left to the library; such messages are
 * kept out of the round-trip check. */
static bool has_field_zero(const ProtobufCMessage *msg)
{
    if (!msg) return false;
    for (unsigned i = 0; i < msg->n_unknown_fields; i++)
        if (msg->unknown_fields[i].tag == 0) return true;
    const ProtobufCMessageDescriptor *d = msg->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
        /* A oneof member shares its storage: only the one set is a message. */
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            *(const uint32_t *)((const char *)msg + f->quantifier_offset) != f->id)
            continue;
        const char *base = (const char *)msg + f->offset;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)((const char *)msg + f->quantifier_offset);
            ProtobufCMessage *const *items = *(ProtobufCMessage *const *const *)base;
            for (size_t k = 0; k < n; k++)
                if (has_field_zero(items[k])) return true;
        } else if (has_field_zero(*(ProtobufCMessage *const *)base)) {
            return true;
        }
    }
    return false;
}

/* Packing a decoded message and decoding that again gives the same packing. */
static void check_round_trip(const ProtobufCMessage *msg)
{
    if (has_field_zero(msg)) return;
    size_t n = protobuf_c_message_get_packed_size(msg);
    uint8_t *a = malloc(n ? n : 1);
    FUZZ_CHECK(a != NULL, "malloc");
    FUZZ_CHECK(protobuf_c_message_pack(msg, a) == n, "packed size");
    ProtobufCMessage *again = protobuf_c_message_unpack(msg->descriptor, NULL, n, a);
    FUZZ_CHECK(again != NULL, "a packed message does not decode");
    size_t m = protobuf_c_message_get_packed_size(again);
    FUZZ_CHECK(m == n, "re-encoding changed size %zu -> %zu", n, m);
    uint8_t *b = malloc(m ? m : 1);
    FUZZ_CHECK(b != NULL, "malloc");
    protobuf_c_message_pack(again, b);
    FUZZ_CHECK(memcmp(a, b, n) == 0, "re-encoding changed the bytes");
    free(a);
    free(b);
    protobuf_c_message_free_unpacked(again, NULL);
}

static void check_launch(const Process__V1__ProcessConfig *cfg, const Process__V1__PTY *pty)
{
    struct launch_spec spec;
    char msg[256];
    int code = launch_spec_init(&spec, cfg, pty, msg, sizeof msg);
    if (code != SBX_GRPC_OK) {
        FUZZ_CHECK(code == SBX_GRPC_INVALID_ARGUMENT || code == SBX_GRPC_RESOURCE_EXHAUSTED,
                   "code %d", code);
        FUZZ_CHECK(msg[0] != '\0', "a refusal without a message");
        FUZZ_CHECK(!cfg || cfg->n_command == 0 || !cfg->command[0] || !cfg->command[0][0] ||
                       code == SBX_GRPC_RESOURCE_EXHAUSTED,
                   "refused a config with a command: %s", msg);
        return;
    }
    FUZZ_CHECK(cfg && spec.argc == cfg->n_command && spec.argc > 0, "argc");
    for (size_t i = 0; i < spec.argc; i++)
        FUZZ_CHECK(spec.argv[i] == cfg->command[i], "argv[%zu]", i);
    FUZZ_CHECK(spec.argv[spec.argc] == NULL, "argv not NULL-terminated");
    FUZZ_CHECK(spec.nenv == cfg->n_env_vars, "env count");
    FUZZ_CHECK(spec.pty == (pty != NULL), "pty");
    if (pty) FUZZ_CHECK(spec.cols == (pty->cols > 65535 ? 65535 : pty->cols), "cols clamp");

    char *base[] = {"PATH=/usr/bin:/bin", "HOME=/root", "SANDBOX_X=1", NULL};
    char **envp = env_build(base, spec.env, spec.nenv);
    FUZZ_CHECK(envp != NULL, "env_build");
    size_t k = 0;
    for (; envp[k]; k++)
        FUZZ_CHECK(strchr(envp[k], '=') != NULL, "environment entry without '=': %s", envp[k]);
    FUZZ_CHECK(k <= 3 + spec.nenv, "the environment grew: %zu entries", k);
    free(envp);

    if (spec.cwd) {
        char norm[FS_PATH_MAX + 1];
        int rc = fs_path_normalize(spec.cwd, norm, sizeof norm);
        FUZZ_CHECK(rc == 0 || rc == FS_ESCAPE || rc == FS_INVALID, "normalize %d", rc);
        if (rc != 0) {
            int st = cwd_error_status(rc, spec.cwd, msg, sizeof msg);
            FUZZ_CHECK(st == SBX_GRPC_PERMISSION_DENIED || st == SBX_GRPC_INVALID_ARGUMENT,
                       "cwd status %d", st);
        }
    }
    launch_spec_free(&spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const ProtobufCMessageDescriptor *d = types[data[0] % (sizeof types / sizeof types[0])];
    ProtobufCMessage *msg = protobuf_c_message_unpack(d, NULL, size - 1, data + 1);
    if (!msg) return 0;
    check_round_trip(msg);
    (void)request_unknown_fields(msg);
    if (d == &process__v1__start_request__descriptor) {
        const Process__V1__StartRequest *r = (const Process__V1__StartRequest *)msg;
        check_launch(r->config,
                     r->_pty_case == PROCESS__V1__START_REQUEST___PTY_PTY ? r->pty : NULL);
    } else if (d == &process__v1__execute_request__descriptor) {
        check_launch(((const Process__V1__ExecuteRequest *)msg)->config, NULL);
    } else if (d == &process__v1__send_signal_request__descriptor) {
        int signo = 0;
        int code =
            signal_from_wire((int)((const Process__V1__SendSignalRequest *)msg)->signal, &signo);
        FUZZ_CHECK(
            code == SBX_GRPC_INVALID_ARGUMENT ||
                (code == SBX_GRPC_OK && (signo == SIGINT || signo == SIGKILL || signo == SIGTERM)),
            "signal %d -> %d", code, signo);
    }
    protobuf_c_message_free_unpacked(msg, NULL);
    return 0;
}
