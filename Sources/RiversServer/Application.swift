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
    // Added first so it also wraps the not-found responder: every error leaves as problem+json.
    router.add(middleware: ProblemMiddleware(bodyLimit: configuration.maxBodyBytes))
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

    PublicDocumentController(documents: documents).register(on: open)

    let api = router.group("api/v1").add(middleware: TokenAuthMiddleware(store: store))
    let helpers = APIHelpers(store: store, bodyLimit: configuration.maxBodyBytes)
    let routes = RouteRegistrar(group: api, prefix: "api/v1", log: routeLog)
    APIController(store: store, helpers: helpers, baseURL: configuration.baseURL).register(on: routes)
    PublishController(store: store, helpers: helpers, documents: documents, baseURL: configuration.baseURL).register(on: routes)
    return router
}

/// The editor's static files, for every path outside the API and the published documents (so
/// those never touch the file system).
struct EditorFilesMiddleware: RouterMiddleware {
    typealias Context = RiversContext
    let files: FileMiddleware<RiversContext, LocalFileSystem>

    init(directory: String, logger: Logger) {
        files = FileMiddleware(directory, searchForIndexHtml: true, logger: logger)
    }

    func handle(_ request: Request, context: RiversContext, next: (Request, RiversContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/api/") || path.hasPrefix("/rivers/") || path == "/health" {
            return try await next(request, context)
        }
        return try await files.handle(request, context: context, next: next)
    }
}

/// The whole server: the router plus the database client, run as one service group.
public func buildApplication(configuration: ServerConfiguration, client: PostgresClient, logger: Logger) -> some ApplicationProtocol {
    let store = Store(client: client, logger: logger)
    let documents = PublishedDocuments(store: store)
    let router = buildRouter(store: store, configuration: configuration, documents: documents)
    var app = Application(
        router: router,
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
