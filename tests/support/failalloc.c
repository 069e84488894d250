/*
 * tests/support/failalloc: a test-only LD_PRELOAD shim (built for the tests, never installed) that
 * makes one allocation fail, so the out-of-memory paths of the real binary are tested by what a
 * user sees (tests/integration/test_alloc_failure.py, docs/verifier.md "Allocation failures").
 *
 * It interposes malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc, memalign,
 * valloc, strdup, strndup and open_memstream (glibc allows replacing malloc; the real ones are
 * glibc's __libc_* entry points, so no dlsym is needed on the allocation path) and counts the calls
 * made directly by the main program's own code: allocations inside glibc, SQLite, jansson, OpenSSL
 * or the dynamic loader are not counted and never failed (but see MA_FAILALLOC_LIBS). Their failures reach our code as an errno
 * or a library's error code, which is another contract; and the loader's cannot be survived.
 *
 * Environment (read once, before main):
 *   MA_FAILALLOC_LIBS=A,B   also count the calls made by the shared objects whose file names
 *                           contain A or B ("jansson"): a library whose contract returns its own
 *                           allocation failure to the caller (jansson's constructors return NULL),
 *                           so that what our code does with that NULL is tested too.
 *   MA_FAILALLOC_AT=N       the Nth counted allocation (1-based) fails once (NULL, errno ENOMEM);
 *                           the ones after it succeed again. Unset or 0: none fails.
 *   MA_FAILALLOC_REPORT=P   at exit, the process that loaded the shim (not a forked child) writes
 *                           "allocations C\nfailed F\n" to P: C counted allocations, F 1 when the
 *                           Nth was reached and failed, then "site A": its return address (as
 *                           below), for a person finding which call it was.
 *   MA_FAILIO=CALLS         I/O faults instead: each of the comma-separated calls "write" (ENOSPC,
 *                           a full disk), "fsync" (EIO, a disk error) and "close" (EIO, as NFS
 *                           reports a failed write-back; the descriptor is closed all the same)
 *                           fails on every descriptor whose path contains MA_FAILIO_PATH, so what
 *                           an output does when the disk refuses it is tested by what a user sees.
 *   MA_FAILALLOC_SITES=P    at exit, also writes one line per counted allocation site, in order of
 *                           first use: "<index of its first call> <calls> <return address>" (hex,
 *                           relative to the program's load address: `addr2line -f -e millaudit`).
 *
 * Under AddressSanitizer the sanitizer's allocator must come first, so the shim is for the release
 * build only (CMake does not build it with ENABLE_SANITIZERS).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

#define MAX_RANGES 16
#define MAX_SITES 8192

static struct {
    uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int n_ranges;
static uintptr_t base;
static unsigned long fail_at;
static atomic_ulong counted;
static atomic_int failed;
static uintptr_t failed_site;
static pid_t owner;
static atomic_int ready;
static atomic_flag registered = ATOMIC_FLAG_INIT;

/* Sites: the return addresses of counted calls, each with the index of its first call. */
static struct {
    uintptr_t addr;
    unsigned long first, calls;
} sites[MAX_SITES];
static int n_sites;
static int want_sites;
static atomic_flag sites_lock = ATOMIC_FLAG_INIT;

/* 1 when the object's file name contains one of the comma-separated names of libs. */
static int listed(const char *object, const char *libs)
{
    while (libs && *libs && object && *object) {
        size_t n = strcspn(libs, ",");
        for (const char *o = object; n && *o; o++)
            if (!strncmp(o, libs, n))
                return 1;
        libs += n + (libs[n] == ',');
    }
    return 0;
}

static int program_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    /* the first object dl_iterate_phdr reports is the main program */
    static int seen_main;
    if (!seen_main) {
        seen_main = 1;
        base = info->dlpi_addr;
    } else if (!listed(info->dlpi_name, data))
        return n_ranges == MAX_RANGES;
    for (int i = 0; i < info->dlpi_phnum && n_ranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            ranges[n_ranges].lo = info->dlpi_addr + ph->p_vaddr;
            ranges[n_ranges].hi = ranges[n_ranges].lo + ph->p_memsz;
            n_ranges++;
        }
    }
    return !data || n_ranges == MAX_RANGES;
}

static void note_site(uintptr_t addr, unsigned long index)
{
    while (atomic_flag_test_and_set(&sites_lock))
        ;
    int i = 0;
    while (i < n_sites && sites[i].addr != addr)
        i++;
    if (i < n_sites) {
        sites[i].calls++;
    } else if (n_sites < MAX_SITES) {
        sites[n_sites].addr = addr;
        sites[n_sites].first = index;
        sites[n_sites].calls = 1;
        n_sites++;
    }
    atomic_flag_clear(&sites_lock);
}

/* Registered at the program's first counted allocation, so after the program's constructors and
 * glibc's own exit handlers: it runs before them at exit and stops the count, leaving out what is
 * not the program's work (gcov writing its counters in a coverage build, from code linked into the
 * program). */
static void stop_counting(void)
{
    atomic_store(&ready, 0);
}

/* 1 when this call, made from caller, is the one to fail. */
static int should_fail(const void *caller)
{
    if (!atomic_load(&ready))
        return 0;
    uintptr_t a = (uintptr_t)caller;
    int ours = 0;
    for (int i = 0; i < n_ranges && !ours; i++)
        ours = a >= ranges[i].lo && a < ranges[i].hi;
    if (!ours)
        return 0;
    if (!atomic_flag_test_and_set(&registered))
        atexit(stop_counting);
    unsigned long index = atomic_fetch_add(&counted, 1) + 1;
    if (want_sites)
        note_site(a, index);
    if (index != fail_at)
        return 0;
    failed_site = a;
    atomic_store(&failed, 1);
    errno = ENOMEM;
    return 1;
}

#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))

void *malloc(size_t size)
{
    return should_fail(CALLER) ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return should_fail(CALLER) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return should_fail(CALLER) ? NULL : __libc_realloc(p, size);
}

void *reallocarray(void *p, size_t n, size_t size)
{
    if (should_fail(CALLER))
        return NULL;
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, n * size);
}

void *memalign(size_t align, size_t size)
{
    return should_fail(CALLER) ? NULL : __libc_memalign(align, size);
}

void *aligned_alloc(size_t align, size_t size)
{
    return should_fail(CALLER) ? NULL : __libc_memalign(align, size);
}

void *valloc(size_t size)
{
    return should_fail(CALLER) ? NULL : __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (should_fail(CALLER))
        return ENOMEM;
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

char *strdup(const char *s)
{
    if (should_fail(CALLER))
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = __libc_malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
    if (should_fail(CALLER))
        return NULL;
    size_t n = strnlen(s, max);
    char *p = __libc_malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

FILE *open_memstream(char **ptr, size_t *size)
{
    static FILE *(*real)(char **, size_t *);
    if (should_fail(CALLER))
        return NULL;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "open_memstream");
    return real ? real(ptr, size) : NULL;
}

/* ---- I/O faults (MA_FAILIO) ---- */

static int fail_write, fail_fsync, fail_close;
static const char *io_path;

/* 1 when fd names a file whose path contains MA_FAILIO_PATH. */
static int io_target(int fd)
{
    if (!io_path || !*io_path)
        return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 0)
        return 0;
    path[n] = '\0';
    return strstr(path, io_path) != NULL;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *buf, size_t n)
{
    if (fail_write && io_target(fd)) {
        errno = ENOSPC;
        return -1;
    }
    return REAL(write)(fd, buf, n);
}

int fsync(int fd)
{
    if (fail_fsync && io_target(fd)) {
        errno = EIO;
        return -1;
    }
    return REAL(fsync)(fd);
}

int close(int fd)
{
    int target = fail_close && io_target(fd);
    int rc = REAL(close)(fd);
    if (target) {
        errno = EIO;
        return -1;
    }
    return rc;
}

__attribute__((constructor)) static void failalloc_init(void)
{
    const char *at = getenv("MA_FAILALLOC_AT");
    fail_at = at ? strtoul(at, NULL, 10) : 0;
    want_sites = getenv("MA_FAILALLOC_SITES") != NULL;
    const char *io = getenv("MA_FAILIO");
    io_path = getenv("MA_FAILIO_PATH");
    fail_write = io && strstr(io, "write") != NULL;
    fail_fsync = io && strstr(io, "fsync") != NULL;
    fail_close = io && strstr(io, "close") != NULL;
    owner = getpid();
    dl_iterate_phdr(program_segments, (void *)getenv("MA_FAILALLOC_LIBS"));
    atomic_store(&ready, 1);
}

__attribute__((destructor)) static void failalloc_report(void)
{
    if (getpid() != owner)
        return;
    atomic_store(&ready, 0);
    const char *path = getenv("MA_FAILALLOC_REPORT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "allocations %lu\nfailed %d\n", atomic_load(&counted), atomic_load(&failed));
        if (atomic_load(&failed))
            fprintf(f, "site %#lx\n", (unsigned long)(failed_site - base));
        fclose(f);
    }
    path = getenv("MA_FAILALLOC_SITES");
    f = path ? fopen(path, "w") : NULL;
    if (f) {
        for (int i = 0; i < n_sites; i++)
            fprintf(f, "%lu %lu %#lx\n", sites[i].first, sites[i].calls, (unsigned long)(sites[i].addr - base));
        fclose(f);
    }
}
