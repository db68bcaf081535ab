import CGzip

/// gzip (RFC 1952) through the system's zlib: published documents are stored compressed once, so
/// serving a gzip response costs nothing.
public enum Gzip {
    public static func compress(_ bytes: [UInt8]) -> [UInt8] {
        let capacity = cgzip_bound(bytes.count)
        var output = [UInt8](repeating: 0, count: capacity)
        let written = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                cgzip_compress(input.baseAddress, input.count, out.baseAddress, capacity)
            }
        }
        precondition(written > 0, "zlib failed to compress \(bytes.count) bytes into a buffer of its own bound")
        output.removeSubrange(written...)
        return output
    }

    /// Decompresses a gzip member known to hold at most `maximumSize` bytes.
    public static func decompress(_ bytes: [UInt8], maximumSize: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: max(maximumSize, 1))
        let written = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                cgzip_decompress(input.baseAddress, input.count, out.baseAddress, out.count)
            }
        }
        guard written > 0 || maximumSize == 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }
}
