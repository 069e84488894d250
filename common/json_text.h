/*
 * json_text: the one JSON text escaper: a string (a file name, a string read from an audit store)
 * as a JSON value for the one JSON writer (jansson).
 *
 * A store or a file system may hold any bytes (a database root or a command line is whatever the
 * user's file system and shell gave), and json_string refuses invalid UTF-8. ma_json_store_text
 * returns NULL's JSON null, a valid UTF-8 string as is, and otherwise the string with its valid
 * UTF-8 sequences kept and every byte that is not part of one written as the four characters
 * \xNN (lower-case hex), so `verify --json`, run exports, history documents and JSON reports all
 * spell one file name the same way. NULL only when out of memory.
 * ma_json_text is the same for a value that is never null: NULL gives "" (and so does running out
 * of memory, so a caller may build a document without checking every field).
 */
#ifndef MA_REPORTS_JSON_TEXT_H
#define MA_REPORTS_JSON_TEXT_H

#include <jansson.h>

json_t *ma_json_store_text(const char *s);
json_t *ma_json_text(const char *s);

#endif
