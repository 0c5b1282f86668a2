/* libFuzzer target: the frame decoder on hostile bytes. A frame that decodes must re-encode,
 * and the re-encoding must decode to the same bytes again (canonical form is a fixed point). */
#include <stdlib.h>
#include <string.h>

#include "xcc.h"

static xcc_frame f1, f2;
static uint8_t e1[XCC_FRAME_ENCODE_BUFFER_BYTES], e2[XCC_FRAME_ENCODE_BUFFER_BYTES];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[XCC_ERR_BYTES];
    if (xcc_frame_decode(data, size, &f1, err, sizeof err) != XCC_OK)
        return 0;
    size_t n1 = 0, n2 = 0;
    if (xcc_frame_encode(&f1, e1, sizeof e1, &n1, err, sizeof err) != XCC_OK)
        abort(); /* anything that decodes within the cap re-encodes (canonical is never longer) */
    if (xcc_frame_decode(e1, n1, &f2, err, sizeof err) != XCC_OK)
        abort();
    if (xcc_frame_encode(&f2, e2, sizeof e2, &n2, err, sizeof err) != XCC_OK || n1 != n2 ||
        memcmp(e1, e2, n1) != 0)
        abort();
    return 0;
}
