import Foundation
import Hummingbird
import Logging
import PostgresNIO
import RiversCore
import RiversStore

/// Server settings, read from the environment (each variable is listed in the README).
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var databaseURL = "postgres://postgres@localhost:5432/rivers"
    /// The address apps and people reach this server at (public document URLs use it).
    public var publicBaseURL: String?
    public var logLevel: Logger.Level = .info
    public var maxBodyBytes = 1 << 20
    /// The editor's static files.
    public var publicDirectory = "Public"
    /// Apply pending migrations at start instead of refusing to start.
    public var autoMigrate = false
    /// Timeouts and the cap on open connections.
    public var connections = ConnectionLimits()

    public init() {}

    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        var c = ServerConfiguration()
        if let v = env["HOST"], !v.isEmpty { c.host = v }
        if let v = env["PORT"], !v.isEmpty {
            guard let p = Int(v), (0...65535).contains(p) else { throw ConfigurationError("PORT must be a port number (got \"\(v)\")") }
            c.port = p
        }
        if let v = env["DATABASE_URL"], !v.isEmpty { c.databaseURL = v }
        if let v = env["PUBLIC_BASE_URL"], !v.isEmpty { c.publicBaseURL = v.hasSuffix("/") ? String(v.dropLast()) : v }
        if let v = env["LOG_LEVEL"], !v.isEmpty {
            guard let level = Logger.Level(rawValue: v.lowercased()) else {
                throw ConfigurationError("LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical (got \"\(v)\")")
            }
            c.logLevel = level
        }
        if let v = env["MAX_BODY_BYTES"], !v.isEmpty {
            guard let n = Int(v), n >= 1024 else { throw ConfigurationError("MAX_BODY_BYTES must be a whole number of bytes, at least 1024 (got \"\(v)\")") }
            c.maxBodyBytes = n
        }
        if let v = env["PUBLIC_DIR"], !v.isEmpty { c.publicDirectory = v }
        func seconds(_ name: String, _ range: ClosedRange<Int>) throws -> TimeAmount? {
            guard let v = env[name], !v.isEmpty else { return nil }
            guard let n = Int(v), range.contains(n) else {
                throw ConfigurationError("\(name) must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound) (got \"\(v)\")")
            }
            return .seconds(Int64(n))
        }
        if let t = try seconds("HEADER_TIMEOUT", 1...3600) { c.connections.headerTimeout = t }
        if let t = try seconds("BODY_TIMEOUT", 1...3600) { c.connections.bodyTimeout = t }
        if let t = try seconds("IDLE_TIMEOUT", 1...3600) { c.connections.idleTimeout = t }
        if let v = env["MAX_CONNECTIONS"], !v.isEmpty {
            guard let n = Int(v), (1...1_000_000).contains(n) else {
                throw ConfigurationError("MAX_CONNECTIONS must be a whole number from 1 to 1000000 (got \"\(v)\")")
            }
            c.connections.maxConnections = n
        }
        if let v = env["AUTO_MIGRATE"], !v.isEmpty { c.autoMigrate = ["1", "true", "yes"].contains(v.lowercased()) }
        return c
    }

    public var baseURL: String { publicBaseURL ?? "http://\(host):\(port)" }
}

/// The router: the API under `/api/v1` (token required), the OpenAPI document, a health check,
/// and the editor's static files at `/`.
public func buildRouter(
    store: Store, configuration: ServerConfiguration, documents: PublishedDocuments, routeLog: RouteLog = RouteLog()
) -> Router<RiversContext> {
    let router = Router(context: RiversContext.self)
    // Added first so they also wrap the not-found responder: every answer carries its request id,
    // and every error leaves as problem+json.
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: ProblemMiddleware(bodyLimit: configuration.maxBodyBytes, routes: routeLog))
    router.add(middleware: EditorFilesMiddleware(directory: configuration.publicDirectory, logger: store.logger))

    let open = RouteRegistrar(group: router.group(""), prefix: "", log: routeLog)
    open.on(.get, "api/openapi.json") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
    }
    open.on(.get, "health") { _, _ in
        try await store.client.query("SELECT 1", logger: store.logger)
        return JSONResponse(["status": "ok"])
    }
    // The process answers: for liveness probes, without touching the database.
    open.on(.get, "health/live") { _, _ in
        JSONResponse(["status": "ok"])
    }

    PublicDocumentController(documents: documents).register(on: open)

    let api = router.group("api/v1").add(middleware: TokenAuthMiddleware(store: store))
    let helpers = APIHelpers(bodyLimit: configuration.maxBodyBytes)
    let routes = RouteRegistrar(group: api, prefix: "api/v1", log: routeLog)
    APIController(store: store, helpers: helpers, baseURL: configuration.baseURL).register(on: routes)
    PublishController(store: store, helpers: helpers, documents: documents, baseURL: configuration.baseURL).register(on: routes)
    return router
}

/// The whole server: the router plus the database client, run as one service group.
public func buildApplication(configuration: ServerConfiguration, client: PostgresClient, logger: Logger) -> some ApplicationProtocol {
    let store = Store(client: client, logger: logger)
    let documents = PublishedDocuments(store: store)
    let router = buildRouter(store: store, configuration: configuration, documents: documents)
    let limits = configuration.connections
    let counter = ConnectionCounter()
    var app = Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionGuard(limits: limits, counter: counter)])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "rivers"),
        logger: logger)
    app.addServices(client, PublishListener(documents: documents, client: client, logger: logger))
    return app
}

/// The OpenAPI 3.1 document of the API, shipped as a resource of this module.
enum OpenAPIDocument {
    static let bytes: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
              let data = try? Data(contentsOf: url)
        else { return Array(#"{"error": "openapi.json missing from the build"}"#.utf8) }
        return Array(data)
    }()
}
