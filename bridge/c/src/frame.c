/* Frame codec: nanopb with the static bounds of xcc.options, plus what nanopb does not check by
 * default: UTF-8 of every string (over the wire bytes, so an embedded NUL that nanopb's char
 * arrays would silently truncate is caught too), duplicate fields, a body being present. */
#include <pb_decode.h>
#include <pb_encode.h>

#include "xcc_internal.h"

/* ---- UTF-8 (RFC 3629: no overlongs, no surrogates, <= U+10FFFF; no NUL, which nanopb's char
 * arrays would silently truncate) ----------------------------------------------------------- */
#define ALL_HIGH_BITS 0x8080808080808080ull
#define ALL_LOW_BITS 0x0101010101010101ull

static int utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (n - i >= 8) { /* names and actions are ASCII: eight bytes per step while they last */
            uint64_t w;
            memcpy(&w, s + i, 8);
            int ascii = (w & ALL_HIGH_BITS) == 0, has_nul = ((w - ALL_LOW_BITS) & ~w & ALL_HIGH_BITS) != 0;
            if (ascii && !has_nul) {
                i += 8;
                continue;
            }
        }
        uint8_t c = s[i];
        if (c < 0x80) {
            if (c == 0)
                return 0;
            i++;
            continue;
        }
        size_t len;
        uint32_t cp, min;
        if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1Fu; min = 0x80; }
        else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0Fu; min = 0x800; }
        else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07u; min = 0x10000; }
        else return 0;
        if (n - i < len)
            return 0;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

/* ---- a schema-driven, front-to-back check of the wire format --------------------------------
 * Reports the first defect with the error classes of bridge/vectors/README.md (OVERSIZE,
 * TRUNCATED, BAD_VARINT, BAD_TAG, WRONG_WIRE_TYPE, DUPLICATE_FIELD, OVER_BOUND, INVALID_UTF8,
 * NO_BODY) as the prefix of the error string. nanopb then decodes what passed. */
enum ftype { F_U64 = 1, F_U32, F_I32, F_STRING, F_BYTES, F_MSG };
typedef struct fdesc { uint32_t number; uint8_t type; int8_t msg; uint16_t bound; const char *name; } fdesc;
enum { M_FRAME, M_INTENT, M_MESSAGE, M_CONTROL, M_STATS, M_SERVICE, M_DEPLOY, M_COUNT };

/* bounds: a string carries max_size - 1 bytes, a bytes field max_size (xcc.options) */
static const fdesc frame_f[] = {{1, F_U64, -1, 0, "Frame.seq"}, {2, F_U64, -1, 0, "Frame.send_time_nanos"},
    {10, F_MSG, M_INTENT, 0, "Frame.intent"}, {11, F_MSG, M_MESSAGE, 0, "Frame.message"},
    {12, F_MSG, M_CONTROL, 0, "Frame.control"}, {13, F_MSG, M_DEPLOY, 0, "Frame.deploy_chunk"}, {0, 0, 0, 0, 0}};
static const fdesc intent_f[] = {{1, F_STRING, -1, 63, "Intent.action"}, {2, F_STRING, -1, 63, "Intent.channel"},
    {3, F_U32, -1, 0, "Intent.sender_priority"}, {4, F_BYTES, -1, 224, "Intent.payload"},
    {5, F_U64, -1, 0, "Intent.correlation_id"}, {6, F_STRING, -1, 47, "Intent.sender"},
    {7, F_U64, -1, 0, "Intent.rt_receive_nanos"}, {8, F_U64, -1, 0, "Intent.rt_reply_nanos"}, {0, 0, 0, 0, 0}};
static const fdesc message_f[] = {{1, F_STRING, -1, 63, "Message.channel"}, {2, F_I32, -1, 0, "Message.what"},
    {3, F_I32, -1, 0, "Message.arg1"}, {4, F_I32, -1, 0, "Message.arg2"},
    {5, F_BYTES, -1, 256, "Message.payload"}, {6, F_U64, -1, 0, "Message.correlation_id"}, {0, 0, 0, 0, 0}};
static const fdesc control_f[] = {{1, F_I32, -1, 0, "Control.kind"}, {2, F_U32, -1, 0, "Control.code"},
    {3, F_STRING, -1, 63, "Control.subject"}, {4, F_STRING, -1, 255, "Control.text"},
    {5, F_MSG, M_STATS, 0, "Control.stats"}, {6, F_MSG, M_SERVICE, 0, "Control.service"}, {0, 0, 0, 0, 0}};
static const fdesc stats_f[] = {{1, F_U64, -1, 0, "Stats.frames_in"}, {2, F_U64, -1, 0, "Stats.frames_out"},
    {3, F_U64, -1, 0, "Stats.dropped_corrupt"}, {4, F_U64, -1, 0, "Stats.dropped_undeliverable"},
    {5, F_U64, -1, 0, "Stats.dropped_full"}, {6, F_U64, -1, 0, "Stats.resyncs"},
    {7, F_U64, -1, 0, "Stats.peer_restarts"}, {0, 0, 0, 0, 0}};
static const fdesc service_f[] = {{1, F_STRING, -1, 63, "ServiceInfo.name"}, {2, F_STRING, -1, 15, "ServiceInfo.state"},
    {3, F_U64, -1, 0, "ServiceInfo.releases"}, {4, F_U64, -1, 0, "ServiceInfo.deadline_misses"},
    {5, F_U64, -1, 0, "ServiceInfo.worst_lateness_nanos"}, {6, F_U32, -1, 0, "ServiceInfo.index"},
    {7, F_U32, -1, 0, "ServiceInfo.count"}, {8, F_U64, -1, 0, "ServiceInfo.worst_response_nanos"},
    {9, F_U64, -1, 0, "ServiceInfo.analysed_wcrt_nanos"}, {10, F_U32, -1, 0, "ServiceInfo.cpu_plus_one"},
    {11, F_U64, -1, 0, "ServiceInfo.worst_execution_nanos"}, {12, F_U64, -1, 0, "ServiceInfo.analysed_cost_nanos"},
    {13, F_U64, -1, 0, "ServiceInfo.cost_overruns"}, {14, F_U64, -1, 0, "ServiceInfo.last_cost_overrun"},
    {0, 0, 0, 0, 0}};
static const fdesc deploy_f[] = {{1, F_STRING, -1, 63, "DeployChunk.bundle"}, {2, F_U32, -1, 0, "DeployChunk.index"},
    {3, F_U32, -1, 0, "DeployChunk.count"}, {4, F_U32, -1, 0, "DeployChunk.total_bytes"},
    {5, F_U32, -1, 0, "DeployChunk.bundle_crc32"}, {6, F_BYTES, -1, 384, "DeployChunk.data"},
    {7, F_I32, -1, 0, "DeployChunk.content"}, {0, 0, 0, 0, 0}};
static const fdesc *const schema[M_COUNT] = {frame_f, intent_f, message_f, control_f, stats_f, service_f, deploy_f};
static const char *const msg_names[M_COUNT] = {"Frame", "Intent", "Message", "Control", "Stats", "ServiceInfo", "DeployChunk"};

/* 1 ok, 0 truncated, -1 bad varint */
static int read_varint(const uint8_t *b, size_t n, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0, k = 0; k < 10; k++, shift += 7) {
        if (*pos >= n)
            return 0;
        uint8_t c = b[(*pos)++];
        if (k == 9 && c > 1)
            return -1; /* more than 64 bits, or an 11th byte would follow */
        v |= (uint64_t)(c & 0x7Fu) << shift;
        if (!(c & 0x80u)) {
            *out = v;
            return 1;
        }
    }
    return -1;
}

static int walk(const uint8_t *b, size_t n, int msg, int depth, int *saw_body, char *err, size_t eb)
{
    size_t pos = 0;
    uint32_t seen = 0; /* known field numbers are < 32; Frame.body members share bit 10 */
    while (pos < n) {
        uint64_t key, v;
        size_t key_at = pos;
        int rc = read_varint(b, n, &pos, &key);
        if (rc <= 0) {
            xcc_errf(err, eb, rc == 0 ? "TRUNCATED: %s: frame ends inside a field key" : "BAD_VARINT: %s: field key varint over 64 bits",
                     msg_names[msg]);
            return 0;
        }
        unsigned wt = (unsigned)(key & 7u);
        uint64_t number = key >> 3;
        /* a key is a varint32: at most 5 bytes, as official protobuf reads it (vector bad_tag_6_bytes) */
        if (pos - key_at > 5 || key > 0xFFFFFFFFu || number == 0 || wt == 3 || wt == 4 || wt == 6 || wt == 7) {
            xcc_errf(err, eb, "BAD_TAG: %s: tag 0x%llx (field %llu, wire type %u, %zu bytes) is not allowed",
                     msg_names[msg], (unsigned long long)key, (unsigned long long)number, wt, pos - key_at);
            return 0;
        }
        const fdesc *f = schema[msg];
        while (f->number && f->number != number)
            f++;
        if (f->number) {
            unsigned want = f->type == F_STRING || f->type == F_BYTES || f->type == F_MSG ? 2u : 0u;
            if (wt != want) {
                xcc_errf(err, eb, "WRONG_WIRE_TYPE: %s has wire type %u, declared %u", f->name, wt, want);
                return 0;
            }
            uint32_t bit = msg == M_FRAME && f->type == F_MSG ? (1u << 10) : (1u << f->number);
            if (seen & bit) {
                xcc_errf(err, eb, "DUPLICATE_FIELD: %s occurs twice%s", f->name,
                         bit == (1u << 10) && msg == M_FRAME ? " (or a second body member)" : "");
                return 0;
            }
            seen |= bit;
        }
        switch (wt) {
        case 0:
            rc = read_varint(b, n, &pos, &v);
            if (rc <= 0) {
                xcc_errf(err, eb, rc == 0 ? "TRUNCATED: %s: frame ends inside a varint (field %llu)"
                                          : "BAD_VARINT: %s: varint over 64 bits (field %llu)",
                         msg_names[msg], (unsigned long long)number);
                return 0;
            }
            if (f->number && f->type == F_U32 && v > 0xFFFFFFFFu) {
                xcc_errf(err, eb, "OVER_BOUND: %s = %llu does not fit uint32", f->name, (unsigned long long)v);
                return 0;
            }
            if (f->number && f->type == F_I32 && v > 0x7FFFFFFFu && v < 0xFFFFFFFF80000000ull) {
                xcc_errf(err, eb, "OVER_BOUND: %s = %llu does not fit int32", f->name, (unsigned long long)v);
                return 0;
            }
            break;
        case 1:
        case 5: {
            size_t w = wt == 1 ? 8 : 4;
            if (n - pos < w) {
                xcc_errf(err, eb, "TRUNCATED: %s: frame ends inside a fixed-width field %llu", msg_names[msg],
                         (unsigned long long)number);
                return 0;
            }
            pos += w;
            break;
        }
        default: /* 2 */
            rc = read_varint(b, n, &pos, &v);
            if (rc < 0) {
                xcc_errf(err, eb, "BAD_VARINT: %s: length varint over 64 bits", msg_names[msg]);
                return 0;
            }
            if (rc == 0 || v > n - pos) {
                xcc_errf(err, eb, "TRUNCATED: %s: field %llu is longer than the bytes left", msg_names[msg],
                         (unsigned long long)number);
                return 0;
            }
            if (f->number && (f->type == F_STRING || f->type == F_BYTES) && v > f->bound) {
                xcc_errf(err, eb, "OVER_BOUND: %s is %llu bytes, bound %u", f->name, (unsigned long long)v, f->bound);
                return 0;
            }
            if (f->number && f->type == F_STRING && !utf8_valid(b + pos, (size_t)v)) {
                xcc_errf(err, eb, "INVALID_UTF8: %s is not strict UTF-8 (or contains NUL, which C strings cannot carry)",
                         f->name);
                return 0;
            }
            if (f->number && f->type == F_MSG) {
                if (msg == M_FRAME)
                    *saw_body = 1;
                if (depth >= 3 || !walk(b + pos, (size_t)v, f->msg, depth + 1, saw_body, err, eb))
                    return 0;
            }
            pos += (size_t)v;
            break;
        }
    }
    return 1;
}

static int strings_ok(const char *s, size_t cap, const char *name, char *err, size_t eb)
{
    size_t len = strnlen(s, cap);
    if (len == cap) {
        xcc_errf(err, eb, "OVER_BOUND: %s is longer than its bound of %zu bytes", name, cap - 1);
        return 0;
    }
    if (!utf8_valid((const uint8_t *)s, len)) {
        xcc_errf(err, eb, "INVALID_UTF8: %s is not valid UTF-8", name);
        return 0;
    }
    return 1;
}
#define STR_OK(field, name) strings_ok((field), sizeof(field), (name), err, eb)

static int check_frame(const xcc_frame *f, char *err, size_t eb)
{
    switch (f->which_body) {
    case rtdroid_xcc_v1_Frame_intent_tag: {
        const rtdroid_xcc_v1_Intent *i = &f->body.intent;
        if (!STR_OK(i->action, "Intent.action") || !STR_OK(i->channel, "Intent.channel") ||
            !STR_OK(i->sender, "Intent.sender"))
            return 0;
        if (i->payload.size > sizeof i->payload.bytes) {
            xcc_errf(err, eb, "Intent.payload is longer than its bound");
            return 0;
        }
        return 1;
    }
    case rtdroid_xcc_v1_Frame_message_tag:
        if (f->body.message.payload.size > sizeof f->body.message.payload.bytes) {
            xcc_errf(err, eb, "Message.payload is longer than its bound");
            return 0;
        }
        return STR_OK(f->body.message.channel, "Message.channel");
    case rtdroid_xcc_v1_Frame_control_tag: {
        const rtdroid_xcc_v1_Control *c = &f->body.control;
        if (!STR_OK(c->subject, "Control.subject") || !STR_OK(c->text, "Control.text"))
            return 0;
        if (c->has_service && (!STR_OK(c->service.name, "ServiceInfo.name") ||
                               !STR_OK(c->service.state, "ServiceInfo.state")))
            return 0;
        return 1;
    }
    case rtdroid_xcc_v1_Frame_deploy_chunk_tag:
        if (f->body.deploy_chunk.data.size > sizeof f->body.deploy_chunk.data.bytes) {
            xcc_errf(err, eb, "DeployChunk.data is longer than its bound");
            return 0;
        }
        return STR_OK(f->body.deploy_chunk.bundle, "DeployChunk.bundle");
    default:
        xcc_errf(err, eb, "NO_BODY: frame has no body (no or unknown kind: which_body = %u)", (unsigned)f->which_body);
        return 0;
    }
}

int xcc_frame_encode(const xcc_frame *f, uint8_t *buf, size_t cap, size_t *out_len, char *err, size_t eb)
{
    if (!check_frame(f, err, eb))
        return XCC_EFRAME;
    size_t size = 0;
    if (!pb_get_encoded_size(&size, rtdroid_xcc_v1_Frame_fields, f)) {
        xcc_errf(err, eb, "frame cannot be encoded");
        return XCC_EFRAME;
    }
    if (cap > XCC_FRAME_CAP_BYTES)
        cap = XCC_FRAME_CAP_BYTES;
    if (size > cap) {
        xcc_errf(err, eb, "OVERSIZE: frame encodes to %zu bytes, more than the %zu available", size, cap);
        return XCC_EFRAME;
    }
    pb_ostream_t os = pb_ostream_from_buffer(buf, cap);
    if (!pb_encode(&os, rtdroid_xcc_v1_Frame_fields, f)) {
        xcc_errf(err, eb, "frame encoding failed: %s", PB_GET_ERROR(&os));
        return XCC_EFRAME;
    }
    *out_len = os.bytes_written;
    return XCC_OK;
}

int xcc_frame_decode(const uint8_t *buf, size_t n, xcc_frame *f, char *err, size_t eb)
{
    if (n > XCC_FRAME_CAP_BYTES) {
        xcc_errf(err, eb, "OVERSIZE: frame of %zu bytes is over the %u-byte cap", n, XCC_FRAME_CAP_BYTES);
        return XCC_EFRAME;
    }
    int saw_body = 0;
    if (!walk(buf, n, M_FRAME, 0, &saw_body, err, eb))
        return XCC_EFRAME;
    if (!saw_body) {
        xcc_errf(err, eb, "NO_BODY: frame sets no body member (no or unknown frame kind)");
        return XCC_EFRAME;
    }
    pb_istream_t is = pb_istream_from_buffer(buf, n);
    if (!pb_decode(&is, rtdroid_xcc_v1_Frame_fields, f)) {
        xcc_errf(err, eb, "OVER_BOUND: nanopb refused the frame: %s", PB_GET_ERROR(&is));
        return XCC_EFRAME;
    }
    /* no second pass over the decoded strings: the walk checked the very bytes nanopb copied */
    return XCC_OK;
}
