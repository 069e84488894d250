/* A string as JSON text (common/json_text.h): the one JSON text escaper of the project. */
#include "common/json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (1..4), 0 when p does not start one (RFC 3629: no
 * overlong form, no surrogate, nothing beyond U+10FFFF). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0], lead = c >> 4; /* the lead byte's top half: C, D two bytes, E three, F four */
    if (c < 0x80)
        return 1;
    size_t n = lead == 0xF && c <= 0xF4 ? 4 : lead == 0xE ? 3 : (lead == 0xC || lead == 0xD) && c >= 0xC2 ? 2 : 0;
    if (!n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && (((c & 0xF) == 0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)))
        return 0; /* overlong or a surrogate */
    if (n == 4 && (((c & 0xF) == 0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)))
        return 0; /* overlong or beyond U+10FFFF */
    return n;
}

json_t *ma_json_store_text(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *t = malloc(4 * n + 1);
    if (!t)
        return NULL;
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t l = utf8_len(p);
        if (l) {
            memcpy(t + k, p, l);
            k += l;
            p += l;
        } else {
            k += (size_t)snprintf(t + k, 5, "\\x%02x", *p);
            p++;
        }
    }
    t[k] = 0;
    j = json_string(t);
    free(t);
    return j;
}

json_t *ma_json_text(const char *s)
{
    json_t *j = ma_json_store_text(s ? s : "");
    return j ? j : json_string("");
}
