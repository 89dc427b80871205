#ifndef EARSHOT_CSYSTEM_SHIM_H
#define EARSHOT_CSYSTEM_SHIM_H
// Linux system calls that Swift's Glibc module does not import (they sit behind _GNU_SOURCE in glibc's headers).
#include <sys/types.h>
#include <stddef.h>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

// glibc 2.27+ (Debian 12 has 2.36); declared here because unistd.h only declares it under _GNU_SOURCE.
extern ssize_t copy_file_range(int fd_in, off_t *off_in, int fd_out, off_t *off_out, size_t len, unsigned int flags);

/// copy_file_range(2): copies up to `length` bytes between two files inside the kernel (a reflink where the file
/// system shares extents). Returns the bytes copied, 0 at the end of the input, or -1 with errno set.
static inline ssize_t earshot_copy_file_range(int in, long long *in_offset, int out, long long *out_offset,
                                              size_t length) {
    off_t input = (off_t)*in_offset, output = (off_t)*out_offset;
    ssize_t copied = copy_file_range(in, &input, out, &output, length, 0);
    *in_offset = (long long)input;
    *out_offset = (long long)output;
    return copied;
}

// glibc 2.34+; declared here because spawn.h only declares it under _GNU_SOURCE.
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int pipe2(int fds[2], int flags);

/// Adds "close every descriptor from `from` on" to a spawn's file actions (the child keeps 0, 1 and 2 only).
static inline int earshot_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// pipe2(2) with O_CLOEXEC: a pipe no other child inherits.
static inline int earshot_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
#endif
