/* SPDX-License-Identifier: Apache-2.0 */
/* The response faults and variants of the fault build (rest_responses.h).
 * Each acts while its fault is on and otherwise calls rest_real. */
#include "rest_responses.h"

#include <string.h>

#include "fault.h"
#include "fs/resolve.h"
#include "rest/http_response.h"

const char *fault_error_code(unsigned status)
{
    if (fault_active(FAULT_ERROR_WRONG_CODE)) return "INTERNAL";
    /* variant-405-code: the contract fixes no code for 405. */
    if (status == 405 && fault_active(FAULT_VARIANT_405_CODE)) return "UNSUPPORTED_METHOD";
    return rest_real.error_code(status);
}

/* variant-json-charset: a media type parameter is legal on every JSON body. */
const char *fault_json_media_type(void)
{
    return fault_active(FAULT_VARIANT_JSON_CHARSET) ? "application/json; charset=utf-8"
                                                    : rest_real.json_media_type();
}

/* variant-extra-fields: fields the contract does not name are legal. */
void fault_complete_json(json_t *body)
{
    if (json_is_object(body) && fault_active(FAULT_VARIANT_EXTRA_FIELDS))
        json_object_set_new(body, "x_runtime", json_string("variant"));
    rest_real.complete_json(body);
}

/* error-plain: the message as text/plain instead of an Error body. */
struct MHD_Response *fault_error_response(unsigned status, const char *message)
{
    if (!fault_active(FAULT_ERROR_PLAIN)) return rest_real.error_response(status, message);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(message), (void *)message, MHD_RESPMEM_MUST_COPY);
    if (r) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
    return r;
}

/* unresolvable-500: a path that cannot be resolved is a server error. */
enum MHD_Result fault_reply_fs_error(struct MHD_Connection *c, int code, bool for_write)
{
    if (fault_active(FAULT_UNRESOLVABLE_500) && (code == FS_NOTDIR || code == FS_LOOP))
        return rest_reply_error(c, 500, "cannot resolve the path");
    return rest_real.reply_fs_error(c, code, for_write);
}
