/*
 * culprit core: error codes, the thread-local last error, growable buffers and
 * the few file-system helpers every module shares (atomic writes, mkdir -p).
 *
 * Conventions (libgit2's): functions return 0 or a negative culprit_error_code;
 * the human-readable reason of the last failure on this thread is returned by
 * culprit_error_last().
 */
#ifndef CULPRIT_CORE_H
#define CULPRIT_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Return codes. 0 is success; every failure is negative. */
typedef enum {
    CULPRIT_OK = 0,
    CULPRIT_ERROR = -1,      /**< generic failure; see culprit_error_last() */
    CULPRIT_ENOTFOUND = -3,  /**< a named thing (file, commit, test) does not exist */
    CULPRIT_EINVALID = -4,   /**< bad input: malformed file, bad option value */
    CULPRIT_EUNDECIDED = -5, /**< the samples cannot tell (too few or too noisy) */
    CULPRIT_ESKIP = -6,      /**< the item was skipped (unbuildable, failed test) */
    CULPRIT_EIO = -7,        /**< an operating-system call failed (see errno text) */
    CULPRIT_EEXISTS = -8     /**< refusing to overwrite something that exists */
} culprit_error_code;

/**
 * The message of the last error set on this thread, or "" when none.
 * The string is owned by the library and valid until the next error on this thread.
 * Thread-safe (thread-local storage).
 */
const char *culprit_error_last(void);

/** The code of the last error set on this thread (0 when none). */
int culprit_error_last_code(void);

/** Changes the code of this thread's last error, keeping its message; returns `code`. */
int culprit_error_recode(int code);

/** Clears this thread's last error. */
void culprit_error_clear(void);

/**
 * Sets this thread's last error and returns `code`, so callers can write
 * `return culprit_error_set(CULPRIT_EINVALID, "bad value '%s'", v);`.
 */
int culprit_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * The one spelling of an allocation failure: sets "out of memory" (CULPRIT_ERROR) as
 * this thread's last error and evaluates to CULPRIT_ERROR, for `return
 * CULPRIT_ERROR_NOMEM();` and `error = CULPRIT_ERROR_NOMEM(); goto cleanup;`.
 */
#define CULPRIT_ERROR_NOMEM() culprit_error_set(CULPRIT_ERROR, "out of memory")

/**
 * Returns CULPRIT_ERROR_NOMEM() from the calling function when `ptr` is NULL
 * (libgit2's GIT_ERROR_CHECK_ALLOC): `p = malloc(n); CULPRIT_ERROR_CHECK_ALLOC(p);`.
 */
#define CULPRIT_ERROR_CHECK_ALLOC(ptr)                                                             \
    do {                                                                                           \
        if (!(ptr))                                                                                \
            return CULPRIT_ERROR_NOMEM();                                                          \
    } while (0)

/** Same as culprit_error_set() with a va_list. */
int culprit_error_setv(int code, const char *fmt, va_list ap);

/** Sets an EIO error whose message ends with ": strerror(errno)". */
int culprit_error_set_os(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** The longest message the last error keeps (with its NUL); longer ones are cut. */
#define CULPRIT_ERROR_MESSAGE_MAX 1024

/**
 * Puts printf-formatted context in front of this thread's last error message,
 * exactly as given (write the separator yourself: "reading '%s': "), keeping its
 * code. Returns that code, so a caller can write
 * `return culprit_error_prefix("cannot open '%s': ", path);`. Thread-safe.
 */
int culprit_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** This thread's last error, kept aside (see culprit_error_save()). */
typedef struct {
    int code;
    char message[CULPRIT_ERROR_MESSAGE_MAX];
} culprit_error_state;

/**
 * Copies this thread's last error (code and message) into `state`, so cleanup that
 * may set errors of its own can run before culprit_error_restore() puts it back.
 */
void culprit_error_save(culprit_error_state *state);

/** Makes `state` this thread's last error again; returns its code. */
int culprit_error_restore(const culprit_error_state *state);

/** A growable, always NUL-terminated byte buffer. Zero-initialize or use CULPRIT_BUF_INIT. */
typedef struct {
    char *ptr;    /**< the bytes, NUL-terminated; NULL until the first append */
    size_t size;  /**< bytes in use, not counting the terminating NUL */
    size_t asize; /**< bytes allocated */
} culprit_buf;

#define CULPRIT_BUF_INIT                                                                           \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/** Ensures room for `extra` more bytes plus the NUL. Returns 0 or CULPRIT_ERROR. */
int culprit_buf_grow(culprit_buf *buf, size_t extra);
/** Appends `len` bytes. */
int culprit_buf_put(culprit_buf *buf, const char *data, size_t len);
/** Appends a C string. */
int culprit_buf_puts(culprit_buf *buf, const char *str);
/** Appends printf-formatted text. */
int culprit_buf_printf(culprit_buf *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/**
 * Appends `x` with `decimals` digits after the point (0 to 6), exactly as printf's
 * "%.*f" writes it ("%+.*f" with `plus`), without printf's cost where the digits are
 * plain (printf writes the rest: exact ties, large or non-finite values, a locale
 * whose decimal point is not '.').
 */
int culprit_buf_put_fixed(culprit_buf *buf, double x, int decimals, int plus);
/**
 * Appends a duration given in ns in the largest unit that keeps it readable:
 * "812.3 ns", "312.4 us", "1.32 ms", "2.041 s", "-185.2 us"; "-" when not finite.
 */
int culprit_buf_put_duration(culprit_buf *buf, double ns);
/**
 * Appends a name that came from data (a test or function name from a file, another
 * machine, a pull request) for a terminal or a plain-text log: control characters
 * (C0, DEL and C1; ESC, CR and line breaks among them) and each byte that is not
 * part of valid UTF-8 are written as "\xNN", so that a name can neither move the
 * cursor, recolour the terminal nor fake an output line. Other characters are kept.
 * The escaping of text output everywhere (docs/history-format.md, "Names").
 */
int culprit_buf_put_text(culprit_buf *buf, const char *name);
/**
 * Appends `s` as a glob (fnmatch(3), no flags) that matches `s` alone: '*', '?',
 * '[', ']' and '\\' are escaped with a backslash. What a test binary's --filter and
 * $CULPRIT_FILTER are given to run one recorded test.
 */
int culprit_buf_put_glob_literal(culprit_buf *buf, const char *s);
/** culprit_buf_put_utf8() and culprit_text_utf8() for XML: also escape the
 *  characters XML 1.0 cannot carry (C0 but tab, line feed and CR; U+FFFE, U+FFFF). */
#define CULPRIT_TEXT_XML 1u
/**
 * Appends `s` as valid UTF-8, for the formats that carry nothing else (JSON, and
 * XML with CULPRIT_TEXT_XML): each byte that is not part of a valid UTF-8 character
 * is written as "\xNN", as culprit_buf_put_text() writes it, so a name that is not
 * UTF-8 is recorded, not refused, and two such names stay distinct.
 */
int culprit_buf_put_utf8(culprit_buf *buf, const char *s, unsigned int flags);
/**
 * `s` itself when culprit_buf_put_utf8() would keep it as it is, else its escaped
 * form in `scratch` (valid until the next use of `scratch`); NULL when out of memory.
 */
const char *culprit_text_utf8(const char *s, culprit_buf *scratch, unsigned int flags);
/** The length of the valid UTF-8 character at `s` (1 to 4), or 0 at the NUL or when the
 *  bytes there are not one (overlong forms and surrogates are not). */
size_t culprit_utf8_char_len(const char *s);
/** Empties the buffer, keeping its allocation. */
void culprit_buf_clear(culprit_buf *buf);
/** Frees the buffer's memory; the buffer is left empty and reusable. NULL is a no-op. */
void culprit_buf_dispose(culprit_buf *buf);
/** Returns the contents as a C string ("" when empty); borrowed from the buffer. */
const char *culprit_buf_cstr(const culprit_buf *buf);
/** Takes ownership of the bytes (caller frees with free()); the buffer is left empty. */
char *culprit_buf_detach(culprit_buf *buf);

/**
 * Makes room for item number `n` (0-based) in a growable array: `items` is the
 * address of the array's typed pointer (e.g. `&run->tests`), `*alloc` its allocated
 * count, `size` the size of one item; the array doubles, starting at `first` items
 * (0: 16), until it fits. On failure nothing changes. Returns 0 or CULPRIT_ERROR
 * (out of memory, message set).
 */
int culprit_array_grow(void *items, size_t *alloc, size_t n, size_t size, size_t first);

/**
 * A map from strings to indices (a hash table): what a "find by name" uses instead
 * of scanning a list, so that reading N names costs O(N), not O(N^2). Keys are
 * borrowed, neither copied nor freed: they must outlive the map unchanged.
 * Zero-initialize (CULPRIT_STRMAP_INIT); not thread-safe for writes.
 */
typedef struct {
    void *slots;   /**< private */
    size_t nslots; /**< private */
    size_t n;      /**< keys held */
} culprit_strmap;

#define CULPRIT_STRMAP_INIT                                                                        \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

/** Makes room for `n` keys without growing again. 0 or CULPRIT_ERROR (out of memory). */
int culprit_strmap_reserve(culprit_strmap *map, size_t n);
/**
 * Adds `key` -> `value` unless `key` is there: then nothing changes, its value goes
 * to `*existing` (when not NULL) and 1 is returned. 0 when added; CULPRIT_ERROR (out
 * of memory).
 */
int culprit_strmap_put(culprit_strmap *map, const char *key, size_t value, size_t *existing);
/** Adds `key` -> `value`, or replaces the value (and the key pointer) of `key`. 0 or
 * CULPRIT_ERROR (out of memory). */
int culprit_strmap_set(culprit_strmap *map, const char *key, size_t value);
/** 1 and the value in `*value` (when not NULL) when `key` is there, else 0. */
int culprit_strmap_get(const culprit_strmap *map, const char *key, size_t *value);
/** Frees the table (not the keys); the map is left empty and reusable. NULL: no-op. */
void culprit_strmap_dispose(culprit_strmap *map);

/**
 * Takes an exclusive lock for a read-modify-write of `path`: flock() on the file
 * `path`.lock (created when missing and never removed, so that two processes can
 * never lock two different files of that name). Waits up to `timeout_s` seconds,
 * then fails with CULPRIT_ERROR naming the lock file. Sets *fd to pass to
 * culprit_fs_unlock(). The lock goes with the process: a killed holder frees it.
 */
int culprit_fs_lock(int *fd, const char *path, double timeout_s);
/** Releases a lock of culprit_fs_lock(); fd < 0 is a no-op. */
void culprit_fs_unlock(int fd);

/**
 * This process's temporary directory, where every temporary entry culprit makes
 * goes: $TMPDIR/culprit-<host>-<pid>.<start>-XXXXXX (mode 0700; <start>: the
 * process's start time, field 22 of /proc/<pid>/stat). Made on the first call,
 * after the stale ones of ended processes are removed (culprit_fs_temp_sweep());
 * removed with everything in it at exit (atexit), or from a signal handler with
 * culprit_fs_temp_dir_remove_signal_safe(). The children of culprit_process_run()
 * get it as their $TMPDIR. A fork gets its own on its first call. Sets *out to its
 * path (owned here, valid until the process removes it). Thread-safe.
 */
int culprit_fs_temp_dir(const char **out);
/**
 * Removes this process's temporary directory (culprit_fs_temp_dir()), if it made
 * one, from a signal handler (culprit_fs_remove_trees_signal_safe()). A fork never
 * removes its parent's. Returns 0, or -1 when rm failed. Async-signal-safe.
 */
int culprit_fs_temp_dir_remove_signal_safe(void);
/**
 * Removes the temporary directories in `parent` (NULL: culprit_fs_tmpdir()) of the
 * processes of this host and user that have ended (culprit_fs_remove_stale() with
 * the marker "culprit-"), and the culprit-checkout-, culprit-bisect-run-,
 * culprit-result-, culprit-record- and culprit-count- entries older versions made
 * there. Never a live process's. Returns how many were removed.
 */
size_t culprit_fs_temp_sweep(const char *parent);

/**
 * Creates a temporary file (or, with `directory`, a directory) and writes its path
 * to `out`. With `dir` NULL, as it is for every temporary entry of culprit's own, in
 * this process's temporary directory (culprit_fs_temp_dir()), named <kind>-XXXXXX.
 * In another `dir` (a checkout parent the user chose) it is named
 * culprit-<kind>-<host>-<pid>.<start>-XXXXXX, and the ones of the same kind there
 * whose process has ended are removed first (culprit_fs_remove_stale()).
 */
int culprit_fs_make_temp(culprit_buf *out, const char *dir, const char *kind, int directory);
/**
 * Removes the entries of `dir`, of this user, whose name holds `marker` followed by
 * <host>-<pid>.<start>-XXXXXX (or <host>-<pid>-XXXXXX, from older versions), where
 * host is this machine's and the process is gone: no process `pid` exists, or the
 * one that does started at another time than <start> (its pid was reused). Best
 * effort (an entry that cannot be removed is left); returns how many were removed.
 */
size_t culprit_fs_remove_stale(const char *dir, const char *marker);
/** Appends "<host>-<pid>.<start>-" (the host name with characters other than
 * letters, digits, '.' and '-' as '_'; <start> the process's start time in clock
 * ticks since boot, 0 when /proc cannot tell): the owner part of the names above. */
int culprit_fs_owner_tag(culprit_buf *out);

/** Creates a directory and its missing parents (mode 0777 & ~umask). */
int culprit_fs_mkdir_p(const char *path);

/** culprit_fs_write_atomic's flags. NO_REPLACE: an existing file is never replaced
 * (history files are never rewritten); NO_SYNC: no fsync before the rename, for a
 * scratch file another process reads at once and then deletes (a test's result handed
 * from its measuring process to the runner): durability buys nothing there, and on a
 * busy disk an fsync costs a tenth of a second or more. */
#define CULPRIT_FS_NO_REPLACE 1
#define CULPRIT_FS_NO_SYNC    2

/**
 * Writes `len` bytes to `path` atomically: a temporary file in the same directory,
 * fsync (unless CULPRIT_FS_NO_SYNC), then rename. With CULPRIT_FS_NO_REPLACE in
 * `flags` (1 is that flag), fails with CULPRIT_EEXISTS instead of replacing an
 * existing file. The temporary file is removed on every failure path. Without
 * NO_REPLACE, a named output is never replaced by another kind of file: a symbolic
 * link is followed (its target is replaced, the link kept), a character device or a
 * FIFO is written through (/dev/stdout, /dev/null; an error for a FIFO without a
 * reader or a full device), a directory, socket or block device refused with an
 * error naming it.
 */
int culprit_fs_write_atomic(const char *path, const void *data, size_t len, int flags);

/** Where temporary files go: $TMPDIR when set and not empty, else "/tmp". */
const char *culprit_fs_tmpdir(void);

/** Reads a whole file into `out` (appended). CULPRIT_ENOTFOUND when it does not exist. */
int culprit_fs_read_file(culprit_buf *out, const char *path);

/** The room culprit_fs_name() keeps at the end of a name cut to length: "~" and 16 hex digits. */
#define CULPRIT_FS_NAME_HASH 17
/** The longest file name culprit derives from a name (its callers add a few bytes). */
#define CULPRIT_FS_NAME_MAX 128
/**
 * Appends a file name made from `name` (a test, suite or category name: data): one
 * path component, never hidden, never "." or "..", portable. ASCII letters, digits,
 * '_', '-' and '.' (not first) are kept; every other byte is written as "%XX", so
 * the escaping is reversible and two names never meet. When that is longer than
 * `max` bytes (0: no limit) or empty, it is cut (never inside a %XX) and ends with
 * "~" and 16 hex digits of a hash of the whole name, so names cut alike stay
 * distinct. The one function for every file name derived from data: callers keep
 * the real name inside the file as well (docs/history-format.md, "Names").
 */
int culprit_fs_name(culprit_buf *out, const char *name, size_t max);

/** Joins two path components with exactly one '/'. Returns a malloc'd string or NULL. */
char *culprit_fs_join(const char *dir, const char *name);

/**
 * Removes `path` and everything under it, as `rm -rf` does: symbolic links are
 * removed, never followed; directories without write or search permission for
 * us (read-only build outputs) are opened up first. A path that does not exist
 * is not an error. Returns 0, CULPRIT_EINVALID for an empty path, or CULPRIT_EIO
 * naming the entry that could not be removed and why. Not for signal handlers
 * (it allocates): see culprit_fs_remove_trees_signal_safe().
 */
int culprit_fs_remove_tree(const char *path);

/**
 * Copies the directory `src` and everything under it to `dst` (created when it does
 * not exist), as `cp -a` does for a build directory: regular files, directories and
 * symbolic links (not followed) with their modes and their access and modification
 * times (nanoseconds), so that make or ninja in the copy find the same outputs up
 * to date; other file types are left out. Returns 0, CULPRIT_EINVALID when `src` is
 * not a directory, or CULPRIT_EIO naming the entry that could not be copied (the
 * part of `dst` already written stays: the caller removes it).
 */
int culprit_fs_copy_tree(const char *src, const char *dst);

/**
 * Removes the `n` trees in `paths` from a signal handler: runs `/bin/rm -rf --` on
 * them through fork, execve and waitpid, the async-signal-safe calls (a walk of our
 * own would need opendir/readdir, which allocate). errno is preserved. Returns 0,
 * or -1 when rm could not run or failed (no message: a handler cannot format one).
 * `n` is at most CULPRIT_FS_SIGNAL_SAFE_MAX.
 */
int culprit_fs_remove_trees_signal_safe(char *const *paths, int n);

/** The most trees culprit_fs_remove_trees_signal_safe() removes in one call. */
#define CULPRIT_FS_SIGNAL_SAFE_MAX 64

/** strdup that sets the last error on failure. */
char *culprit_strdup(const char *s);

/**
 * Replaces the string `*dst` with a copy of `src` (NULL: none), freeing the old one.
 * On out of memory `*dst` is left as it was and CULPRIT_ERROR is returned (message
 * set). `src` may point into `*dst`.
 */
int culprit_str_set(char **dst, const char *src);

/** Whether two strings are equal; NULL equals NULL and no string. */
int culprit_str_equal(const char *a, const char *b);

/** FNV-1a's 64-bit offset basis: the `h` to start culprit_str_hash() from. */
#define CULPRIT_STR_HASH_INIT 14695981039346656037ULL

/**
 * FNV-1a, 64 bits (Fowler, Noll, Vo), of `n` bytes of `data`, continuing from `h`
 * (CULPRIT_STR_HASH_INIT to start; the previous result to hash several fields as one).
 * For names and keys with no adversary: a chosen collision is easy, so a caller must
 * keep the real key and compare it. The one copy of the hash: names cut to length
 * on disk, the string map, the call trees' function tables and the fan-out's record
 * keys all use it, and the values it gives never change (files and records keep them).
 */
uint64_t culprit_str_hash(uint64_t h, const void *data, size_t n);

/** The part of `path` after its last '/' (all of it when it has none); borrowed from `path`. */
const char *culprit_fs_base_name(const char *path);

/**
 * Seconds on CLOCK_MONOTONIC, for timeouts, deadlines and the elapsed time shown to a
 * user; not for measurements (measure's clocks). Thread-safe.
 */
double culprit_time_now_s(void);

/**
 * The version check of a function that takes an options struct: 0 when `version` is
 * `expected`, else CULPRIT_EINVALID with "<what> options version V is not E".
 */
int culprit_options_check_version(unsigned int version, unsigned int expected, const char *what);

/**
 * The body of every culprit_<x>_options_init() (libgit2's
 * GIT_INIT_STRUCTURE_FROM_TEMPLATE): checks `version` as
 * culprit_options_check_version() does, then copies the `size` bytes of `defaults`
 * (the CULPRIT_<X>_OPTIONS_INIT value) into `opts`. NULL `opts` is CULPRIT_EINVALID.
 */
int culprit_options_init_from(void *opts, const void *defaults, size_t size, unsigned int version,
                              unsigned int expected, const char *what);

/**
 * Optimal-string-alignment distance between `a` and `b`: insertions, deletions,
 * substitutions and swaps of neighbouring characters count one each; ASCII case is
 * ignored. SIZE_MAX when out of memory. Thread-safe.
 */
size_t culprit_edit_distance(const char *a, const char *b);

/**
 * The largest edit distance still suggested for a word of `len` characters: 1 up to
 * 4 characters, 2 up to 8, 3 beyond (one typo in a short name, more in longer ones).
 */
size_t culprit_suggest_max_distance(size_t len);

/**
 * Near matches of `word` among `words` for "did you mean" messages: within a small
 * edit distance (at most 1 for words up to 4 characters, 2 up to 8, 3 beyond) or
 * starting with `word`; `word` itself and repeated words are left out. Closest
 * first, ties in byte order; at most `max` (0 = no limit).
 * `*out` is a NULL-terminated array of `*n_out` pointers borrowed from `words`;
 * the caller frees the array (not the strings) with free(). Thread-safe.
 */
int culprit_suggest(const char ***out, size_t *n_out, const char *word, const char *const *words,
                    size_t nwords, size_t max);

/**
 * Appends "; did you mean 'a', 'b' or 'c'?" for `n` names to `out`; nothing when
 * n == 0.
 */
int culprit_suggest_format(culprit_buf *out, const char *const *names, size_t n);

/* ------------------------------------------------------------ parallel work --- */

/**
 * How many threads culprit_parallel_for() runs at most, the calling one included:
 * the environment variable CULPRIT_THREADS (1 to 64; 1: no other thread), else the
 * CPUs this process may run on, at most 4. CULPRIT_EINVALID naming the variable
 * when it is not such a number. Thread-safe.
 */
int culprit_parallel_threads(size_t *out);

/**
 * Calls fn(i, arg) once for every i in [0, n), on the calling thread and up to
 * culprit_parallel_threads() - 1 others at once, and returns when every call has
 * returned (their effects are then visible to the caller). The order of the calls
 * is not defined: `fn` must be safe to run for different indices on several threads
 * at once, and it keeps whatever it must report (a result, an error it saved with
 * culprit_error_save()) in a slot of its index for the caller to read in order
 * afterwards. The other threads block every signal. A thread that cannot be started
 * leaves its share to the others. Returns 0, or CULPRIT_EINVALID for a bad
 * CULPRIT_THREADS (then nothing was called).
 */
int culprit_parallel_for(size_t n, void (*fn)(size_t i, void *arg), void *arg);

/* ------------------------------------------------------------- processes --- */

/** Where a child's output goes. */
typedef enum {
    CULPRIT_PROCESS_INHERIT = 0, /**< its stdout and stderr are ours */
    CULPRIT_PROCESS_TO_STDERR,   /**< its stdout goes to our stderr (our stdout stays clean) */
    CULPRIT_PROCESS_QUIET,       /**< both to /dev/null */
    CULPRIT_PROCESS_CAPTURE      /**< both captured; the last `tail` bytes are kept */
} culprit_process_output;

/** How to run a child: `argv` (PATH searched) or `shell` (/bin/sh -c), exactly one. */
typedef struct {
    unsigned int version;
    const char *const *argv; /**< the program and its arguments, NULL-terminated */
    const char *shell;       /**< or: a command line for /bin/sh -c */
    const char *dir;         /**< its working directory; NULL: ours */
    const char *const *env;  /**< NULL-terminated "NAME=value" entries added to ours */
    double timeout_s;        /**< ended after this long (grace_s); 0: never */
    culprit_process_output output;
    size_t tail;    /**< with CAPTURE: bytes of output kept (0: 600) */
    int own_group;  /**< a process group of its own: a timeout or
                         culprit_process_interrupt() ends everything it started,
                         and a Ctrl-C at the terminal does not reach it */
    double grace_s; /**< at a timeout or culprit_process_interrupt(): SIGTERM first,
                         then SIGKILL to what still runs this long after;
                         0: CULPRIT_PROCESS_GRACE_S */
} culprit_process_options;

/** The default grace period (seconds) between SIGTERM and SIGKILL: long enough for a
 * compiler or a test binary to remove its temporary files, short enough for Ctrl-C. */
#define CULPRIT_PROCESS_GRACE_S 5.0

#define CULPRIT_PROCESS_OPTIONS_VERSION 1
#define CULPRIT_PROCESS_OPTIONS_INIT                                                               \
    {                                                                                              \
        .version = CULPRIT_PROCESS_OPTIONS_VERSION                                                 \
    }

/** Sets `opts` to the defaults of `version` (CULPRIT_PROCESS_OPTIONS_VERSION). Returns 0,
 * or CULPRIT_EINVALID for another version. */
int culprit_process_options_init(culprit_process_options *opts, unsigned int version);

/** How a child ended. */
typedef struct {
    int exited;        /**< 1: it exited, with `status` */
    int status;        /**< its exit status */
    int signal;        /**< the signal that killed it (0: none) */
    int timed_out;     /**< killed at the timeout */
    int background;    /**< with own_group: processes it started were still running when it
                            exited; they were killed (a run ends when its main process exits) */
    double elapsed_ns; /**< wall time from start to the main process's exit (monotonic) */
    double cpu_ns;     /**< CPU time (user + system) of the main process and of the descendants
                            it waited for (wait4's rusage); not time it spent waiting (I/O,
                            sleep, locks, the scheduler), nor work of children it did not wait
                            for (e.g. killed with the group at its exit) */
    char *output;      /**< with CAPTURE: the tail of its output (malloc'd, NUL-terminated) */
} culprit_process_result;

/**
 * Runs a child to its end. Returns 0 once it ran (whatever its status: see `out`);
 * CULPRIT_EINVALID for bad options; CULPRIT_ENOTFOUND when the program cannot be
 * started (not found, not executable, no such directory: the message names it and
 * why); CULPRIT_ERROR when culprit itself cannot (fork, pipe). Our stdout and stderr
 * are flushed first. The child's $TMPDIR is this process's temporary directory
 * (culprit_fs_temp_dir()), unless `env` sets one, so what it leaves there goes with
 * ours. With own_group, this process becomes a child subreaper
 * (PR_SET_CHILD_SUBREAPER): the group's orphans are reparented to it and reaped when
 * the group is ended. Not thread-safe (one child at a time per process).
 */
int culprit_process_run(culprit_process_result *out, const culprit_process_options *opts);
void culprit_process_result_dispose(culprit_process_result *result);

/** 1 when the child exited with status 0. */
int culprit_process_succeeded(const culprit_process_result *result);

/**
 * Says how a child ended, after `what` (e.g. the command in quotes): "exited with
 * status 3", "was killed by signal 9 (Killed)", "timed out after 5 s", then ": ..."
 * and the captured tail, if any.
 */
int culprit_process_describe(culprit_buf *out, const culprit_process_result *result,
                             const char *what, double timeout_s);

/**
 * Ends the child of culprit_process_run() running now, and with own_group everything
 * it started: SIGTERM (and SIGCONT, for a stopped one), up to its grace period
 * (grace_s) for them to exit, then SIGKILL, then up to a second more for them to
 * go. Returns once they are gone, so the temporary files can be removed after it.
 * Called again while it waits (a second Ctrl-C), it sends SIGKILL at once. The run
 * in progress then fails. Async-signal-safe: for a SIGINT/SIGTERM handler about to
 * end the process.
 */
void culprit_process_interrupt(void);
/**
 * 1 when live progress (a spinner, a redrawn status line) may be drawn on `fd`: it
 * is a terminal, TERM is not "dumb", and no CI variable (CI, BUILD_NUMBER,
 * TEAMCITY_VERSION) is set. Thread-safe.
 */
int culprit_progress_wanted(int fd);

/**
 * 1 when output to `fd` should be coloured: as culprit_color_set() chose, else when
 * FORCE_COLOR or CLICOLOR_FORCE is set (not empty, "0" or "false"), else never under
 * a non-empty NO_COLOR, else when `fd` is a terminal whose TERM is not "dumb".
 * Thread-safe once the choice is made.
 */
int culprit_color_wanted(int fd);

/** The choice of a --color option: 1 always, 0 never, -1 auto (the default). */
void culprit_color_set(int choice);

/** The spinner's character at `tick`: | / - \ in turn (ASCII: any terminal font). */
char culprit_progress_frame(unsigned int tick);

/* --------------------------------------------------------- option tables --- */
/*
 * One table per command line (a subcommand of `culprit`, a test binary): each row
 * names an option, what its value is, where it goes and its help line, so parsing,
 * the error messages and the help text all come from the same row and cannot drift.
 * The model is libgit2's src/cli/opt.h (`cli_opt_spec`). The parser keeps no state
 * of its own: a table and a parser used by one thread at a time are thread-safe.
 */

/** What an option's value is, and so how it is checked and stored. */
typedef enum {
    CULPRIT_OPT_FLAG = 0, /**< no value; `int *target` set to 1 */
    CULPRIT_OPT_STRING,   /**< `const char **target` points into argv */
    CULPRIT_OPT_SIZE,     /**< `size_t *target`, a decimal integer in [min, max] */
    CULPRIT_OPT_UINT,     /**< `unsigned int *target`, a decimal integer in [min, max] */
    CULPRIT_OPT_DOUBLE,   /**< `double *target`, a number in the range, times `scale` */
    CULPRIT_OPT_ENUM,     /**< `int *target`, the index of the value in `choices` */
    CULPRIT_OPT_CALLBACK  /**< the value handed to `set`, which reads `target` as it likes
                               (repeated options, side effects) */
} culprit_opt_type;

/** Range flags of a CULPRIT_OPT_DOUBLE: the bound itself is not allowed. */
#define CULPRIT_OPT_ABOVE_MIN (1u << 0)
#define CULPRIT_OPT_BELOW_MAX (1u << 1)
/** The value may not be empty ("--filter $UNSET" is a mistake, not a choice). */
#define CULPRIT_OPT_NONEMPTY (1u << 2)

struct culprit_opt;
/**
 * The setter of a CULPRIT_OPT_CALLBACK row: applies `value` to `opt->target`.
 * Returns 0, or a negative code with the last error set; a message that does not
 * start with the option's name gets it as a prefix ("--detector: ...").
 */
typedef int (*culprit_opt_setter)(const struct culprit_opt *opt, const char *value);

/** One row of an option table; a row whose `name` is NULL ends the table. */
typedef struct culprit_opt {
    const char *name;           /**< "--threshold" */
    char short_name;            /**< 'q' for "-q", 0 for none */
    culprit_opt_type type;      /**< FLAG: takes no value; every other type takes one */
    void *target;               /**< where the value goes (see the type); NULL: only reported */
    const char *metavar;        /**< the value's name in the help ("PERCENT"); NULL for flags */
    const char *help;           /**< its help, '\n' between lines; NULL: not listed */
    double min, max;            /**< SIZE, UINT: [min, max], max 0 meaning 1e9; DOUBLE:
                                     the range, both 0 meaning any finite number */
    unsigned int flags;         /**< CULPRIT_OPT_ABOVE_MIN, ... */
    double scale;               /**< DOUBLE: the value stored is value * scale (0: 1) */
    const char *what;           /**< DOUBLE, ENUM: "a percentage (0 to 1000)" for the message */
    const char *const *choices; /**< ENUM: the accepted values, NULL-terminated */
    culprit_opt_setter set;     /**< CALLBACK: applies the value */
    int *given;                 /**< set to 1 when the option appears (NULL: none) */
} culprit_opt;

/**
 * A row: name, short name, type, target, metavar, then the help line and any more
 * fields by name, e.g.
 * CULPRIT_OPT("--repetitions", 0, CULPRIT_OPT_UINT, &o->n, "N", "samples", .min = 1).
 */
#define CULPRIT_OPT(name_, short_, type_, target_, metavar_, ...)                                  \
    {                                                                                              \
        .name = (name_), .short_name = (short_), .type = (type_), .target = (target_),             \
        .metavar = (metavar_), .help = __VA_ARGS__                                                 \
    }
/** The row that ends a table. */
#define CULPRIT_OPT_END_ROW                                                                        \
    {                                                                                              \
        .name = NULL                                                                               \
    }

/** An iterator over a command line, getopt_long-like. */
typedef struct {
    const char *command; /**< "check": prefixes messages ("check: unknown option"); may be NULL */
    const culprit_opt *opts; /**< the table */
    int argc;
    char **argv;
    int i;                  /**< the argument last read (argv[0] is skipped) */
    int only_positional;    /**< after "--" */
    const culprit_opt *opt; /**< the option just parsed; NULL for a positional */
    const char *value;      /**< its value, or the positional argument */
} culprit_opt_parser;

/** Results of culprit_opt_next(). */
#define CULPRIT_OPT_END        0
#define CULPRIT_OPT_OPTION     1
#define CULPRIT_OPT_POSITIONAL 2

/** Starts parsing argv[1..argc-1] against `opts`. */
void culprit_opt_parser_init(culprit_opt_parser *p, const char *command, const culprit_opt *opts,
                             int argc, char **argv);

/**
 * Reads the next argument: "--name value", "--name=value", "-x value", a flag, or
 * a positional (also everything after "--", and "-" itself). An option's value is
 * checked and stored in its target before this returns. Returns CULPRIT_OPT_OPTION
 * (p->opt, p->value), CULPRIT_OPT_POSITIONAL (p->value) or CULPRIT_OPT_END; or
 * CULPRIT_EINVALID with a message naming the option and the value: an unknown
 * option (with near matches: "did you mean"), a missing value, a value given to a
 * flag, a value out of range.
 */
int culprit_opt_next(culprit_opt_parser *p);

/**
 * Applies `value` to one row as if it had been given on the command line; `source`
 * names where it came from in messages ("--fail-on", "CULPRIT_FAIL_ON"). Returns 0
 * or CULPRIT_EINVALID.
 */
int culprit_opt_apply(const culprit_opt *opt, const char *source, const char *value);

/** Finds the row of `name` ("--json") in a table; NULL when there is none. */
const culprit_opt *culprit_opt_find(const culprit_opt *opts, const char *name);

/**
 * Appends the help lines of a table: "  -q, --quiet", the metavar, then the help
 * from `column` on (on the next line when the name is too long for it).
 */
int culprit_opt_help(culprit_buf *out, const culprit_opt *opts, size_t column);

#ifdef __cplusplus
}
#endif

#endif
