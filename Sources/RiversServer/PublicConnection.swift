import NIOCore

/// What one connection does with the bytes it receives, as pure state: events in, actions out
/// (postgres-nio's connection state machine is the model). `PublicDocumentByteHandler` only
/// carries the actions out; the tests drive this without a channel, a socket or a database.
///
/// A request for a document in memory is answered from the bytes. Any other request goes on to
/// NIO's decoder and the framework whole and alone: its head and its `Content-Length` body, and
/// nothing after it until its response has ended. Then the connection is answered from the bytes
/// again, so a connection that also carries API calls (every pooled proxy connection) keeps the
/// fast path. A chunked body is followed to its end too when it is in its plainest form
/// (`ChunkedBodyFraming`). Only a request whose extent the bytes do not say beyond doubt (a chunk
/// extension or trailer, an unusual head, a head over `RequestHeadBytes.maxHeadBytes`) hands the
/// rest of the connection to the decoder, which then reads every request as it would without this.
///
/// Responses leave in request order: an answer is written only while no forwarded request awaits
/// its response. A client that does not read its answers (the socket not writable) is not read
/// either, so it cannot make the server queue answers.
package struct PublicConnection<Document> {
    package enum Action {
        /// Write the answer; when the request does not keep the connection, close once written
        /// (the connection is then closing and drops whatever else arrives).
        case answer(PublicDocumentRequest.Reply, Document)
        /// Give these bytes to the decoder.
        case forward(ByteBuffer)
        /// Nothing more until more bytes arrive, a response ends or the socket drains.
        case wait
    }

    enum Mode: Equatable {
        /// Requests are read here: answered, or forwarded one at a time.
        case reading
        /// A forwarded request's body is still arriving: this many bytes of it go on.
        case forwardingBody(remaining: Int)
        /// A forwarded request's chunked body is still arriving, read this far.
        case forwardingChunked(ChunkedBodyFraming)
        /// Everything goes to the decoder, for the life of the connection.
        case passingOn
        /// Answered with Connection: close; what else arrives is dropped.
        case closing

        // Matched, not compared (asked on every read of the public path): since a mode carries
        // a chunked body's state, `==` compares whole values.
        var isReading: Bool { if case .reading = self { true } else { false } }
        var isPassingOn: Bool { if case .passingOn = self { true } else { false } }
    }

    private(set) var mode = Mode.reading
    /// Forwarded requests whose response has not ended.
    private(set) var awaited = 0
    /// Bytes received and not yet answered or forwarded, and how much of them was searched for
    /// the end of a head.
    private var unread: ByteBuffer?
    private var searched = 0
    private var writable = true
    /// A read asked for while the client was not reading its answers, to be done once it drains.
    private var readWanted = false

    /// Bytes arrived; `next` says what to do with them.
    package init() {}

    package mutating func received(_ bytes: ByteBuffer) {
        switch mode {
        case .closing: return
        case .reading, .forwardingBody, .forwardingChunked, .passingOn:
            if var held = unread {
                var bytes = bytes
                held.writeBuffer(&bytes)
                unread = held
            } else {
                unread = bytes
            }
        }
    }

    /// The response to a forwarded request has ended (its last part was written).
    mutating func responseEnded() {
        if awaited > 0 { awaited -= 1 }
    }

    mutating func writabilityChanged(_ isWritable: Bool) {
        writable = isWritable
    }

    /// Whether a read the pipeline asks for is done now; false holds it until the socket drains
    /// (then `takeWantedRead` is true).
    mutating func readRequested() -> Bool {
        if mode.isReading, !writable, awaited == 0, (unread?.readableBytes ?? 0) > 0 {
            readWanted = true
            return false
        }
        return true
    }

    /// Whether this connection alone decides when to read: requests are read here and no forwarded
    /// one awaits its response, so nothing behind the byte handler holds anything of it (what was
    /// forwarded has been answered). The handler then asks for the next read itself, one hop to
    /// the socket, instead of the channel sending the request through every handler after it.
    var readsForItself: Bool { mode.isReading && awaited == 0 }

    /// Whether a read held earlier is to be done now.
    mutating func takeWantedRead() -> Bool {
        guard readWanted, writable || !mode.isReading else { return false }
        readWanted = false
        return true
    }

    /// The next thing to do; call until `.wait`. `lookup` finds a request's document in memory
    /// (given the request's head too, which the request's field values point into).
    package mutating func next(lookup: (PublicDocumentRequest, UnsafeRawBufferPointer) -> Document?) -> Action {
        switch mode {
        case .closing:
            unread = nil
            return .wait
        case .passingOn:
            return forwardAll()
        case .forwardingBody(let remaining):
            guard var bytes = unread, bytes.readableBytes > 0 else { return .wait }
            if bytes.readableBytes <= remaining {
                unread = nil
                mode = bytes.readableBytes == remaining ? .reading : .forwardingBody(remaining: remaining - bytes.readableBytes)
                return .forward(bytes)
            }
            let rest = bytes.readSlice(length: remaining)!
            unread = bytes
            mode = .reading
            return .forward(rest)
        case .forwardingChunked(var framing):
            guard var bytes = unread, bytes.readableBytes > 0 else { return .wait }
            switch bytes.withUnsafeReadableBytes({ framing.read($0) }) {
            case .more:
                unread = nil
                mode = .forwardingChunked(framing)
                return .forward(bytes)
            case .ended(let length):
                let rest = bytes.readSlice(length: length)!
                unread = bytes.readableBytes > 0 ? bytes : nil
                mode = .reading
                return .forward(rest)
            case .malformed:
                // What was forwarded of it is the decoder's; so is the rest, from its own reading.
                return forwardAll()
            }
        case .reading:
            return read(lookup: lookup)
        }
    }

    private mutating func read(lookup: (PublicDocumentRequest, UnsafeRawBufferPointer) -> Document?) -> Action {
        guard var bytes = unread, bytes.readableBytes > 0 else { return .wait }
        guard awaited == 0 else {
            if bytes.readableBytes > RequestHeadBytes.maxHeldBytes { return forwardAll() }
            return .wait
        }
        guard writable else { return .wait }
        guard let headLength = RequestHeadBytes.headLength(bytes, searchingFrom: searched) else {
            if bytes.readableBytes > RequestHeadBytes.maxHeadBytes { return forwardAll() }
            searched = max(0, bytes.readableBytes - 3)
            return .wait
        }
        searched = 0
        // A longer head goes to the decoder even when whole: its limits apply to it.
        guard headLength <= RequestHeadBytes.maxHeadBytes else { return forwardAll() }
        // The request's fields are used up by the lookup; what writing the answer needs goes on.
        let found: (PublicDocumentRequest.Reply, Document)? = bytes.withUnsafeReadableBytes { readable in
            let head = UnsafeRawBufferPointer(rebasing: readable[..<headLength])
            guard let request = PublicDocumentRequest(head: head), let document = lookup(request, head) else { return nil }
            return (request.reply, document)
        }
        if let (request, document) = found {
            bytes.moveReaderIndex(forwardBy: headLength)
            if request.keepAlive {
                unread = bytes.readableBytes > 0 ? bytes : nil
            } else {
                mode = .closing
                unread = nil
            }
            return .answer(request, document)
        }
        guard let body = bytes.withUnsafeReadableBytes({ RequestHeadBytes.body(UnsafeRawBufferPointer(rebasing: $0[..<headLength])) })
        else { return forwardAll() }
        awaited += 1
        guard case .length(let bodyLength) = body else {
            // Chunked: the head goes on now, the body as it arrives, read for its end.
            let head = bytes.readSlice(length: headLength)!
            unread = bytes.readableBytes > 0 ? bytes : nil
            mode = .forwardingChunked(ChunkedBodyFraming())
            return .forward(head)
        }
        let whole = headLength + bodyLength
        if bytes.readableBytes <= whole {
            unread = nil
            if bytes.readableBytes < whole { mode = .forwardingBody(remaining: whole - bytes.readableBytes) }
            return .forward(bytes)
        }
        let forwarded = bytes.readSlice(length: whole)!
        unread = bytes
        return .forward(forwarded)
    }

    /// The rest of the connection is the decoder's.
    private mutating func forwardAll() -> Action {
        mode = .passingOn
        guard let bytes = unread, bytes.readableBytes > 0 else { return .wait }
        unread = nil
        return .forward(bytes)
    }
}

/// Request heads in the bytes received: where one ends, and how long the body after it is.
enum RequestHeadBytes {
    /// A request head not complete within this many bytes goes to the decoder (whose limits apply).
    static let maxHeadBytes = 8 * 1024
    /// Bytes held while a forwarded request awaits its response (a client sending ahead of its
    /// answers); past this, everything goes to the decoder, which reads pipelined requests itself.
    static let maxHeldBytes = 64 * 1024

    /// The length of the request head at the start of `buffer` (through its blank line), or nil
    /// while it is incomplete. The first `from` bytes were already searched.
    static func headLength(_ buffer: ByteBuffer, searchingFrom from: Int) -> Int? {
        buffer.withUnsafeReadableBytes { bytes in
            var i = from
            while i + 3 < bytes.count {
                if bytes[i + 3] != 10 { i += bytes[i + 3] == 13 ? 1 : 4; continue }
                if bytes[i] == 13, bytes[i + 1] == 10, bytes[i + 2] == 13 { return i + 4 }
                i += 1
            }
            return nil
        }
    }

    /// How the body after a request head is framed.
    enum Body: Equatable {
        /// This many bytes.
        case length(Int)
        /// Chunked (RFC 9112 §7.1): read for its end by `ChunkedBodyFraming`.
        case chunked
    }

    /// How the body after `head` (request line through blank line) is framed when the head says
    /// it beyond doubt: a length of 0 with neither `Content-Length` nor `Transfer-Encoding`, else
    /// the one well-formed `Content-Length`, or chunked for HTTP/1.1 with one `Transfer-Encoding`
    /// of `chunked` alone and no length. Nil for anything NIO's decoder might read another way, so
    /// that a body is never taken for a request or a request for a body: another transfer coding,
    /// a length with it, several or malformed lengths, a line not ended by CRLF, a folded line, a
    /// control character, `CONNECT`, `Upgrade`, a version other than HTTP/1.x.
    static func body(_ head: UnsafeRawBufferPointer) -> Body? {
        let space = UInt8(ascii: " ")
        let n = head.count
        var i = 0
        while i < n, PublicDocumentRequest.isTokenByte(head[i]) { i += 1 }
        guard i > 0, i < n, head[i] == space else { return nil }
        if PublicDocumentRequest.equalsLowercased(UnsafeRawBufferPointer(rebasing: head[0..<i]), "connect") { return nil }
        i += 1
        let targetStart = i
        while i < n, head[i] > space, head[i] < 0x7F { i += 1 }
        guard i > targetStart, i < n, head[i] == space else { return nil }
        i += 1
        let isHTTP11 = PublicDocumentRequest.has(head, at: i, "HTTP/1.1\r\n")
        guard isHTTP11 || PublicDocumentRequest.has(head, at: i, "HTTP/1.0\r\n") else { return nil }
        i += 10
        var length: Int?
        var chunked = false
        while true {
            guard let field = HeadFieldLine.read(head, at: &i) else {
                guard HeadFieldLine.endedAt(head, i) else { return nil }
                if chunked { return length == nil ? .chunked : nil }
                return .length(length ?? 0)
            }
            let name = field.name(in: head)
            let (valueStart, valueEnd) = (field.valueStart, field.valueEnd)
            switch name.count {
            case 14 where PublicDocumentRequest.equalsLowercased(name, "content-length"):
                // One value of digits only, short enough never to overflow.
                guard length == nil, valueEnd > valueStart, valueEnd - valueStart <= 15 else { return nil }
                var value = 0
                for byte in head[valueStart..<valueEnd] {
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(byte - UInt8(ascii: "0"))
                }
                length = value
            case 17 where PublicDocumentRequest.equalsLowercased(name, "transfer-encoding"):
                // `chunked` alone, once, in HTTP/1.1.
                guard isHTTP11, !chunked, PublicDocumentRequest.equalsLowercased(field.value(in: head), "chunked") else { return nil }
                chunked = true
            case 7 where PublicDocumentRequest.equalsLowercased(name, "upgrade"):
                return nil
            default:
                break
            }
        }
    }
}

/// Where a chunked body (RFC 9112 §7.1) ends, read in its plainest form only: each chunk a size
/// of hexadecimal digits (at most seven: under 256 MiB) and CRLF, that many bytes and CRLF; then
/// the last chunk, `0` and CRLF, and no trailer field: CRLF. Anything else (a chunk extension, a
/// trailer, a blank, a bare LF, a longer size) is `malformed`, and the connection then goes to
/// NIO's decoder for good, which reads it as it would without this: a body is ended here only
/// where no reader of HTTP could end it elsewhere. Pure state, fed the bytes as they arrive.
struct ChunkedBodyFraming: Equatable {
    enum State: Equatable {
        /// In a chunk's size line: its value and digits so far.
        case size(value: Int, digits: Int)
        /// After the size line's CR.
        case sizeLF(value: Int)
        case data(remaining: Int)
        case dataCR
        case dataLF
        /// After the last chunk's line: the CRLF that ends the body.
        case lastCR
        case lastLF
    }

    enum Outcome: Equatable {
        /// Every byte given is the body's, and more is to come.
        case more
        /// The body ends after this many of the bytes given.
        case ended(at: Int)
        case malformed
    }

    static let maxSizeDigits = 7

    private(set) var state = State.size(value: 0, digits: 0)

    /// Reads the next bytes of the body (from where the last call stopped).
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch state {
            case .size(let value, let digits):
                if let digit = Self.hexValue(byte) {
                    guard digits < Self.maxSizeDigits else { return .malformed }
                    state = .size(value: value * 16 + digit, digits: digits + 1)
                } else {
                    guard byte == cr, digits > 0 else { return .malformed }
                    state = .sizeLF(value: value)
                }
            case .sizeLF(let value):
                guard byte == lf else { return .malformed }
                state = value == 0 ? .lastCR : .data(remaining: value)
            case .data(let remaining):
                // The data is not looked at: skipped whole.
                let taken = min(remaining, bytes.count - i)
                i += taken
                state = taken == remaining ? .dataCR : .data(remaining: remaining - taken)
                continue
            case .dataCR:
                guard byte == cr else { return .malformed }
                state = .dataLF
            case .dataLF:
                guard byte == lf else { return .malformed }
                state = .size(value: 0, digits: 0)
            case .lastCR:
                guard byte == cr else { return .malformed }
                state = .lastLF
            case .lastLF:
                guard byte == lf else { return .malformed }
                return .ended(at: i + 1)
            }
            i += 1
        }
        return .more
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
    }
}

/// One field line of a request head, read strictly (the two readers of heads share it): a token
/// name, a colon, a value of visible characters, blanks and obs-text with no control character,
/// and CRLF.
enum HeadFieldLine {
    /// A field line's parts, as offsets in the head (plain integers: ranges and slices of a buffer
    /// went through generic code here, a tenth of a cached answer's time in our code).
    struct Field {
        var nameStart: Int
        var nameEnd: Int
        /// The value, without the blanks around it.
        var valueStart: Int
        var valueEnd: Int

        func name(in head: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: head[nameStart..<nameEnd])
        }

        func value(in head: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: head[valueStart..<valueEnd])
        }
    }

    /// Reads the line at `i`, moving `i` past it, when it is a field; nil for anything else: the
    /// blank line (see `endedAt`) or something malformed. (Inlined: it runs for every field of
    /// every request on the public path.)
    @inline(__always)
    static func read(_ head: UnsafeRawBufferPointer, at i: inout Int) -> Field? {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        let n = head.count
        var j = i
        while j < n, PublicDocumentRequest.isTokenByte(head[j]) { j += 1 }
        guard j > i, j < n, head[j] == UInt8(ascii: ":") else { return nil }
        let nameEnd = j
        j += 1
        while j < n, head[j] == space || head[j] == tab { j += 1 }
        let valueStart = j
        // Eight bytes at a time while none is a control character (below 0x20, CR among them) or
        // DEL: most of a value; the word holding one is read byte by byte.
        while j + 8 <= n, !wordHasControl(head.loadUnaligned(fromByteOffset: j, as: UInt64.self)) { j += 8 }
        while j < n, head[j] != cr {
            let byte = head[j]
            guard byte >= space || byte == tab, byte != 0x7F else { return nil }
            j += 1
        }
        guard j + 1 < n, head[j + 1] == lf else { return nil }
        var valueEnd = j
        while valueEnd > valueStart, head[valueEnd - 1] == space || head[valueEnd - 1] == tab { valueEnd -= 1 }
        let field = Field(nameStart: i, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd)
        i = j + 2
        return field
    }

    /// Whether any of the eight bytes of `word` is below 0x20 or is 0x7F (exact for "any"; which
    /// one is left to the byte-by-byte loop). Bytes from 0x80 (obs-text) are neither.
    @inline(__always)
    static func wordHasControl(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let del = word ^ (ones &* 0x7F)
        let isDel = (del &- ones) & ~del & highs
        return below20 | isDel != 0
    }

    /// Whether the blank line that must end `head` is at `i`, and nothing after it.
    static func endedAt(_ head: UnsafeRawBufferPointer, _ i: Int) -> Bool {
        i + 2 == head.count && head[i] == UInt8(ascii: "\r") && head[i + 1] == UInt8(ascii: "\n")
    }
}

extension PublicConnection where Document == PreparedAnswer {
    /// Takes `bytes` and decides every answer they hold, as `PublicDocumentByteHandler` does
    /// (its lookups, with the connection's `kept`, and answers), returning how many. For
    /// `RiversPublicPathBench`: declared here, so that it runs the state machine compiled for
    /// `PreparedAnswer` in this module, as the handler does, not its generic form from another module.
    package mutating func answerAll(
        _ bytes: ByteBuffer, lookup: PublicDocumentByteHandler.Lookup, kept: inout PublishedDocuments.KeptSlot?,
        isUnknown: PublicDocumentByteHandler.IsUnknown
    ) -> Int {
        received(bytes)
        var answered = 0
        while case .answer = next(lookup: { PreparedAnswer($0, head: $1, lookup: { lookup($0, $1, &kept) }, isUnknown: isUnknown) }) { answered += 1 }
        return answered
    }
}
