/*
 * json_text: the one JSON text escaper: a string (a file name, a string read from an audit store)
 * as a JSON value for the one JSON writer (jansson), and the one way to turn a document into text.
 *
 * A store or a file system may hold any bytes (a database root or a command line is whatever the
 * user's file system and shell gave), and json_string refuses invalid UTF-8. ma_json_store_text
 * returns NULL's JSON null, a valid UTF-8 string as is, and otherwise the string with its valid
 * UTF-8 sequences kept and every byte that is not part of one written as the four characters
 * \xNN (lower-case hex), so `verify --json`, run exports, history documents and JSON reports all
 * spell one file name the same way. NULL only when out of memory.
 * ma_json_text is the same for a value that is never null: NULL gives "" (out of memory: NULL, as
 * from every constructor; ma_json_put notes it).
 */
#ifndef MA_REPORTS_JSON_TEXT_H
#define MA_REPORTS_JSON_TEXT_H

#include <jansson.h>

json_t *ma_json_store_text(const char *s);
json_t *ma_json_text(const char *s);

/* json as text with jansson's flags, in memory the caller frees; NULL when out of memory or
 * when jansson cannot encode it. The project's one way from a document to its text: jansson's
 * json_dumps grows its buffer while it writes and, when that growth fails, can return a text
 * with bytes missing as if it had succeeded (2.14; tests/integration/test_alloc_failure.py),
 * which would put a half-written claim into a signed statement or an export. This measures the
 * text first and writes it into one allocation of its own size. */
char *ma_json_dumps(const json_t *json, size_t flags);

/* The value of text, a document this project wrote with ma_json_dumps(..., flags), only when it
 * reads back to exactly that text; NULL otherwise. jansson 2.14 can return a value with a string
 * cut short (a key "full_board_dra") when an allocation fails while it parses, and reports other
 * such failures as an unknown or a syntax error: a value that does not give its text back is
 * never used, and one failed read is tried once more, so a transient failure is not taken for
 * text that is no JSON. */
json_t *ma_json_load_own(const char *text, size_t flags);

/* A document read from a file (JSON_REJECT_DUPLICATES), read twice: jansson 2.14 can return a value
 * with a string cut short, or report a syntax error, when an allocation fails while it parses, so
 * a file must not be judged by one reading. Both readings fail: NULL with *jerr the first one's
 * error (the text is no JSON). They disagree (one fails, or the values differ): NULL with *oom set
 * (out of memory, not the file's fault). Otherwise the value. */
json_t *ma_json_load_checked(const char *text, size_t len, json_error_t *jerr, int *oom);

/* o[key] = v and a[] += v, taking v's reference as jansson's *_new calls do; a NULL v (a
 * constructor out of memory), a NULL o or a set that fails sets *bad, so a writer that builds a
 * document of many members checks once, at the end, that none is missing. */
void ma_json_put(json_t *o, const char *key, json_t *v, int *bad);
void ma_json_push(json_t *a, json_t *v, int *bad);

#endif
