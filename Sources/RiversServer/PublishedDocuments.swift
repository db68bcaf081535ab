import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOHTTP1
import PostgresNIO
import RiversCore
import RiversStore
import ServiceLifecycle

/// A published document ready to send: its bytes, its gzip bytes, their ETags, and the whole
/// header block of every answer it can give, built once (no per-request string work).
struct ServedDocument: Sendable {
    var number: Int
    var body: ByteBuffer
    var gzip: ByteBuffer
    var etag: String
    var gzipETag: String
    /// Headers of a 200 (and HEAD) and of a 304, by [current or numbered URL][gzip or not]: as
    /// HTTP types for the routes, and as NIO's response heads for `PublicDocumentHandler`.
    var okHeaders: [[HTTPFields]]
    var notModifiedHeaders: [[HTTPFields]]
    var okHead: [[HTTPResponseHead]]
    var notModifiedHead: [[HTTPResponseHead]]

    init(_ version: PublishedVersion) {
        number = version.number
        body = ByteBuffer(bytes: version.document)
        gzip = ByteBuffer(bytes: version.gzip)
        // Strong validators, one per representation (RFC 9110 §8.8.3).
        etag = "\"\(version.sha256)\""
        gzipETag = "\"\(version.sha256)-gzip\""
        var ok: [[HTTPFields]] = []
        var notModified: [[HTTPFields]] = []
        for cacheControl in [PublicDocumentController.currentCacheControl, PublicDocumentController.versionCacheControl] {
            var okRow: [HTTPFields] = []
            var notModifiedRow: [HTTPFields] = []
            for gzipped in [false, true] {
                var headers: HTTPFields = [
                    .eTag: gzipped ? gzipETag : etag, .cacheControl: cacheControl, .vary: "Accept-Encoding",
                    .accessControlAllowOrigin: "*", .accessControlExposeHeaders: "ETag, X-Rivers-Version",
                    .contentTypeOptions: "nosniff",
                ]
                headers[PublicDocumentController.versionHeader] = String(version.number)
                notModifiedRow.append(headers)
                headers[.contentType] = "application/json; charset=utf-8"
                if gzipped { headers[.contentEncoding] = "gzip" }
                headers[.contentLength] = String(gzipped ? version.gzip.count : version.document.count)
                okRow.append(headers)
            }
            ok.append(okRow)
            notModified.append(notModifiedRow)
        }
        okHeaders = ok
        notModifiedHeaders = notModified
        func head(_ status: HTTPResponseStatus) -> (HTTPFields) -> HTTPResponseHead {
            { fields in HTTPResponseHead(version: .http1_1, status: status, headers: HTTPHeaders(fields.map { ($0.name.rawName, $0.value) })) }
        }
        okHead = ok.map { $0.map(head(.ok)) }
        notModifiedHead = notModified.map { $0.map(head(.notModified)) }
    }

    private init() {
        number = 0
        body = ByteBuffer()
        gzip = ByteBuffer()
        etag = ""
        gzipETag = ""
        okHeaders = []
        notModifiedHeaders = []
        okHead = []
        notModifiedHead = []
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

    /// The document if it is in memory: the current one (`number` nil) or a numbered version;
    /// nil when answering needs the database or a 404. No I/O: the public fast path uses it.
    func cached(slug: String, number: Int?) -> ServedDocument? {
        let key: DocumentCache.Key
        if let number {
            key = .init(slug: slug, number: number)
        } else {
            guard isLoaded, let entry = index.withLockedValue({ $0[slug] }) else { return nil }
            key = .init(slug: slug, number: entry.number)
        }
        return cache.withLockedValue { $0.get(key) }
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
                return Self.respond(document, request: request, current: true)
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
                return Self.respond(document, request: request, current: false)
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

    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        // What browsers and app clients send ("gzip", "gzip, deflate, br"): no weights to read.
        if header == "gzip" || header == "gzip, deflate, br" || header == "gzip, deflate" { return true }
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

    static func respond(_ document: ServedDocument, request: Request, current: Bool) -> Response {
        let answer = DocumentAnswer(
            document, isHead: request.method == .head, acceptEncoding: request.headers[.acceptEncoding],
            ifNoneMatch: request.headers[.ifNoneMatch], current: current)
        if answer.notModified {
            return Response(status: .notModified, headers: document.notModifiedHeaders[answer.row][answer.column])
        }
        return Response(status: .ok, headers: document.okHeaders[answer.row][answer.column], body: .init(byteBuffer: answer.body ?? ByteBuffer()))
    }
}

/// How a document answers one GET or HEAD: a 304 or a 200, which of its prebuilt header blocks,
/// and the bytes to send (none for a 304 or a HEAD). The routes and `PublicDocumentHandler` both
/// answer through it.
struct DocumentAnswer {
    var notModified: Bool
    /// 0 for the current URL, 1 for a numbered version's.
    var row: Int
    /// 0 for the document as is, 1 for its gzip.
    var column: Int
    var body: ByteBuffer?

    init(_ document: ServedDocument, isHead: Bool, acceptEncoding: String?, ifNoneMatch: String?, current: Bool) {
        let gzip = PublicDocumentController.acceptsGzip(acceptEncoding)
        row = current ? 0 : 1
        column = gzip ? 1 : 0
        // If-None-Match compares weakly (RFC 9110 §13.1.2): W/ is ignored.
        notModified = ifNoneMatch.map { PublicDocumentController.matches($0, document) } ?? false
        if notModified || isHead {
            body = nil
        } else {
            let bytes = gzip ? document.gzip : document.body
            ServerMetrics.documentBytes.increment(by: bytes.readableBytes)
            body = bytes
        }
    }
}

/// The paths of the public documents.
enum PublicDocumentPath {
    /// `/rivers/{slug}/rivers.json` (number nil) or `/rivers/{slug}/v{n}/rivers.json`, with or
    /// without a query (ignored); nil for any other path, or one that needs decoding (the routes
    /// handle those). Byte by byte: this runs on every app start.
    static func parse(_ target: String) -> (slug: String, number: Int?)? {
        var target = target
        return target.withUTF8 { parse($0) }
    }

    private static let prefix = Array("/rivers/".utf8), suffix = Array("/rivers.json".utf8)

    static func parse(_ target: UnsafeBufferPointer<UInt8>) -> (slug: String, number: Int?)? {
        let slash = UInt8(ascii: "/")
        let end = target.firstIndex(of: UInt8(ascii: "?")) ?? target.count
        guard end > prefix.count + suffix.count, target[0..<prefix.count].elementsEqual(prefix),
            target[(end - suffix.count)..<end].elementsEqual(suffix)
        else { return nil }
        let middle = target[prefix.count..<(end - suffix.count)]
        if middle.contains(UInt8(ascii: "%")) { return nil }
        guard let cut = middle.firstIndex(of: slash) else {
            return (String(decoding: UnsafeBufferPointer(rebasing: middle), as: UTF8.self), nil)
        }
        let slug = middle[..<cut], version = middle[(cut + 1)...]
        guard !slug.isEmpty, version.count > 1, version.count <= 10, version.first == UInt8(ascii: "v") else { return nil }
        var number = 0
        for byte in version.dropFirst() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            number = number * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard number > 0 else { return nil }
        return (String(decoding: UnsafeBufferPointer(rebasing: slug), as: UTF8.self), number)
    }
}
