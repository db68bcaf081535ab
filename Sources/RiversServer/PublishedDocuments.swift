import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import RiversCore
import RiversStore
import ServiceLifecycle

/// A published document ready to send: its bytes, its gzip bytes and their ETags.
struct ServedDocument: Sendable {
    var number: Int
    var body: ByteBuffer
    var gzip: ByteBuffer
    var etag: String
    var gzipETag: String
    var numberText: String
    var bodyLength: String
    var gzipLength: String

    init(_ version: PublishedVersion) {
        number = version.number
        body = ByteBuffer(bytes: version.document)
        gzip = ByteBuffer(bytes: version.gzip)
        // Strong validators, one per representation (RFC 9110 §8.8.3).
        etag = "\"\(version.sha256)\""
        gzipETag = "\"\(version.sha256)-gzip\""
        numberText = String(version.number)
        bodyLength = String(version.document.count)
        gzipLength = String(version.gzip.count)
    }
}

/// The published documents this process serves, in memory: every app's current version (loaded
/// at start, kept current by LISTEN/NOTIFY and a periodic check) and the versions asked for by
/// number (immutable, so kept once read). Requests never wait on the database once warm, and
/// published documents stay served if the database goes away.
public final class PublishedDocuments: Sendable {
    private let current = NIOLockedValueBox<[String: ServedDocument]>([:])
    /// Versions read by number, with the order they were read in (the oldest is dropped first).
    private let versions = NIOLockedValueBox<(documents: [String: ServedDocument], order: [String])>(([:], []))
    private let loaded = NIOLockedValueBox(false)
    let store: any VersionRepository
    /// Versions kept by number, at most (the oldest read is dropped first).
    static let versionCacheLimit = 512

    public init(store: any VersionRepository) {
        self.store = store
    }

    /// Every app's current document has been loaded (and is kept current from then on).
    var isLoaded: Bool { loaded.withLockedValue { $0 } }

    func hasVersion(slug: String, number: Int) -> Bool {
        versions.withLockedValue { $0.documents["\(slug)/\(number)"] != nil }
    }

    func currentDocument(slug: String) async throws -> ServedDocument? {
        if loaded.withLockedValue({ $0 }) {
            ServerMetrics.documentCacheHits.increment()
            return current.withLockedValue { $0[slug] }
        }
        if let document = current.withLockedValue({ $0[slug] }) {
            ServerMetrics.documentCacheHits.increment()
            return document
        }
        ServerMetrics.documentCacheMisses.increment()
        // Not warm yet (the database was away at start): ask it directly.
        guard let version = try await store.currentDocument(slug: slug) else { return nil }
        let document = ServedDocument(version)
        current.withLockedValue { $0[slug] = document }
        return document
    }

    func document(slug: String, number: Int) async throws -> ServedDocument? {
        let key = "\(slug)/\(number)"
        if let document = versions.withLockedValue({ $0.documents[key] }) {
            ServerMetrics.documentCacheHits.increment()
            return document
        }
        ServerMetrics.documentCacheMisses.increment()
        guard let version = try await store.document(slug: slug, number: number) else { return nil }
        let document = ServedDocument(version)
        versions.withLockedValue { cache in
            guard cache.documents[key] == nil else { return }
            if cache.order.count >= Self.versionCacheLimit {
                // Versions never change, so the one read longest ago goes.
                cache.documents.removeValue(forKey: cache.order.removeFirst())
            }
            cache.documents[key] = document
            cache.order.append(key)
        }
        return document
    }

    /// Replaces what is served for one app (after a publish here, or a notification from another process).
    func update(slug: String, version: PublishedVersion?) {
        current.withLockedValue { $0[slug] = version.map(ServedDocument.init) }
    }

    func refresh(slug: String) async throws {
        update(slug: slug, version: try await store.currentDocument(slug: slug))
    }

    /// Loads every app's current document.
    func reloadAll() async throws {
        let all = try await store.allCurrentDocuments()
        var fresh: [String: ServedDocument] = [:]
        for (slug, version) in all { fresh[slug] = ServedDocument(version) }
        current.withLockedValue { $0 = fresh }
        loaded.withLockedValue { $0 = true }
    }
}

/// Keeps `PublishedDocuments` current: a full load at start and after every reconnection, then
/// one reload per notification on `rivers_published`, and a full check every `interval` in case
/// a notification was lost.
public struct PublishListener: Service {
    let documents: PublishedDocuments
    let client: PostgresClient
    let logger: Logger
    var interval: Duration = .seconds(30)

    public init(documents: PublishedDocuments, client: PostgresClient, logger: Logger, interval: Duration = .seconds(30)) {
        self.documents = documents
        self.client = client
        self.logger = logger
        self.interval = interval
    }

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listen() }
            group.addTask { await periodicReload() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: publishedChannel) { notifications in
                        // Listening first, then loading: nothing published in between is missed.
                        try await documents.reloadAll()
                        for try await notification in notifications {
                            try await documents.refresh(slug: notification.payload)
                        }
                    }
                }
            } catch {
                // Shutting down closes the pool under the listener: nothing to report then.
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                ServerMetrics.listenReconnects.increment()
                logger.warning("listening for publishes failed; serving what is loaded and retrying: \(String(reflecting: error))")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    func periodicReload() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            do { try await documents.reloadAll() } catch {
                logger.debug("periodic reload of published documents failed: \(String(reflecting: error))")
            }
        }
    }
}

/// `GET|HEAD /rivers/{slug}/rivers.json` and `/rivers/{slug}/v{n}/rivers.json`: no auth, CORS,
/// strong ETags, 304, stored gzip, and caching a CDN can use.
struct PublicDocumentController {
    let documents: PublishedDocuments
    /// What is in memory is served whatever the database does; what is not is read from the
    /// database, so while it is away that is a 503 at once, not a wait on the pool.
    var availability = DatabaseAvailability(ready: true)

    static let currentCacheControl = "public, max-age=60, stale-while-revalidate=300, stale-if-error=86400"
    static let versionCacheControl = "public, max-age=31536000, immutable"

    func register(on routes: RouteRegistrar<RiversContext>) {
        for method in [HTTPRequest.Method.get, .head] {
            routes.on(method, "rivers/{slug}/rivers.json") { request, context in
                let slug = try context.pathParameter("slug")
                guard documents.isLoaded || availability.isReady else { throw Problem.databaseUnavailable }
                guard let document = try await documents.currentDocument(slug: slug) else {
                    throw Problem.notFound("nothing is published for \(slug)")
                }
                return Self.respond(document, request: request, cacheControl: Self.currentCacheControl)
            }
            routes.on(method, "rivers/{slug}/{version}/rivers.json") { request, context in
                let slug = try context.pathParameter("slug")
                let text = try context.pathParameter("version")
                guard text.hasPrefix("v"), let number = Int(text.dropFirst()), number > 0 else {
                    throw Problem.notFound("versions are addressed as v1, v2, … (got \(text))")
                }
                guard documents.hasVersion(slug: slug, number: number) || availability.isReady else { throw Problem.databaseUnavailable }
                guard let document = try await documents.document(slug: slug, number: number) else {
                    throw Problem.notFound("\(slug) has no version \(number)")
                }
                return Self.respond(document, request: request, cacheControl: Self.versionCacheControl)
            }
        }
    }

    static let versionHeader = HTTPField.Name("X-Rivers-Version")!

    /// The comma-separated members of a header, trimmed, without Foundation (this is the hot path).
    static func members(_ header: String) -> [Substring] {
        header.split(separator: ",").map { member in
            var m = member[...]
            while m.first == " " || m.first == "\t" { m = m.dropFirst() }
            while m.last == " " || m.last == "\t" { m = m.dropLast() }
            return m
        }
    }

    static func acceptsGzip(_ request: Request) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        for member in members(header) {
            let parts = member.split(separator: ";")
            guard let coding = parts.first.map({ $0.filter { $0 != " " } }), coding.lowercased() == "gzip" || coding == "*" else { continue }
            // gzip;q=0 refuses it.
            if parts.dropFirst().contains(where: { $0.filter { $0 != " " } == "q=0" || $0.filter { $0 != " " } == "q=0.0" }) { return false }
            return true
        }
        return false
    }

    static func matches(_ ifNoneMatch: String, _ document: ServedDocument) -> Bool {
        if ifNoneMatch == document.etag || ifNoneMatch == document.gzipETag { return true }
        for member in members(ifNoneMatch) {
            let tag = member.hasPrefix("W/") ? member.dropFirst(2) : member
            if tag == "*" || tag == document.etag || tag == document.gzipETag { return true }
        }
        return false
    }

    static func respond(_ document: ServedDocument, request: Request, cacheControl: String) -> Response {
        let gzip = acceptsGzip(request)
        let etag = gzip ? document.gzipETag : document.etag
        var headers: HTTPFields = [
            .eTag: etag, .cacheControl: cacheControl, .vary: "Accept-Encoding",
            .accessControlAllowOrigin: "*", .accessControlExposeHeaders: "ETag, X-Rivers-Version",
        ]
        headers[Self.versionHeader] = document.numberText
        // If-None-Match compares weakly (RFC 9110 §13.1.2): W/ is ignored.
        if let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch, document) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        if gzip { headers[.contentEncoding] = "gzip" }
        let body = gzip ? document.gzip : document.body
        headers[.contentLength] = gzip ? document.gzipLength : document.bodyLength
        if request.method == .head {
            return Response(status: .ok, headers: headers, body: .init())
        }
        ServerMetrics.documentBytes.increment(by: body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}
