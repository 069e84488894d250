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
    return ma_json_store_text(s ? s : "");
}

char *ma_json_dumps(const json_t *json, size_t flags)
{
    size_t n = json ? json_dumpb(json, NULL, 0, flags) : 0;
    char *text = n ? malloc(n + 1) : NULL;
    if (!text)
        return NULL;
    if (json_dumpb(json, text, n, flags) != n) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    return text;
}

void ma_json_put(json_t *o, const char *key, json_t *v, int *bad)
{
    if (!v || !o || json_object_set_new(o, key, v)) {
        if (v && !o)
            json_decref(v);
        *bad = 1;
    }
}

void ma_json_push(json_t *a, json_t *v, int *bad)
{
    if (!v || !a || json_array_append_new(a, v)) {
        if (v && !a)
            json_decref(v);
        *bad = 1;
    }
}

json_t *ma_json_load_own(const char *text, size_t flags)
{
    for (int attempt = 0; text && attempt < 2; attempt++) {
        json_t *v = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        char *back = v ? ma_json_dumps(v, flags) : NULL;
        int same = back && !strcmp(back, text);
        free(back);
        if (same)
            return v;
        json_decref(v);
    }
    return NULL;
}

json_t *ma_json_load_checked(const char *text, size_t len, json_error_t *jerr, int *oom)
{
    json_error_t again;
    *oom = 0;
    json_t *a = json_loadb(text, len, JSON_REJECT_DUPLICATES, jerr);
    json_t *b = json_loadb(text, len, JSON_REJECT_DUPLICATES, &again);
    if (!a && !b && jerr->text[0] && json_error_code(jerr) != json_error_out_of_memory)
        return NULL;
    if (a && b && json_equal(a, b)) {
        json_decref(b);
        return a;
    }
    json_decref(a);
    json_decref(b);
    *oom = 1;
    return NULL;
}
