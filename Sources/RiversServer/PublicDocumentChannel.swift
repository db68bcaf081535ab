import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The HTTP/1.1 server of `rivers serve`: Hummingbird's `HTTP1Channel` pipeline with three
/// handlers of ours. Published documents in memory are answered on the event loop, the path every
/// app start takes (Hummingbird's per-request cost capped it at about half of nginx):
/// `PublicDocumentByteHandler`, first in line, answers them from the bytes received while a
/// connection asks for nothing else; once a connection has asked for something else,
/// `PublicDocumentHandler`, right after NIO's HTTP decoder, answers them from the decoded request
/// whenever no other answer is pending. `ConnectionGuard` bounds slow clients. Everything else
/// (the API, the editor, a document not in memory) goes through Hummingbird.
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
            try pipeline.addHandler(PublicDocumentByteHandler(documents: documents, connectionGuard: connectionGuard))
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
            try pipeline.addHandler(PublicDocumentHandler(documents: documents, connectionGuard: connectionGuard))
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

/// Answers `GET`/`HEAD /rivers/{slug}[/v{n}]/rivers.json` (HTTP/1.1 or 1.0) when the document
/// is in memory, and passes every other request on, untouched. The answer is the document's
/// prebuilt response head plus the request id, and its body: nothing is formatted per request
/// but the id. It goes through NIO's response encoder like every response (the encoder pairs
/// each response with its request's method). Responses leave in request order: while a request
/// passed on is unanswered, the ones after it are passed on too.
final class PublicDocumentHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let documents: PublishedDocuments
    /// Told of the requests answered here, which it never sees, so that their timeouts apply.
    private let connectionGuard: ConnectionGuard
    /// Requests passed on whose response has not ended yet.
    private var passedOn = 0
    /// The request being read: passed on, or answered here once its end arrives.
    private var reading: Reading = .idle

    private enum Reading {
        case idle
        case passingOn
        case answering(Answer)
    }

    private struct Answer {
        var head: HTTPResponseHead
        var body: ByteBuffer?
        var keepAlive: Bool
    }

    init(documents: PublishedDocuments, connectionGuard: ConnectionGuard) {
        self.documents = documents
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // A client that does not read its answers (the socket not writable) is left to the
            // framework, which waits for each answer to be written before it reads the next request.
            if passedOn == 0, context.channel.isWritable, let answer = answer(head) {
                reading = .answering(answer)
                if Self.hasBody(head) { connectionGuard.awaitingBody() }
                return
            }
            reading = .passingOn
            passedOn += 1
        case .body:
            if case .answering = reading { return }
        case .end:
            if case .answering(let answer) = reading {
                reading = .idle
                write(answer, context: context)
                return
            }
            reading = .idle
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), passedOn > 0 { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    private func write(_ answer: Answer, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        if answer.keepAlive {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            connectionGuard.answered()
        } else {
            // Closing waits for the write: a close fails whatever is still queued.
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// The answer when this request is for a document in memory; nil to pass it on.
    private func answer(_ head: HTTPRequestHead) -> Answer? {
        guard head.version == .http1_1 || head.version == .http1_0, head.method == .GET || head.method == .HEAD,
            let (slug, number) = PublicDocumentPath.parse(head.uri), let document = documents.cached(slug: slug, number: number)
        else { return nil }
        ServerMetrics.documentCacheHits.increment()
        let (acceptEncoding, ifNoneMatch) = Self.negotiationHeaders(head.headers)
        let answer = DocumentAnswer(
            document, isHead: head.method == .HEAD, acceptEncoding: acceptEncoding, ifNoneMatch: ifNoneMatch, current: number == nil)
        var response = answer.notModified ? document.notModifiedHead[answer.row][answer.column] : document.okHead[answer.row][answer.column]
        response.headers.add(name: "X-Request-Id", value: RequestID().description)
        response.headers.add(name: "Date", value: HTTPDate.now)
        // HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 only when asked to.
        let keepAlive = head.isKeepAlive
        if !keepAlive {
            response.headers.add(name: "Connection", value: "close")
        } else if head.version == .http1_0 {
            response.headers.add(name: "Connection", value: "keep-alive")
        }
        return Answer(head: response, body: answer.body, keepAlive: keepAlive)
    }

    /// Accept-Encoding and If-None-Match, in one pass over the headers; several fields of one name
    /// are one comma-separated list (RFC 9110 §5.3).
    private static func negotiationHeaders(_ headers: HTTPHeaders) -> (acceptEncoding: String?, ifNoneMatch: String?) {
        var acceptEncoding: String?, ifNoneMatch: String?
        for (name, value) in headers {
            switch name.utf8.count {
            case 15 where name.lowercased() == "accept-encoding":
                acceptEncoding = DocumentAnswer.list(acceptEncoding, adding: value)
            case 13 where name.lowercased() == "if-none-match":
                ifNoneMatch = DocumentAnswer.list(ifNoneMatch, adding: value)
            default: break
            }
        }
        return (acceptEncoding, ifNoneMatch)
    }

    private static func hasBody(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "transfer-encoding") || (head.headers.first(name: "content-length").map { $0 != "0" } ?? false)
    }
}

/// First on every connection, ahead of HTTP decoding: answers requests for published documents
/// in memory straight from the bytes received, with the document's prebuilt header block and
/// body, while the connection has asked for nothing else. This is the path of every app start;
/// decoding into NIO's and then Hummingbird's request types, and encoding the response, cost
/// more than everything else a cached document needs (a profile put it near half of nginx).
///
/// It answers only requests in the plain form `PublicDocumentRequest` reads, which has no body.
/// On the first request it does not answer (another path, a document not in memory, a body,
/// anything unusual, a head over `maxHeadBytes`), it hands that request's bytes and everything
/// after to the decoder, for the life of the connection: from then on, `PublicDocumentHandler`
/// and the framework answer, in order, as they would without it.
final class PublicDocumentByteHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// A request head not complete within this many bytes is passed on (the decoder's limits apply).
    static let maxHeadBytes = 8 * 1024

    private let documents: PublishedDocuments
    /// Told of the requests answered here, which it never sees, so that its idle timeout applies.
    private let connectionGuard: ConnectionGuard
    private var state = State.answering
    /// Bytes received and not yet answered: the start of a request head still arriving, or
    /// requests held while the client is not reading its answers; and how much of it was
    /// searched for the end of a head.
    private var unread: ByteBuffer?
    private var searched = 0
    /// The client is not reading its answers (the socket is not writable): nothing more is
    /// answered or read until it drains, so a client cannot make the server queue answers.
    private var paused = false
    /// A read asked for while paused, done once the socket drains.
    private var readWanted = false

    private enum State {
        case answering
        /// Everything goes to the decoder.
        case passingOn
        /// Answered with Connection: close; what else arrives is dropped.
        case closing
    }

    init(documents: PublishedDocuments, connectionGuard: ConnectionGuard) {
        self.documents = documents
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .answering = state else {
            if case .passingOn = state { context.fireChannelRead(data) }
            return
        }
        var buffer = unwrapInboundIn(data)
        if var unread {
            self.unread = nil
            unread.writeBuffer(&buffer)
            buffer = unread
        }
        answer(buffer, context: context)
    }

    /// Answers the requests at the start of `buffer`; keeps what is left when a head is still
    /// arriving or the client is not reading, and passes it on at the first request not answered here.
    private func answer(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        var buffer = buffer
        var wrote = false
        defer { if wrote { context.flush() } }
        while buffer.readableBytes > 0 {
            if !context.channel.isWritable {
                paused = true
                unread = buffer
                return
            }
            guard let headLength = Self.headLength(buffer, searchingFrom: searched) else {
                if buffer.readableBytes > Self.maxHeadBytes { break }
                searched = max(0, buffer.readableBytes - 3)
                unread = buffer
                return
            }
            searched = 0
            // A head longer than that goes to the decoder even when whole, whose limits it may break.
            if headLength > Self.maxHeadBytes { break }
            let request = buffer.withUnsafeReadableBytes { PublicDocumentRequest(head: UnsafeRawBufferPointer(rebasing: $0[..<headLength])) }
            guard let request, let document = documents.cached(slug: request.slug, number: request.number) else { break }
            buffer.moveReaderIndex(forwardBy: headLength)
            wrote = true
            if !answer(request, with: document, context: context) { return }
        }
        if buffer.readableBytes > 0 {
            // The answers written here are queued ahead of any the decoder's side writes.
            state = .passingOn
            context.fireChannelRead(wrapInboundOut(buffer))
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Nothing after this handler has been given anything to complete while it answers alone.
        if case .passingOn = state { context.fireChannelReadComplete() }
    }

    func read(context: ChannelHandlerContext) {
        if paused, case .answering = state {
            readWanted = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if paused, context.channel.isWritable {
            paused = false
            if case .answering = state, let unread {
                self.unread = nil
                answer(unread, context: context)
                // Passed on outside a read: no read will complete it.
                if case .passingOn = state { context.fireChannelReadComplete() }
            }
            if !paused, readWanted {
                readWanted = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

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

    /// Writes the answer; false when the connection is to close after it (nothing more is read).
    private func answer(_ request: PublicDocumentRequest, with document: ServedDocument, context: ChannelHandlerContext) -> Bool {
        ServerMetrics.documentCacheHits.increment()
        let answer = DocumentAnswer(
            document, isHead: request.isHead, acceptEncoding: request.acceptEncoding, ifNoneMatch: request.ifNoneMatch,
            current: request.number == nil)
        let fields = answer.notModified ? document.notModifiedHeadBytes[answer.row][answer.column] : document.okHeadBytes[answer.row][answer.column]
        var head = context.channel.allocator.buffer(capacity: fields.readableBytes + 128)
        head.writeImmutableBuffer(fields)
        head.writeImmutableBuffer(HTTPDate.fieldBytes)
        head.writeStaticString("X-Request-Id: ")
        head.writeString(RequestID().description)
        // HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 only when asked to.
        if !request.keepAlive {
            head.writeStaticString("\r\nConnection: close")
        } else if request.isHTTP10 {
            head.writeStaticString("\r\nConnection: keep-alive")
        }
        head.writeStaticString("\r\n\r\n")
        guard request.keepAlive else {
            // Closing waits for the write: a close fails whatever is still queued.
            state = .closing
            unread = nil
            let written = context.eventLoop.makePromise(of: Void.self)
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: answer.body == nil ? written : nil)
            if let body = answer.body { context.write(wrapOutboundOut(.byteBuffer(body)), promise: written) }
            context.flush()
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            return false
        }
        context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.byteBuffer(body)), promise: nil) }
        connectionGuard.answered()
        return true
    }
}

/// A request head in the one plain form `PublicDocumentByteHandler` answers: `GET` or `HEAD` of
/// a public document path (`PublicDocumentPath`), HTTP/1.1 or 1.0, CRLF line ends, well-formed
/// fields, and none that gives it a body or asks for more than a document (Content-Length,
/// Transfer-Encoding, Expect, Upgrade, a Connection option other than close and keep-alive).
/// Anything else is nil, and left to NIO's decoder and the framework, which answer every form
/// the protocol allows. Strict on purpose: a request read here is never read differently there
/// (a test damages heads at random and compares both readings; it found a tab after a Connection
/// option, and keep-alive with close, which the decoder reads its own way: both are left to it).
struct PublicDocumentRequest: Equatable {
    var isHead: Bool
    var slug: String
    var number: Int?
    var isHTTP10: Bool
    var keepAlive: Bool
    /// Several fields of one name are one comma-separated list (RFC 9110 §5.3).
    var acceptEncoding: String?
    var ifNoneMatch: String?

    /// `head` runs from the request line through the blank line that ends the fields.
    init?(head: UnsafeRawBufferPointer) {
        let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
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
            guard i + 1 < n else { return nil }
            if head[i] == cr {
                // The blank line: the head must end here.
                guard head[i + 1] == lf, i + 2 == n else { return nil }
                break
            }
            let nameStart = i
            while i < n, Self.isTokenByte(head[i]) { i += 1 }
            guard i > nameStart, i < n, head[i] == UInt8(ascii: ":") else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: head[nameStart..<i])
            i += 1
            while i < n, head[i] == space || head[i] == tab { i += 1 }
            let valueStart = i
            var valueEnd = i
            while i < n, head[i] != cr {
                let byte = head[i]
                // Visible characters, spaces, tabs and obs-text; no control characters.
                guard byte >= space || byte == tab, byte != 0x7F else { return nil }
                i += 1
                if byte != space, byte != tab { valueEnd = i }
            }
            guard i + 1 < n, head[i + 1] == lf else { return nil }
            i += 2
            let value = UnsafeRawBufferPointer(rebasing: head[valueStart..<valueEnd])
            switch name.count {
            case 15 where Self.equalsLowercased(name, "accept-encoding"):
                acceptEncoding = Self.appending(value, to: acceptEncoding)
            case 13 where Self.equalsLowercased(name, "if-none-match"):
                ifNoneMatch = Self.appending(value, to: ifNoneMatch)
            case 10 where Self.equalsLowercased(name, "connection"):
                // NIO's decoder does not take a tab after an option for a blank: left to it.
                if head[valueStart..<(i - 2)].contains(tab) { return nil }
                for option in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
                    var start = option.startIndex, end = option.endIndex
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

    private static func has(_ bytes: UnsafeRawBufferPointer, at offset: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        return text.withUTF8Buffer { bytes[offset..<(offset + count)].elementsEqual($0) }
    }

    /// `name` is `lowercased` in any case (ASCII letters only).
    private static func equalsLowercased(_ name: UnsafeRawBufferPointer, _ lowercased: StaticString) -> Bool {
        guard name.count == lowercased.utf8CodeUnitCount else { return false }
        var expected = lowercased.utf8Start
        for byte in name {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard folded == expected.pointee else { return false }
            expected += 1
        }
        return true
    }

    /// tchar (RFC 9110 §5.6.2).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static func appending(_ value: UnsafeRawBufferPointer, to list: String?) -> String {
        DocumentAnswer.list(list, adding: String(decoding: value, as: UTF8.self))
    }
}
