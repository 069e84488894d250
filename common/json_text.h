/*
 * json_text: a string read from an audit store as a JSON value for the one JSON writer (jansson).
 *
 * A store may hold any bytes (a database root or a command line is whatever the user's file system
 * and shell gave), and json_string refuses invalid UTF-8. ma_json_store_text returns NULL's JSON
 * null, a valid UTF-8 string as is, and otherwise the string with every byte >= 0x80 written as the
 * four characters \xNN (upper-case hex), so run exports, history documents and JSON reports all
 * spell an odd byte the same way. NULL only when out of memory.
 */
#ifndef MA_REPORTS_JSON_TEXT_H
#define MA_REPORTS_JSON_TEXT_H

#include <jansson.h>

json_t *ma_json_store_text(const char *s);

#endif
