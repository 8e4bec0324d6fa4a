/* Helpers shared by the core's own files, not part of its interface. */
#ifndef CULPRIT_CORE_INTERNAL_H
#define CULPRIT_CORE_INTERNAL_H

#include <stddef.h>

/* Writes all `len` bytes to `fd`, retrying short writes and EINTR: 0, or -1 with
 * errno set. */
int culprit_fs__write_all(int fd, const void *data, size_t len);

#endif
