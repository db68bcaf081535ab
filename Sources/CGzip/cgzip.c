#include "cgzip.h"
#include <string.h>
#include <zlib.h>

size_t cgzip_bound(size_t length) {
    return length + length / 1000 + 64 + 18;
}

size_t cgzip_compress(const unsigned char *input, size_t length, unsigned char *output, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof(stream));
    /* windowBits 15 + 16 asks zlib for a gzip header and trailer. */
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (unsigned char *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t written = stream.total_out;
    deflateEnd(&stream);
    return status == Z_STREAM_END ? written : 0;
}

size_t cgzip_decompress(const unsigned char *input, size_t length, unsigned char *output, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof(stream));
    if (inflateInit2(&stream, 15 + 16) != Z_OK) return 0;
    stream.next_in = (unsigned char *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = inflate(&stream, Z_FINISH);
    size_t written = stream.total_out;
    inflateEnd(&stream);
    return status == Z_STREAM_END ? written : 0;
}
