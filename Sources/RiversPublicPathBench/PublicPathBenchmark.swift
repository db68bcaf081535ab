import Foundation
import NIOCore
import NIOEmbedded
import RiversServer
import RiversStore

/// What the byte path costs per request in our own code, without sockets, for
/// `RiversPublicPathBench` (run by `make bench-publish`): the serving figures there include the
/// kernel's share, most of an answer's time, which swings with the machine. Two figures per kind
/// of request: reading it and deciding the answer (`PublicConnection` and `PreparedAnswer`,
/// nothing else), and the whole handler on an embedded channel (which adds NIO's in-process
/// costs: the pipeline, and the embedded channel's own bookkeeping).
enum PublicPathBenchmark {
    struct Figure: Sendable {
        var label: String
        /// Reading the head and deciding the answer.
        var decideNanoseconds: Double
        /// The whole handler, the answer's head written, on an embedded channel.
        var handlerNanoseconds: Double
    }

    /// The best of `rounds` runs of `requests` requests, for each kind of request. Documents are
    /// found as the server finds them: in a `PublishedDocuments` whose index holds `apps` apps.
    static func run(requests: Int = 200_000, rounds: Int = 5, apps: Int = 10_000) async throws -> [Figure] {
        let slug = "bench-app"
        let source = InMemoryPublishedVersions()
        for i in 0..<apps - 1 { source.publish(slug: "app-\(i)", appId: appId(i), document: Array("{}".utf8)) }
        source.publish(slug: slug, appId: "0b5c6f5e-0000-4000-8000-ffffffffffff", document: Array(repeating: UInt8(ascii: " "), count: 200_000))
        let documents = PublishedDocuments(store: source)
        try await documents.reloadAll()
        // Read once, as a first request would: from then on it is in memory.
        _ = try await documents.document(slug: slug, number: nil)
        guard let document = documents.cached(slug: slug, number: nil) else { throw BenchmarkError(message: "the document is not in memory") }
        let lookup: PublicDocumentByteHandler.Lookup = { documents.cached(slug: $0, number: $1, kept: &$2) }
        // The same without the connection's kept slot: every request looked up.
        let lookupEach: PublicDocumentByteHandler.Lookup = { slug, number, _ in documents.cached(slug: slug, number: number) }
        let path = "/rivers/\(slug)/rivers.json"
        // As wrk sends them, and as an app's HTTP client does (more fields, a longer list).
        let wrk = "Host: 127.0.0.1:8080\r\nAccept-Encoding: gzip\r\n"
        let app = "Host: rivers.example.com\r\nUser-Agent: MyApp/4.2 (iPhone; iOS 17.4; Scale/3.00) CFNetwork/1494.0.7 Darwin/23.4.0\r\n"
            + "Accept: */*\r\nAccept-Language: en-GB,en;q=0.9\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: keep-alive\r\n"
        let notModified = "GET \(path) HTTP/1.1\r\n\(wrk)If-None-Match: \(document.gzipETag)\r\n\r\n"
        // Then: what reading and the handler cost when every request is looked up (no slot kept),
        // and a 404 for a slug the index does not know.
        let kinds: [(label: String, head: String, keeps: Bool)] = [
            ("304, wrk's head", notModified, true),
            ("gzip 200, wrk's head", "GET \(path) HTTP/1.1\r\n\(wrk)\r\n", true),
            ("HEAD, wrk's head", "HEAD \(path) HTTP/1.1\r\n\(wrk)\r\n", true),
            ("304, an app's head", "GET \(path) HTTP/1.1\r\n\(app)If-None-Match: \(document.gzipETag)\r\n\r\n", true),
            ("304, wrk's, each looked up", notModified, false),
            ("404, a slug no app has", "GET /rivers/no-such-app/rivers.json HTTP/1.1\r\n\(wrk)\r\n", true),
        ]
        func best(_ body: () throws -> Void) rethrows -> Double {
            var best = Double.infinity
            for _ in 0..<rounds {
                let start = DispatchTime.now().uptimeNanoseconds
                try body()
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(requests))
            }
            return best
        }
        var figures: [Figure] = []
        for (label, head, keeps) in kinds {
            let request = ByteBuffer(string: head)
            var connection = PublicConnection<PreparedAnswer>()
            var kept: PublishedDocuments.KeptSlot?
            var answered = 0
            let decide = best {
                for _ in 0..<requests {
                    answered += connection.answerAll(request, lookup: keeps ? lookup : lookupEach, kept: &kept, isUnknown: { documents.isUnknown(slug: $0) })
                }
            }
            guard answered == rounds * requests else { throw BenchmarkError(message: "\(label): not every request was answered") }

            let connectionGuard = ConnectionGuard(limits: ConnectionLimits(), counter: ConnectionCounter())
            let channel = EmbeddedChannel(handler: PublicDocumentByteHandler(
                connectionGuard: connectionGuard, lookup: keeps ? lookup : lookupEach, isUnknown: { documents.isUnknown(slug: $0) }))
            defer { _ = try? channel.finish() }
            // Checked once: the byte path answers it (the decoder would leave the request inbound).
            try channel.writeInbound(request)
            guard let answer = try channel.readOutbound(as: ByteBuffer.self), answer.readableBytes > 0 else {
                throw BenchmarkError(message: "\(label): not answered by the byte path")
            }
            while try channel.readOutbound(as: ByteBuffer.self) != nil {}
            let handler = try best {
                for _ in 0..<requests {
                    try channel.writeInbound(request)
                    while try channel.readOutbound(as: ByteBuffer.self) != nil {}
                }
            }
            figures.append(Figure(label: label, decideNanoseconds: decide, handlerNanoseconds: handler))
        }
        return figures
    }

    /// What one publish costs the index of a process serving `apps` apps (`PublishedDocuments.update`,
    /// as a publish here or a notification from another does it): the best of `rounds` runs of
    /// `changes` publishes of one app, alternating between two versions so that each is a change.
    /// The same for any number of apps when a publish copies only what it changes.
    static func indexChange(apps: Int, changes: Int = 2_000, rounds: Int = 5) async throws -> Double {
        let source = InMemoryPublishedVersions()
        let document = Array("{}".utf8)
        for i in 0..<apps { source.publish(slug: "app-\(i)", appId: appId(i), document: document) }
        let documents = PublishedDocuments(store: source)
        try await documents.reloadAll()
        let slug = "app-\(apps / 2)"
        let versions = [
            source.publish(slug: slug, appId: appId(apps / 2), document: Array(#"{"a":1}"#.utf8)),
            source.publish(slug: slug, appId: appId(apps / 2), document: Array(#"{"a":2}"#.utf8)),
        ]
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            for change in 0..<changes { documents.update(slug: slug, version: versions[change % 2]) }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / Double(changes))
        }
        guard documents.cached(slug: slug, number: nil)?.gzipETag == "\"\(versions[(changes - 1) % 2].sha256)-gzip\"" else {
            throw BenchmarkError(message: "the last publish is not what the index serves")
        }
        return best
    }

    static func appId(_ i: Int) -> String { "0b5c6f5e-0000-4000-8000-\(String(i, radix: 16).leftPadded(to: 12))" }

    struct BenchmarkError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

extension String {
    /// Zeros in front, to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
