/* common/memory_available: what this process may still take; see memory_available.h. */
#include "common/memory_available.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* A "Key:   123 kB" line of a /proc file, in bytes; 0 when absent. */
static uint64_t meminfo_bytes(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t v = 0;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, klen) && line[klen] == ':') {
            unsigned long long kb = 0;
            if (sscanf(line + klen + 1, "%llu", &kb) == 1)
                v = (uint64_t)kb * 1024;
            break;
        }
    fclose(f);
    return v;
}

/* A single number in a file (cgroup v2 memory.max / memory.current); 0 when absent or "max". */
static uint64_t file_number(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned long long v = 0;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    return ok ? (uint64_t)v : 0;
}

static void take_min(uint64_t *best, uint64_t v)
{
    if (v && (!*best || v < *best))
        *best = v;
}

uint64_t ma_memory_available(void)
{
    uint64_t best = meminfo_bytes("/proc/meminfo", "MemAvailable");
    /* cgroup v2: "0::/some/path" in /proc/self/cgroup names our group. */
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "0::", 3)) {
                line[strcspn(line, "\n")] = '\0';
                char path[700];
                snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
                uint64_t max = file_number(path);
                snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", line + 3);
                uint64_t cur = file_number(path);
                if (max)
                    take_min(&best, max > cur ? max - cur : 1);
                break;
            }
        fclose(f);
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        take_min(&best, (uint64_t)rl.rlim_cur);
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        take_min(&best, (uint64_t)rl.rlim_cur);
    if (!best) {
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && size > 0)
            best = (uint64_t)pages * (uint64_t)size;
    }
    return best;
}
