/*
 * common/memory_available: how much memory this process may still take, so that a producer can
 * refuse a component it cannot hold and a verify run can keep a unit's files out of private memory
 * on a host too small for them (verifier/check/walk.h, ma_walk_budget).
 *
 * Contract:
 *  - ma_memory_available() is the smallest of: MemAvailable in /proc/meminfo, the process's cgroup
 *    v2 memory.max minus memory.current, and the soft limits RLIMIT_AS and RLIMIT_DATA (as limits,
 *    not as what is left of them); the machine's physical memory when none of these is known; 0
 *    only when that is unknown too. Files that cannot be read count as unknown, never as an error.
 *  - It is a snapshot: other processes take and free memory, so callers that plan from it should
 *    leave room (the verify run takes half, the solver refuses what does not fit).
 * Threading: any number of calls at once (it reads files and asks the kernel, nothing shared).
 */
#ifndef MA_COMMON_MEMORY_AVAILABLE_H
#define MA_COMMON_MEMORY_AVAILABLE_H

#include <stdint.h>

uint64_t ma_memory_available(void);

#endif
