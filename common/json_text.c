/* A store's string as JSON (common/json_text.h). */
#include "common/json_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80)
            t[k++] = (char)c;
        else
            k += (size_t)snprintf(t + k, 5, "\\x%02X", c);
    }
    t[k] = 0;
    j = json_string(t);
    free(t);
    return j;
}
