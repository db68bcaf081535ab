#ifndef CGZIP_H
#define CGZIP_H
#include <stddef.h>

/// Compresses `length` bytes of `input` as one gzip member (RFC 1952) at the best compression.
/// Writes at most `capacity` bytes to `output`; returns the number written, or 0 on failure
/// (including an output buffer too small: size it with cgzip_bound).
size_t cgzip_compress(const unsigned char *input, size_t length, unsigned char *output, size_t capacity);

/// An upper bound of the gzip size of `length` bytes.
size_t cgzip_bound(size_t length);

/// Decompresses a gzip member; returns the number of bytes written, or 0 on failure.
size_t cgzip_decompress(const unsigned char *input, size_t length, unsigned char *output, size_t capacity);
#endif
