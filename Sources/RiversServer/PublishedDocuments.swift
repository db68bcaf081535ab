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

    private init() {
        number = 0
        body = ByteBuffer()
        gzip = ByteBuffer()
        etag = ""
        gzipETag = ""
        numberText = "0"
        bodyLength = "0"
        gzipLength = "0"
    }

    static let empty = ServedDocument()
}

/// The published documents this process serves. It knows every app's current version (the
/// published index: slug, number and hash, a few bytes per app, loaded at start and kept current
/// by LISTEN/NOTIFY and a periodic check that reads only the index) and keeps the documents
/// themselves in a byte-budgeted LRU cache (`DOCUMENT_CACHE_BYTES`), current and numbered
/// versions alike: the hot set is served from memory, also while the database is away; a cold
/// document is read once, when first asked for.
public final class PublishedDocuments: Sendable {
    private let index = NIOLockedValueBox<[String: PublishedIndexEntry]>([:])
    private let cache: NIOLockedValueBox<DocumentCache>
    private let loaded = NIOLockedValueBox(false)
    let store: any VersionRepository
    /// The default budget of the document cache: 128 MiB.
    public static let defaultCacheBytes = 128 * 1024 * 1024

    public init(store: any VersionRepository, cacheBytes: Int = PublishedDocuments.defaultCacheBytes) {
        self.store = store
        self.cache = NIOLockedValueBox(DocumentCache(budget: cacheBytes))
    }

    /// The published index has been loaded (and is kept current from then on).
    var isLoaded: Bool { loaded.withLockedValue { $0 } }

    /// Bytes and documents in the cache now.
    var cacheUsage: (bytes: Int, count: Int) { cache.withLockedValue { ($0.bytes, $0.count) } }

    /// Whether version `number` of `slug` is in memory (so it can be served without the database).
    func hasVersion(slug: String, number: Int) -> Bool {
        cache.withLockedValue { $0.contains(.init(slug: slug, number: number)) }
    }

    /// Whether the current document of `slug` can be answered without the database: it is
    /// cached, or the index says nothing is published.
    func canServeCurrent(slug: String) -> Bool {
        guard isLoaded else { return false }
        guard let entry = index.withLockedValue({ $0[slug] }) else { return true }
        return hasVersion(slug: slug, number: entry.number)
    }

    func currentDocument(slug: String) async throws -> ServedDocument? {
        if isLoaded {
            guard let entry = index.withLockedValue({ $0[slug] }) else { return nil }
            return try await document(slug: slug, number: entry.number)
        }
        // Not warm yet (the database was away at start): ask it directly.
        ServerMetrics.documentCacheMisses.increment()
        guard let version = try await store.currentDocument(slug: slug) else { return nil }
        let document = ServedDocument(version)
        cache.withLockedValue { $0.insert(.init(slug: slug, number: version.number), document) }
        return document
    }

    func document(slug: String, number: Int) async throws -> ServedDocument? {
        let key = DocumentCache.Key(slug: slug, number: number)
        if let document = cache.withLockedValue({ $0.get(key) }) {
            ServerMetrics.documentCacheHits.increment()
            return document
        }
        ServerMetrics.documentCacheMisses.increment()
        guard let version = try await store.document(slug: slug, number: number) else { return nil }
        let document = ServedDocument(version)
        cache.withLockedValue { $0.insert(key, document) }
        return document
    }

    /// What is served for one app changed (a publish here, or a notification from another
    /// process): the index follows, and the new document is kept hot.
    func update(slug: String, version: PublishedVersion?) {
        guard let version else {
            index.withLockedValue { _ = $0.removeValue(forKey: slug) }
            return
        }
        let document = ServedDocument(version)
        cache.withLockedValue { $0.insert(.init(slug: slug, number: version.number), document) }
        index.withLockedValue { $0[slug] = PublishedIndexEntry(slug: slug, number: version.number, sha256: version.sha256) }
    }

    /// After a notification: the app's index entry is read again; when its previous document was
    /// hot, the new one is read at once so that the app stays served from memory.
    func refresh(slug: String) async throws {
        guard let entry = try await store.publishedIndexEntry(slug: slug) else {
            index.withLockedValue { _ = $0.removeValue(forKey: slug) }
            return
        }
        let previous = index.withLockedValue { $0[slug] }
        if let previous, previous.number != entry.number, hasVersion(slug: slug, number: previous.number) {
            _ = try await document(slug: slug, number: entry.number)
        }
        index.withLockedValue { $0[slug] = entry }
    }

    /// Reads the whole published index (numbers and hashes, not documents) and serves from it.
    func reloadAll() async throws {
        let entries = try await store.publishedIndex()
        var fresh: [String: PublishedIndexEntry] = [:]
        fresh.reserveCapacity(entries.count)
        for entry in entries { fresh[entry.slug] = entry }
        index.withLockedValue { $0 = fresh }
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
                guard documents.canServeCurrent(slug: slug) || availability.isReady else { throw Problem.databaseUnavailable }
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
