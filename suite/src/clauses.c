/* The contract's clause list, transcribed from spec/CONTRACT.md section 3
 * (one line each; the contract is the authority for the full wording). */
#include "clauses.h"

#include <string.h>

#define M LEVEL_MUST
#define S LEVEL_SHOULD

const struct clause clause_table[] = {
    {"P1", M, false, true,
     "Execute returns exit_code, stdout and stderr as separate byte-exact buffers; stdin is empty"},
    {"P2", M, false, false, "Exit codes 0-255 are reported as the process exited with them"},
    {"P3", M, false, false,
     "env_vars are added on top of the daemon's environment; the request wins on a clash"},
    {"P4", M, false, true,
     "cwd defaults to the root, resolves beneath it, and escaping it fails PERMISSION_DENIED"},
    {"P5", M, false, false, "A missing config or empty command fails INVALID_ARGUMENT"},
    {"P6", S, false, false,
     "An unknown command fails NOT_FOUND, a non-executable one PERMISSION_DENIED"},
    {"P7", M, false, false,
     "A Start stream is one InitEvent, output events, one ExitEvent, then status OK"},
    {"P8", S, false, false,
     "When the process cannot be started, Start fails with the status and no InitEvent"},
    {"P9", M, false, true,
     "process_id from InitEvent is the handle, valid at once and unique among live processes"},
    {"P10", M, false, false, "Output is streamed as it is produced, not buffered to exit"},
    {"P11", M, false, false,
     "Concatenated output events equal the process's output byte-exact, also for tens of MiB"},
    {"P12", M, false, true,
     "WriteStdin input reaches stdin in order, eof closes it, unknown IDs fail NOT_FOUND"},
    {"P13", M, false, false,
     "SendSignal reaches the whole process group; bad signals INVALID_ARGUMENT; unknown IDs "
     "NOT_FOUND"},
    {"P14", M, false, true,
     "ResizeTTY: unknown ID NOT_FOUND, no PTY FAILED_PRECONDITION, PTY size changes"},
    {"P15", M, false, true,
     "Start with pty runs the process on a real controlling pseudo-terminal"},
    {"P16", M, false, false,
     "Every process runs in its own process group (a PTY process leads its session)"},
    {"P17", S, false, false, "Cancelling a Start or Execute call terminates the process group"},
    {"P18", M, false, false, "REST and gRPC act on one workspace"},
    {"P19", M, false, false, "RPCs are served in parallel"},
    {"G1", M, false, false, "Failures use standard gRPC status codes in trailers"},
    {"G2", M, false, false, "An unknown method fails UNIMPLEMENTED"},
    {"G3", M, false, false,
     "Undecodable request bytes fail with a status and the connection stays usable"},
    {"G4", M, false, false, "Unknown fields in a request are ignored"},
    {"G5", S, false, false, "A grpc-timeout deadline is honoured and the process is gone"},
    {"G6", M, false, false,
     "At least 100 concurrent Start streams multiplex on one HTTP/2 connection"},
    {"G7", S, false, false, "gRPC server reflection is offered"},
    {"F1", M, false, false,
     "PUT stores the body byte-exact (0 bytes to 1 GiB, streamed) and answers 204"},
    {"F2", M, false, false, "PUT creates missing parent directories"},
    {"F3", M, false, true,
     "mode matches ^0[0-7]{3}$ and sets the permission bits exactly; default 0644"},
    {"F4", M, false, true, "PUT accepts multipart/form-data with a part named file"},
    {"F5", S, false, false, "PUT to an existing directory fails 400 INVALID_ARGUMENT"},
    {"F6", M, false, true,
     "PUT is atomic: only the complete old or the complete new content is ever seen"},
    {"F7", M, false, true,
     "GET of a file answers 200 application/octet-stream with the exact bytes"},
    {"F8", M, false, true, "GET of a directory answers a schema-valid DirectoryListing"},
    {"F9", M, false, false,
     "HEAD answers 200 for existing paths and 404 for absent ones, without a body"},
    {"F10", M, false, false,
     "DELETE semantics: 204, 404, 409 without recursive, recursive removes the tree"},
    {"F11", M, false, true, "The sandbox root itself is never removed"},
    {"F12", M, false, false, "{path} is percent-decoded exactly once"},
    {"F13", M, false, true,
     "Every 4xx/5xx response has a JSON Error body whose code matches the status"},
    {"F14", S, false, false, "Unresolvable paths answer a 4xx Error, not 500"},
    {"S1", M, false, true, "No request reaches outside the root; encoded .. segments answer 403"},
    {"S2", M, false, false, "Symlinks are followed only while they stay inside the root"},
    {"S3", M, false, false, "Absolute-looking paths resolve beneath the root"},
    {"S4", M, false, false,
     "A PUT through a dangling or symlinked parent never writes outside the root"},
    {"S5", M, false, false, "DELETE of a symlink never deletes what it points to outside the root"},
    {"S6", M, false, false, "Listings never reveal anything outside the root"},
    {"S7", S, false, false, "Confinement holds under a concurrent directory/symlink swap race"},
    {"S8", M, false, true, "Odd and malformed paths never escape, crash or wedge the daemon"},
    {"S9", S, false, false,
     "Special files (FIFOs, sockets, devices) never block a request or the daemon"},
    {"M1", M, false, true, "GET /v1/health answers 200 {\"status\":\"ok\"} while ready"},
    {"M2", M, true, false, "During graceful shutdown /v1/health answers 503 UNAVAILABLE"},
    {"M3", M, false, false,
     "GET /v1/metadata serves {\"env\":{...}} with only prefixed names ([launch] exact set)"},
    {"M4", M, false, true,
     "Names with credential markers (TOKEN, SECRET, PASSWORD, CREDENTIAL, KEY) are never served"},
    {"C1", M, false, false, "Write vs read: every successful read returns one complete version"},
    {"C2", M, false, false, "Concurrent writes: the final content is exactly one complete version"},
    {"C3", M, false, true, "Write vs delete: absent or one complete version, no torn state"},
    {"C4", M, false, false, "Delete vs read: a started download completes with the full content"},
    {"C5", M, false, false, "A slow request does not delay other requests"},
    {"L1", M, true, false,
     "SIGTERM: health 503, process groups terminated then killed, streams ended, timely exit"},
    {"L2", S, true, false, "A missing root directory is created at start-up"},
    {"L3", S, true, false, "The metadata prefix is configurable"},
    {"L4", S, true, false,
     "After shutdown begins new Start/Execute calls fail UNAVAILABLE; no process survives"},
    {"T1", M, false, false, "Through the proxy, REST and gRPC reach the same sandbox"},
    {"T2", M, false, false, "Through the proxy, gRPC statuses in trailers arrive intact"},
    {"T3", M, false, false, "Through the proxy, Start output is streamed, not buffered"},
    {"T4", M, false, false, "Through the proxy, large GET and PUT bodies stream without buffering"},
};
const size_t clause_count = sizeof clause_table / sizeof clause_table[0];

const struct clause_group clause_groups[] = {
    {'P', "Process execution (gRPC)"}, {'G', "gRPC protocol behaviour"},
    {'F', "Filesystem (REST)"},        {'S', "Confinement and security"},
    {'M', "Metadata and health"},      {'C', "Concurrency"},
    {'L', "Lifecycle [launch]"},       {'T', "Transport through a proxy (optional profile)"},
};
const size_t clause_group_count = sizeof clause_groups / sizeof clause_groups[0];

const struct clause *clause_find(const char *id)
{
    for (size_t i = 0; i < clause_count; i++)
        if (strcmp(clause_table[i].id, id) == 0) return &clause_table[i];
    return NULL;
}

const char *clause_group_title(char letter)
{
    for (size_t i = 0; i < clause_group_count; i++)
        if (clause_groups[i].letter == letter) return clause_groups[i].title;
    return "Other";
}
