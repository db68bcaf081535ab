import Atomics
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import RiversCore

/// The HTTP/1.1 server of `rivers serve`: Hummingbird's `HTTP1Channel` pipeline with two
/// handlers of ours. `PublicDocumentByteHandler`, first in line, answers the published documents
/// in memory from the bytes received, the path every app start takes (Hummingbird's per-request
/// cost capped it at about half of nginx), and hands every other request to NIO's decoder and
/// Hummingbird whole, one at a time (`PublicConnection` decides which). `ConnectionGuard` bounds
/// slow clients and says when a response handed on has ended. Everything else (the API, the
/// editor, a document not in memory) goes through Hummingbird.
struct RiversHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let documents: PublishedDocuments
    let limits: ConnectionLimits
    let counter: ConnectionCounter

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            // One read per readable event: a client waits for each answer before it asks again,
            // so a second read would only find nothing (a wasted system call per request).
            try channel.syncOptions?.setOption(ChannelOptions.maxMessagesPerRead, value: 1)
            let connectionGuard = ConnectionGuard(limits: limits, counter: counter)
            let documents = self.documents
            try pipeline.addHandler(PublicDocumentByteHandler(
                connectionGuard: connectionGuard, lookup: { documents.cached(slug: $0, number: $1, kept: &$2) },
                isUnknown: { documents.isUnknown(slug: $0) }))
            // As HTTP1Channel does, with its default limits: Hummingbird handles errors and
            // validates outbound headers.
            let defaults = HTTP1Channel.Configuration.DecoderConfiguration()
            var decoderLimits = NIOHTTPDecoderLimitConfiguration()
            decoderLimits.maxHeaderFieldSize = defaults.maxHeaderFieldSize
            decoderLimits.maxHeaderListSize = defaults.maxHeaderListSize
            decoderLimits.maxHeaderFieldCount = defaults.maxHeaderFieldCount
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits)
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(connectionGuard)
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }

    /// The server builder for `Application(server:)`.
    static func server(documents: PublishedDocuments, limits: ConnectionLimits, counter: ConnectionCounter = ConnectionCounter()) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            RiversHTTP1Channel(responder: responder, documents: documents, limits: limits, counter: counter)
        }
    }
}

/// First on every connection, ahead of HTTP decoding: carries out what `PublicConnection`
/// decides. Answers requests for published documents in memory straight from the bytes received,
/// with the document's prebuilt header block and body (decoding into NIO's and Hummingbird's
/// request types and encoding the response cost more than everything else a cached document
/// needs), and hands the decoder every other request, whole, when its turn comes.
package final class PublicDocumentByteHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = IOData
    package typealias OutboundOut = IOData
    /// The document of a slug (and version number, nil for the current one) if it is in memory;
    /// the connection's own `KeptSlot` to find it again cheaply (see `PublishedDocuments.cached`).
    package typealias Lookup = (String, Int?, inout PublishedDocuments.KeptSlot?) -> ServedDocument?
    /// Whether the index in memory says no app has this slug (see `PublishedDocuments.isUnknown`): a 404 answered here.
    package typealias IsUnknown = (String) -> Bool

    private let lookup: Lookup
    private let isUnknown: IsUnknown
    /// The lookup's way back to what this connection asked for last. Unchecked for the reason
    /// `connection` is.
    @exclusivity(unchecked) private var kept: PublishedDocuments.KeptSlot?
    /// Told of the requests answered here, which it never sees, so that its idle timeout applies;
    /// it tells this handler when a response to a request handed on has ended.
    private let connectionGuard: ConnectionGuard
    // Unchecked: the handler runs on its event loop only, and no access to it overlaps another
    // (every call into the state machine returns before an action is carried out); the dynamic
    // checks were 2% of a cached answer's time.
    @exclusivity(unchecked) private var connection = PublicConnection<PreparedAnswer>()
    private var context: ChannelHandlerContext?
    /// Bytes went to the decoder during the current read (its read is then completed too).
    private var forwardedInRead = false
    /// The last answer's head, kept so that the next one is written into the same storage once
    /// the socket has taken it (a new buffer while a write still holds it): no allocation per answer.
    private var headBuffer: ByteBuffer?

    package init(connectionGuard: ConnectionGuard, lookup: @escaping Lookup, isUnknown: @escaping IsUnknown = { _ in false }) {
        self.connectionGuard = connectionGuard
        self.lookup = lookup
        self.isUnknown = isUnknown
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Held strongly, and let go when the handler is removed (every handler is, when its
        // channel closes): a weak reference would give the handler a side table, which makes
        // every retain and release of it on the public path take the slow way (a profile showed 5%).
        connectionGuard.onResponseEnd = { self.responseEnded() }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        connectionGuard.onResponseEnd = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The socket's state as of now (a change is also announced, but may come after this read).
        connection.writabilityChanged(context.channel.isWritable)
        connection.received(unwrapInboundIn(data))
        if drain(context: context) { forwardedInRead = true }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        // Nothing after this handler has been given anything to complete while it answers alone.
        if forwardedInRead || connection.mode.isPassingOn {
            forwardedInRead = false
            context.fireChannelReadComplete()
        } else if connection.readsForItself, connection.readRequested() {
            // The next read, asked for here: the channel then finds it pending and sends no read
            // through the handlers after this one (a tenth of a cached answer's time, profiled).
            context.read()
        }
    }

    package func read(context: ChannelHandlerContext) {
        if connection.readRequested() { context.read() }
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        connection.writabilityChanged(context.channel.isWritable)
        resume(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// A response handed on has ended: the requests held behind it get their turn.
    private func responseEnded() {
        connection.responseEnded()
        if let context { resume(context: context) }
    }

    /// Work held for the socket or a response, done outside a read.
    private func resume(context: ChannelHandlerContext) {
        // Handed on outside a read: no read will complete it.
        if drain(context: context) { context.fireChannelReadComplete() }
        if connection.takeWantedRead() { context.read() }
    }

    /// Carries out the actions until there is nothing to do; true when it handed on anything.
    private func drain(context: ChannelHandlerContext) -> Bool {
        var forwarded = false, wrote = false
        defer { if wrote { context.flush() } }
        while true {
            switch connection.next(lookup: { PreparedAnswer($0, head: $1, lookup: { self.lookup($0, $1, &self.kept) }, isUnknown: self.isUnknown) }) {
            case .wait:
                return forwarded
            case .forward(let bytes):
                forwarded = true
                context.fireChannelRead(wrapInboundOut(bytes))
            case .answer(let reply, .document(let document, let answer)):
                wrote = true
                ServerMetrics.documentCacheHits.increment()
                write(reply, head: document.headBlocks[answer.headBlock], body: answer.body(of: document), context: context)
            case .answer(let reply, .notFound(let answer)):
                wrote = true
                ServerMetrics.documentsNotFound.increment()
                write(reply, head: answer.head, body: reply.isHead ? nil : answer.body, context: context)
            }
        }
    }

    /// Writes the answer; closes the connection once it is written when the request asked to.
    /// `block`: the status line and the answer's own fields.
    private func write(_ reply: PublicDocumentRequest.Reply, head block: [UInt8], body: ByteBuffer?, context: ChannelHandlerContext) {
        let date = HTTPDate.fieldBytes
        var head = headBuffer ?? context.channel.allocator.buffer(capacity: block.count + 256)
        headBuffer = nil
        head.clear()  // in place when nothing else holds it
        // One write into the buffer (each is checked at run time for exclusive access).
        head.writeWithUnsafeMutableBytes(minimumWritableBytes: block.count + date.count + Self.headTailCapacity) { out in
            var writer = HeadWriter(out)
            writer.put(block)
            writer.put(date)
            writer.put("X-Request-Id: ")
            PublicRequestID.write(into: &writer)
            // HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 only when asked to.
            if !reply.keepAlive {
                writer.put("\r\nConnection: close")
            } else if reply.isHTTP10 {
                writer.put("\r\nConnection: keep-alive")
            }
            writer.put("\r\n\r\n")
            return writer.count
        }
        guard reply.keepAlive else {
            // Closing waits for the write: a close fails whatever is still queued.
            let written = context.eventLoop.makePromise(of: Void.self)
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: body == nil ? written : nil)
            if let body { context.write(wrapOutboundOut(.byteBuffer(body)), promise: written) }
            context.flush()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.byteBuffer(body)), promise: nil) }
        headBuffer = head
        connectionGuard.answered()
    }
}

/// How a request read from the bytes is answered, decided while its head is at hand: a document
/// in memory, or a 404 for a slug no app has.
package enum PreparedAnswer {
    case document(ServedDocument, DocumentAnswer)
    // Boxed: the rare case keeps the common one's size (see `DocumentAnswer`).
    indirect case notFound(UnknownSlugAnswer)

    /// Nil when only the routes can answer (a document not in memory, a former slug's 301, an
    /// archived app's 410, an index not loaded yet).
    @inline(__always)
    package init?(
        _ request: PublicDocumentRequest, head: UnsafeRawBufferPointer, lookup: (String, Int?) -> ServedDocument?,
        isUnknown: PublicDocumentByteHandler.IsUnknown
    ) {
        if let document = lookup(request.slug, request.number) {
            self = .document(document, DocumentAnswer(document, request: request, head: head))
        } else if isUnknown(request.slug) {
            self = .notFound(UnknownSlugAnswer(slug: request.slug, number: request.number))
        } else {
            return nil
        }
    }
}

/// The 404 for a slug no app has, as the routes answer it (`PublicDocumentController` and
/// `pathParameter`: the same problem, status and fields; a test compares the two over a live
/// server) but without a trip through the framework: the cheapest thing to ask a server for in
/// bulk costs no more than a document.
package struct UnknownSlugAnswer {
    /// The fields every such 404 carries after its length (made once: this answers floods).
    static let fixedFieldLines = PublicDocumentController.problemFields.headLines + "X-Content-Type-Options: nosniff\r\n"

    /// The status line and fields before the date.
    var head: [UInt8]
    var body: ByteBuffer

    /// The problem's JSON before and after its detail's string, and the head before and after
    /// the body's length, cut once from the routes' own answer: a flood of these costs a string
    /// written into bytes, not a JSON tree built and written (`RiversPublicPathBench`: reading
    /// and deciding 2,158 ns a 404 when it was, 868 now; the handler 3,687 and 2,386).
    private static let bodyAround = around(Problem.notFound("\u{1}").json.serialized(), Array(#""\u0001""#.utf8))
    private static let headAround = around(
        Array("HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\nContent-Length: \u{1}\r\n\(fixedFieldLines)".utf8),
        [0x01])

    /// `bytes` before and after `marker`, which it holds once.
    private static func around(_ bytes: [UInt8], _ marker: [UInt8]) -> (before: [UInt8], after: [UInt8]) {
        guard let start = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }) else {
            preconditionFailure("the 404's template lost its marker")
        }
        return (Array(bytes[..<start]), Array(bytes[(start + marker.count)...]))
    }

    init(slug: String, number: Int?) {
        // The routes' path parameters name nothing past `pathParameterMaxBytes`; a slug read
        // here is visible ASCII with no `%`, so it is what they would decode.
        let detail =
            slug.utf8.count > pathParameterMaxBytes
            ? "nothing is found at this address" : number.map { "\(slug) has no version \($0)" } ?? "nothing is published for \(slug)"
        var bytes = Self.bodyAround.before
        JSONValue.writeString(detail, to: &bytes)
        bytes.append(contentsOf: Self.bodyAround.after)
        body = ByteBuffer(bytes: bytes)
        head = Self.headAround.before
        head.append(contentsOf: String(bytes.count).utf8)
        head.append(contentsOf: Self.headAround.after)
    }
}

extension PublicDocumentByteHandler {
    /// Room for what follows the header block and the date: the request id's field (46 bytes),
    /// the longest Connection field (24) and the blank line.
    static let headTailCapacity = 96
}

/// Bytes written one after another into memory known to be large enough (the caller reserved it).
struct HeadWriter {
    private let out: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(_ out: UnsafeMutableRawBufferPointer) { self.out = out }

    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { put($0) }
    }

    mutating func put(_ text: StaticString) {
        put(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func put(_ bytes: UnsafeRawBufferPointer) {
        precondition(count + bytes.count <= out.count, "a head outgrew the room reserved for it")
        UnsafeMutableRawBufferPointer(rebasing: out[count..<(count + bytes.count)]).copyMemory(from: bytes)
        count += bytes.count
    }

    mutating func put(_ byte: UInt8) {
        precondition(count < out.count, "a head outgrew the room reserved for it")
        out[count] = byte
        count += 1
    }
}

/// The ids of the requests answered from the bytes: the same shape as Hummingbird's `RequestID`
/// (a random prefix for the process, then a counter, 32 hexadecimal digits in all), written
/// straight into the head with no string made (formatting Hummingbird's took 3% of a cached
/// answer's time).
enum PublicRequestID {
    private static let prefix: [UInt8] = {
        let random = UInt64.random(in: .min ... .max)
        return (0..<16).map { digit(random, $0) }
    }()
    private static let next = ManagedAtomic<UInt64>(UInt64.random(in: .min ... .max))

    static func write(into writer: inout HeadWriter) {
        writer.put(prefix)
        let value = next.loadThenWrappingIncrement(ordering: .relaxed)
        for i in 0..<16 { writer.put(digit(value, i)) }
    }

    /// The `i`th of the sixteen lower-case hexadecimal digits of `value`, leading zeros kept.
    @inline(__always)
    static func digit(_ value: UInt64, _ i: Int) -> UInt8 {
        let v = UInt8((value >> UInt64(60 - 4 * i)) & 0xF)
        return v < 10 ? 48 + v : 87 + v
    }
}

/// A request head in the one plain form `PublicConnection` answers from the bytes: `GET` or `HEAD` of
/// a public document path (`PublicDocumentPath`), HTTP/1.1 or 1.0, CRLF line ends, well-formed
/// fields, and none that gives it a body or asks for more than a document (Content-Length,
/// Transfer-Encoding, Expect, Upgrade, a Connection option other than close and keep-alive).
/// Anything else is nil, and left to NIO's decoder and the framework, which answer every form
/// the protocol allows. Strict on purpose: a request read here is never read differently there
/// (a test damages heads at random and compares both readings; it found a tab after a Connection
/// option, and keep-alive with close, which the decoder reads its own way: both are left to it).
package struct PublicDocumentRequest: Equatable {
    var isHead: Bool
    var slug: String
    var number: Int?
    var isHTTP10: Bool
    var keepAlive: Bool
    /// Several fields of one name are one comma-separated list (RFC 9110 §5.3).
    var acceptEncoding: HeadValue?
    var ifNoneMatch: HeadValue?

    /// A field's value: where it is in the head (no string made on the way to the answer), or, for
    /// several fields of one name (rare), their values as one list.
    enum HeadValue: Equatable {
        case bytes(start: Int, end: Int)
        case list(String)

        func withBytes<Result>(in head: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            switch self {
            case .bytes(let start, let end):
                return body(UnsafeRawBufferPointer(rebasing: head[start..<end]))
            case .list(let text):
                var text = text
                return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
            }
        }

        func string(in head: UnsafeRawBufferPointer) -> String {
            withBytes(in: head) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// What writing the answer needs of a request (a few bytes: see `DocumentAnswer`).
    package struct Reply: Equatable {
        var isHead: Bool
        var isHTTP10: Bool
        var keepAlive: Bool
    }

    var reply: Reply { Reply(isHead: isHead, isHTTP10: isHTTP10, keepAlive: keepAlive) }

    /// `head` runs from the request line through the blank line that ends the fields.
    init?(head: UnsafeRawBufferPointer) {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        let n = head.count
        var i: Int
        if Self.has(head, at: 0, "GET ") {
            (isHead, i) = (false, 4)
        } else if Self.has(head, at: 0, "HEAD ") {
            (isHead, i) = (true, 5)
        } else {
            return nil
        }
        let targetStart = i
        while i < n, head[i] > space, head[i] < 0x7F { i += 1 }
        guard i > targetStart, i < n, head[i] == space else { return nil }
        let target = UnsafeRawBufferPointer(rebasing: head[targetStart..<i]).assumingMemoryBound(to: UInt8.self)
        guard let (slug, number) = PublicDocumentPath.parse(target) else { return nil }
        (self.slug, self.number) = (slug, number)
        i += 1
        if Self.has(head, at: i, "HTTP/1.1\r\n") {
            isHTTP10 = false
        } else if Self.has(head, at: i, "HTTP/1.0\r\n") {
            isHTTP10 = true
        } else {
            return nil
        }
        i += 10
        var close = false, keepAliveAsked = false
        while true {
            guard let field = HeadFieldLine.read(head, at: &i) else {
                if HeadFieldLine.endedAt(head, i) { break }
                return nil
            }
            let name = field.name(in: head)
            let value = field.value(in: head)
            let valueStart = field.valueStart
            switch name.count {
            case 15 where Self.equalsLowercased(name, "accept-encoding"):
                acceptEncoding = Self.adding(field, in: head, to: acceptEncoding)
            case 13 where Self.equalsLowercased(name, "if-none-match"):
                ifNoneMatch = Self.adding(field, in: head, to: ifNoneMatch)
            case 10 where Self.equalsLowercased(name, "connection"):
                // NIO's decoder does not take a tab after an option for a blank: left to it.
                for k in valueStart..<(i - 2) where head[k] == tab { return nil }
                // The options, comma-separated (empty ones skipped), each without blanks around it.
                var optionStart = 0
                while optionStart < value.count {
                    var optionEnd = optionStart
                    while optionEnd < value.count, value[optionEnd] != UInt8(ascii: ",") { optionEnd += 1 }
                    var start = optionStart, end = optionEnd
                    optionStart = optionEnd + 1
                    if start == end { continue }  // nothing between two commas: skipped
                    while start < end, value[start] == space { start += 1 }
                    while end > start, value[end - 1] == space { end -= 1 }
                    let word = UnsafeRawBufferPointer(rebasing: value[start..<end])
                    if Self.equalsLowercased(word, "close") {
                        close = true
                    } else if Self.equalsLowercased(word, "keep-alive") {
                        keepAliveAsked = true
                    } else {
                        return nil
                    }
                }
            case 14 where Self.equalsLowercased(name, "content-length"),
                17 where Self.equalsLowercased(name, "transfer-encoding"),
                6 where Self.equalsLowercased(name, "expect"),
                7 where Self.equalsLowercased(name, "upgrade"):
                return nil
            default:
                break
            }
        }
        // Both options at once: NIO's decoder lets the version decide; left to it.
        if close && keepAliveAsked { return nil }
        keepAlive = !close && (!isHTTP10 || keepAliveAsked)
    }

    /// Whether `text` is at `offset` in `bytes`. (A plain loop: `elementsEqual` on slices was not
    /// specialized, 0.7% of a cached answer's time.)
    @inline(__always)
    static func has(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset >= 0, offset + count <= bytes.count else { return false }
        let expected = text.utf8Start
        for k in 0..<count where bytes[offset + k] != expected[k] { return false }
        return true
    }

    /// `name` is `lowercased` in any case (ASCII letters only).
    @inline(__always)
    static func equalsLowercased(_ name: UnsafeRawBufferPointer, _ lowercased: StaticString) -> Bool {
        guard name.count == lowercased.utf8CodeUnitCount else { return false }
        var expected = lowercased.utf8Start
        for byte in name {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard folded == expected.pointee else { return false }
            expected += 1
        }
        return true
    }

    /// tchar (RFC 9110 §5.6.2): `!#$%&'*+-.^_`|~`, digits and letters, as one bit per byte
    /// (bytes 0–63, then 64–127): a shift and a test for every byte of every field name read.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        byte < 64 ? (tokenBytesBelow64 >> UInt64(byte)) & 1 == 1 : byte < 128 && (tokenBytesFrom64 >> UInt64(byte - 64)) & 1 == 1
    }
    static let tokenBytesBelow64: UInt64 = 0x03ff_6cfa_0000_0000
    static let tokenBytesFrom64: UInt64 = 0x57ff_ffff_c7ff_fffe

    private static func adding(_ field: HeadFieldLine.Field, in head: UnsafeRawBufferPointer, to value: HeadValue?) -> HeadValue {
        guard let value else { return .bytes(start: field.valueStart, end: field.valueEnd) }
        return .list(DocumentAnswer.list(value.string(in: head), adding: String(decoding: field.value(in: head), as: UTF8.self)))
    }

    /// Whether `bytes` are exactly `text`.
    @inline(__always)
    static func equals(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount && has(bytes, at: 0, text)
    }

    /// Whether `bytes` are exactly `expected`.
    @inline(__always)
    static func equals(_ bytes: UnsafeRawBufferPointer, _ expected: [UInt8]) -> Bool {
        guard bytes.count == expected.count else { return false }
        guard !expected.isEmpty else { return true }
        return expected.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
    }
}
