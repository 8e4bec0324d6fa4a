#ifndef PARSER_H
#define PARSER_H
#include <stddef.h>
struct config {
    size_t sections, entries, bytes;
};
/* Parses an INI-style text: [section] lines and key = "value" entries. */
int parse_config(struct config *c, const char *text);
#endif
