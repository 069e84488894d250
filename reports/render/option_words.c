/*
 * A message of the library in the command's words (include/millaudit.h, ma_render_option_words).
 * The engines name the field of their options that is wrong; `millaudit`, and the renderers that
 * print messages as the command does, name the option that set it.
 */
#include <stdio.h>
#include <string.h>

#include "millaudit.h"

/* The library's phrases and the command's words for them: a prefix of the message (the field
 * whose value is wrong) or a phrase inside it (a hint naming a field). */
static const struct {
    int prefix;
    const char *library, *command;
} option_words[] = {
    {1, "sector ", "--sector "},
    {1, "sectors:", "--sector:"},
    {1, "resume:", "--resume:"},
    {1, "only_sectors", "--only-sectors"},
    {1, "variant ", "--variant "},
    {1, "stones ", "--stones "},
    {1, "player ", "--player "},
    {1, "seal_key", "--seal-key"},
    {1, "opening: stones ", "opening: --stones "},
    {0, "this run selects", "this command selects"},
    {0, "(its sectors, or none", "(its --sector names, or none"},
    {0, "(no_digest_check reads them anyway)", "(--no-digest-check reads them anyway)"},
    {0, "holds several variants: name the variant", "holds several variants: give --variant"},
    {0, "choose one (variant)", "choose one with --variant"},
    {0, "choose one (stones)", "choose one with --stones"},
    {0, "nothing merged; allow_partial merges", "nothing merged; --allow-partial merges"},
    {0, "a recorded merge takes its size from", "--audit takes its size from"},
    {0, "(a verify run of one shard recorded into it makes one)", "(verify DIR --shard I/N --audit STORE writes one)"},
};

/* A prefix ending in a space names a field only when a value and a colon follow ("sector
 * '9_9_9': ...", "stones 10: ..."), not in a sentence about a sector ("sector 2_1_0_0 is not a
 * sector of std"). */
static int names_field(const char *msg, const char *lib)
{
    size_t n = strlen(lib);
    if (strncmp(msg, lib, n))
        return 0;
    if (lib[n - 1] != ' ')
        return 1;
    size_t value = strcspn(msg + n, " :");
    return value > 0 && msg[n + value] == ':';
}

const char *ma_render_option_words(const char *msg, char *buf, size_t len)
{
    snprintf(buf, len, "%s", msg);
    for (size_t i = 0; i < sizeof option_words / sizeof option_words[0]; i++) {
        const char *lib = option_words[i].library, *cmd = option_words[i].command;
        char *at = option_words[i].prefix ? (names_field(buf, lib) ? buf : NULL) : strstr(buf, lib);
        if (!at)
            continue;
        char rest[1024];
        snprintf(rest, sizeof rest, "%s", at + strlen(lib));
        snprintf(at, len - (size_t)(at - buf), "%s%s", cmd, rest);
    }
    return buf;
}
