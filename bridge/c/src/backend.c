/* Region backends: /dev/shm file, ivshmem BAR 2 (sysfs resource2), /dev/mem physical range.
 * POSIX calls only (open, fstat, ftruncate, mmap); an RTEMS port replaces this file. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xcc_internal.h"

void xcc_region_wrap(xcc_region *r, void *mem, size_t bytes, int access)
{
    r->base = mem;
    r->mapped_bytes = bytes;
    r->access = access;
    r->map_addr = NULL;
    r->map_len = 0;
    r->fd = -1;
}

static int map_fd(xcc_region *r, int fd, size_t bytes, off_t offset, size_t lead, int access,
                  const char *what, char *err, size_t eb)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    if (m == MAP_FAILED) {
        xcc_errf(err, eb, "mmap of %s (%zu bytes at offset %lld) failed: %s", what, bytes,
                 (long long)offset, strerror(errno));
        close(fd);
        return XCC_EIO;
    }
    r->map_addr = m;
    r->map_len = bytes;
    r->base = (uint8_t *)m + lead;
    r->mapped_bytes = bytes - lead;
    r->access = access;
    r->fd = fd;
    return XCC_OK;
}

int xcc_map_shm(xcc_region *r, const char *path, size_t create_bytes, char *err, size_t eb)
{
    int fd = open(path, create_bytes ? (O_RDWR | O_CREAT) : O_RDWR, 0600);
    if (fd < 0) {
        xcc_errf(err, eb, "cannot open region file %s: %s", path, strerror(errno));
        return XCC_EIO;
    }
    if (create_bytes && ftruncate(fd, (off_t)create_bytes) != 0) {
        xcc_errf(err, eb, "cannot size region file %s to %zu bytes: %s", path, create_bytes,
                 strerror(errno));
        close(fd);
        return XCC_EIO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        xcc_errf(err, eb, "region file %s is empty or cannot be sized", path);
        close(fd);
        return XCC_EIO;
    }
    return map_fd(r, fd, (size_t)st.st_size, 0, 0, XCC_ACCESS_ATOMIC, path, err, eb);
}

int xcc_map_ivshmem(xcc_region *r, const char *resource_path, char *err, size_t eb)
{
    /* sysfs resource files must be mapped at exactly their size (the BAR size). */
    int fd = open(resource_path, O_RDWR | O_SYNC);
    if (fd < 0) {
        xcc_errf(err, eb, "cannot open ivshmem BAR %s: %s", resource_path, strerror(errno));
        return XCC_EIO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        xcc_errf(err, eb, "ivshmem BAR %s has no size", resource_path);
        close(fd);
        return XCC_EIO;
    }
    /* ivshmem shared memory is ordinary cacheable RAM on the host: atomics are fine */
    return map_fd(r, fd, (size_t)st.st_size, 0, 0, XCC_ACCESS_ATOMIC, resource_path, err, eb);
}

int xcc_map_devmem(xcc_region *r, const char *dev_path, uint64_t phys, size_t bytes, char *err,
                   size_t eb)
{
    const char *path = dev_path ? dev_path : "/dev/mem";
    if (bytes == 0 || phys % XCC_LINE_BYTES != 0) {
        xcc_errf(err, eb, "physical range 0x%llx+%zu violates rule non-empty, 64-byte aligned base",
                 (unsigned long long)phys, bytes);
        return XCC_EINVAL;
    }
    long page = sysconf(_SC_PAGESIZE);
    uint64_t base = phys & ~((uint64_t)page - 1u);
    size_t lead = (size_t)(phys - base);
    int fd = open(path, O_RDWR | O_SYNC);
    if (fd < 0) {
        xcc_errf(err, eb, "cannot open %s: %s", path, strerror(errno));
        return XCC_EIO;
    }
    /* /dev/mem may be uncached device memory: aligned word accesses only, no atomics */
    return map_fd(r, fd, bytes + lead, (off_t)base, lead, XCC_ACCESS_ALIGNED, path, err, eb);
}

void xcc_unmap(xcc_region *r)
{
    if (r->map_addr)
        munmap(r->map_addr, r->map_len);
    if (r->fd >= 0)
        close(r->fd);
    r->map_addr = NULL;
    r->base = NULL;
    r->fd = -1;
}

uint64_t xcc_now_nanos(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void xcc_backoff_init(xcc_backoff *b, uint32_t spin, uint32_t yield, uint64_t min_sleep_nanos,
                      uint64_t max_sleep_nanos)
{
    b->spin = spin;
    b->yield = yield;
    b->min_sleep_nanos = min_sleep_nanos ? min_sleep_nanos : 1;
    b->max_sleep_nanos = max_sleep_nanos < b->min_sleep_nanos ? b->min_sleep_nanos : max_sleep_nanos;
    xcc_backoff_reset(b);
}

void xcc_backoff_reset(xcc_backoff *b)
{
    b->idle = 0;
    b->sleep_nanos = b->min_sleep_nanos;
}

int xcc_backoff_idle(xcc_backoff *b)
{
    if (b->idle < b->spin) {
        b->idle++;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        return 0;
    }
    if (b->idle - b->spin < b->yield) {
        b->idle++;
        sched_yield();
        return 1;
    }
    struct timespec ts = {(time_t)(b->sleep_nanos / 1000000000u),
                          (long)(b->sleep_nanos % 1000000000u)};
    nanosleep(&ts, NULL);
    b->sleep_nanos = b->sleep_nanos * 2 > b->max_sleep_nanos ? b->max_sleep_nanos : b->sleep_nanos * 2;
    return 2;
}
