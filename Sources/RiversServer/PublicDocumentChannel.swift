import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The HTTP/1.1 server of `rivers serve`: Hummingbird's `HTTP1Channel` pipeline with two handlers
/// of ours. `PublicDocumentHandler` sits right after NIO's HTTP decoder and answers the published
/// documents that are in memory there, on the event loop, before the request is turned into
/// HTTP types and handed to an async task (the path every app start takes; Hummingbird's
/// per-request cost capped it at about half of nginx). `ConnectionGuard` bounds slow clients.
/// Everything else (the API, the editor, a document not in memory) goes through Hummingbird.
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
            let connectionGuard = ConnectionGuard(limits: limits, counter: counter)
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
            if passedOn == 0, let answer = answer(head) {
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
                acceptEncoding = acceptEncoding.map { $0 + ", " + value } ?? value
            case 13 where name.lowercased() == "if-none-match":
                ifNoneMatch = ifNoneMatch.map { $0 + ", " + value } ?? value
            default: break
            }
        }
        return (acceptEncoding, ifNoneMatch)
    }

    private static func hasBody(_ head: HTTPRequestHead) -> Bool {
        head.headers.contains(name: "transfer-encoding") || (head.headers.first(name: "content-length").map { $0 != "0" } ?? false)
    }
}
