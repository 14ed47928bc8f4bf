// sync_file_range(2) is a GNU extension that Swift's Glibc module leaves out (it is declared only
// under _GNU_SOURCE). Declared here as glibc declares it on 64-bit Linux (off64_t is long).
extern int sync_file_range(int fd, long offset, long nbytes, unsigned int flags);

// SYNC_FILE_RANGE_WRITE: start writing the range's dirty pages out, without waiting for them.
static inline int roqua_start_writeback(int fd, long offset, long nbytes) {
    return sync_file_range(fd, offset, nbytes, 2);
}
