import Foundation
import Hummingbird
import Logging
import PostgresNIO
import Prometheus
import RiversCore
import RiversServices
import RiversStore

/// Server settings, read from the environment (each variable is listed in the README).
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var databaseURL = "postgres://postgres@localhost:5432/rivers"
    /// Connections to PostgreSQL this process opens at most (`DATABASE_POOL_SIZE`); two of them
    /// are held for LISTEN, and the database monitor opens one more of its own.
    public var databasePoolSize = DatabaseURL.defaultPoolSize
    /// The address apps and people reach this server at (public document URLs use it).
    public var publicBaseURL: String?
    public var logLevel: Logger.Level = .info
    /// `text` (the default) or `json`: one JSON object a line, for a log collector.
    public var logFormat: LogFormat = .text
    public var maxBodyBytes = 1 << 20
    /// The memory kept for published documents (current and numbered versions, least recently
    /// used out first); the published index is kept besides, a few bytes per app.
    public var documentCacheBytes = PublishedDocuments.defaultCacheBytes
    /// Days audit log entries are kept (`AUDIT_LOG_DAYS`); nil: for ever.
    public var auditLogDays: Int?
    /// Which fields of public answers carry their cache tags (`CDN_TAG_HEADERS`).
    public var cdnTagHeaders = CDNTagHeaders.both
    /// The editor's static files.
    public var publicDirectory = "Public"
    /// Apply pending migrations at start instead of refusing to start.
    public var autoMigrate = false
    /// Timeouts and the cap on open connections.
    public var connections = ConnectionLimits()
    /// Threads that run connections (NIO event loops); nil for one per CPU core.
    public var eventLoopThreads: Int?
    /// Where `/metrics` is served: nil on the main port; a port number for a listener of its own
    /// (on the same host), so the metrics need not be reachable where the API is.
    public var metricsPort: Int?
    /// On SIGTERM or SIGINT the server stops accepting connections and lets requests in flight
    /// finish for at most this long, then cancels what is left and closes the database pool.
    public var shutdownTimeout: Duration = .seconds(10)
    /// How many proxies in front of the server append to `X-Forwarded-For` (0: none, the TCP peer
    /// is the client). The client's address (sign-in throttling, sessions, the audit log) is the
    /// entry that many places from the right.
    public var trustedProxyHops = 0
    /// Who else receives one-time links (the hook for mail; by default nobody).
    public var linkDelivery: any LinkDelivery = NoLinkDelivery()
    /// Sign-in attempts from one address within 15 minutes before each must wait (doubling)
    /// after the one before (`SIGN_IN_ADDRESS_BURST`).
    public var signInAddressBurst = SignInThrottle().addressBurst
    /// Password checks from one address in flight at once (`PASSWORD_CHECKS_PER_ADDRESS`).
    public var passwordChecksPerAddress = Passwords.defaultPerAddress
    /// Whether webhooks may call addresses in private, loopback and reserved ranges (and plain
    /// http on loopback): for development only (`WEBHOOK_PRIVATE_NETWORKS=allow`).
    public var webhookPrivateNetworks = false
    /// The first wait before a failed webhook delivery is tried again, doubling each time
    /// (`WEBHOOK_RETRY_SECONDS`, 5).
    public var webhookRetrySeconds: Double = 5
    /// How webhook secrets are kept at rest: sealed under `WEBHOOK_SECRET_KEY` (the base64 of 32
    /// bytes) when it is set, as they are otherwise; `WEBHOOK_SECRET_KEY_PREVIOUS` opens what the
    /// key before it sealed.
    public var webhookSecretSeal = WebhookSecretSeal.none

    public init() {}

    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        var c = ServerConfiguration()
        if let v = env["HOST"], !v.isEmpty { c.host = v }
        if let v = env["PORT"], !v.isEmpty {
            guard let p = Int(v), (0...65535).contains(p) else { throw ConfigurationError("PORT must be a port number (got \"\(v)\")") }
            c.port = p
        }
        if let v = env["DATABASE_URL"], !v.isEmpty { c.databaseURL = v }
        if let v = env["DATABASE_POOL_SIZE"], !v.isEmpty {
            guard let n = Int(v), (4...1000).contains(n) else {
                throw ConfigurationError("DATABASE_POOL_SIZE must be a whole number from 4 to 1000 (got \"\(v.prefix(40))\")")
            }
            c.databasePoolSize = n
        }
        if let v = env["PUBLIC_BASE_URL"], !v.isEmpty { c.publicBaseURL = v.hasSuffix("/") ? String(v.dropLast()) : v }
        if let v = env["LOG_LEVEL"], !v.isEmpty {
            guard let level = Logger.Level(rawValue: v.lowercased()) else {
                throw ConfigurationError("LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical (got \"\(v)\")")
            }
            c.logLevel = level
        }
        if let v = env["LOG_FORMAT"], !v.isEmpty {
            guard let format = LogFormat(rawValue: v.lowercased()) else { throw ConfigurationError("LOG_FORMAT must be text or json (got \"\(v)\")") }
            c.logFormat = format
        }
        if let v = env["MAX_BODY_BYTES"], !v.isEmpty {
            guard let n = Int(v), n >= 1024 else { throw ConfigurationError("MAX_BODY_BYTES must be a whole number of bytes, at least 1024 (got \"\(v)\")") }
            c.maxBodyBytes = n
        }
        if let v = env["DOCUMENT_CACHE_BYTES"], !v.isEmpty {
            guard let n = Int(v), n >= 0, n <= 1 << 40 else {
                throw ConfigurationError("DOCUMENT_CACHE_BYTES must be a whole number of bytes from 0 to 2^40 (got \"\(v.prefix(40))\")")
            }
            c.documentCacheBytes = n
        }
        if let v = env["PUBLIC_DIR"], !v.isEmpty { c.publicDirectory = v }
        if let v = env["AUDIT_LOG_DAYS"], !v.isEmpty {
            guard let n = Int(v), (1...36_500).contains(n) else {
                throw ConfigurationError("AUDIT_LOG_DAYS must be a whole number of days from 1 to 36500 (got \"\(v.prefix(40))\")")
            }
            c.auditLogDays = n
        }
        if let v = env["CDN_TAG_HEADERS"], !v.isEmpty {
            guard let fields = CDNTagHeaders(setting: v) else {
                throw ConfigurationError("CDN_TAG_HEADERS must be both, surrogate-key, cache-tag or none (got \"\(v.prefix(40))\")")
            }
            c.cdnTagHeaders = fields
        }
        func seconds(_ name: String, _ range: ClosedRange<Int>) throws -> TimeAmount? {
            guard let v = env[name], !v.isEmpty else { return nil }
            guard let n = Int(v), range.contains(n) else {
                throw ConfigurationError("\(name) must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound) (got \"\(v)\")")
            }
            return .seconds(Int64(n))
        }
        if let t = try seconds("HEADER_TIMEOUT", 1...3600) { c.connections.headerTimeout = t }
        if let t = try seconds("SHUTDOWN_TIMEOUT", 1...3600) { c.shutdownTimeout = .nanoseconds(t.nanoseconds) }
        if let t = try seconds("BODY_TIMEOUT", 1...3600) { c.connections.bodyTimeout = t }
        if let t = try seconds("IDLE_TIMEOUT", 1...3600) { c.connections.idleTimeout = t }
        if let v = env["MAX_CONNECTIONS"], !v.isEmpty {
            guard let n = Int(v), (1...1_000_000).contains(n) else {
                throw ConfigurationError("MAX_CONNECTIONS must be a whole number from 1 to 1000000 (got \"\(v)\")")
            }
            c.connections.maxConnections = n
        }
        if let v = env["EVENT_LOOP_THREADS"], !v.isEmpty {
            guard let n = Int(v), (1...256).contains(n) else {
                throw ConfigurationError("EVENT_LOOP_THREADS must be a whole number from 1 to 256 (got \"\(v.prefix(40))\")")
            }
            c.eventLoopThreads = n
        }
        if let v = env["METRICS_PORT"], !v.isEmpty {
            guard let p = Int(v), (1...65535).contains(p) else { throw ConfigurationError("METRICS_PORT must be a port number (got \"\(v)\")") }
            c.metricsPort = p
        }
        if let v = env["TRUSTED_PROXY_HOPS"], !v.isEmpty {
            guard let n = Int(v), (0...10).contains(n) else {
                throw ConfigurationError("TRUSTED_PROXY_HOPS must be a whole number from 0 to 10 (got \"\(v.prefix(40))\")")
            }
            c.trustedProxyHops = n
        }
        if let v = env["SIGN_IN_ADDRESS_BURST"], !v.isEmpty {
            guard let n = Int(v), (1...1_000_000).contains(n) else {
                throw ConfigurationError("SIGN_IN_ADDRESS_BURST must be a whole number from 1 to 1000000 (got \"\(v.prefix(40))\")")
            }
            c.signInAddressBurst = n
        }
        if let v = env["WEBHOOK_PRIVATE_NETWORKS"], !v.isEmpty {
            guard v == "allow" || v == "deny" else {
                throw ConfigurationError("WEBHOOK_PRIVATE_NETWORKS must be allow or deny (got \"\(v.prefix(40))\")")
            }
            c.webhookPrivateNetworks = v == "allow"
        }
        if let v = env["WEBHOOK_RETRY_SECONDS"], !v.isEmpty {
            guard let n = Double(v), n.isFinite, (0.1...3600).contains(n) else {
                throw ConfigurationError("WEBHOOK_RETRY_SECONDS must be a number of seconds from 0.1 to 3600 (got \"\(v.prefix(40))\")")
            }
            c.webhookRetrySeconds = n
        }
        let previousKey = env["WEBHOOK_SECRET_KEY_PREVIOUS"].flatMap { $0.isEmpty ? nil : $0 }
        if let v = env["WEBHOOK_SECRET_KEY"], !v.isEmpty {
            do {
                c.webhookSecretSeal = try WebhookSecretSeal(base64: v, previous: previousKey)
            } catch {
                throw ConfigurationError(error.description)  // the keys themselves are never echoed
            }
        } else if previousKey != nil {
            throw ConfigurationError("WEBHOOK_SECRET_KEY_PREVIOUS opens what the key before WEBHOOK_SECRET_KEY sealed: set WEBHOOK_SECRET_KEY too")
        }
        if let v = env["PASSWORD_CHECKS_PER_ADDRESS"], !v.isEmpty {
            guard let n = Int(v), (1...Passwords.maxQueued).contains(n) else {
                throw ConfigurationError("PASSWORD_CHECKS_PER_ADDRESS must be a whole number from 1 to \(Passwords.maxQueued) (got \"\(v.prefix(40))\")")
            }
            c.passwordChecksPerAddress = n
        }
        if let v = env["AUTO_MIGRATE"], !v.isEmpty { c.autoMigrate = ["1", "true", "yes"].contains(v.lowercased()) }
        return c
    }

    public var baseURL: String { publicBaseURL ?? "http://\(host):\(port)" }

    /// What to warn about at start when session cookies go out without `Secure`: the server is
    /// reachable beyond this machine, and `PUBLIC_BASE_URL` does not say https.
    public var insecureCookieWarning: String? {
        if publicBaseURL?.lowercased().hasPrefix("https://") == true { return nil }
        let local = ["127.0.0.1", "localhost", "::1"].contains(host)
        if local, publicBaseURL == nil || publicBaseURL!.contains("://127.0.0.1") || publicBaseURL!.contains("://localhost") { return nil }
        return "session cookies are sent without Secure, since PUBLIC_BASE_URL (\(publicBaseURL ?? "unset")) is not https: behind a TLS proxy, set PUBLIC_BASE_URL=https://… so browsers never send them in the clear"
    }
}

public enum LogFormat: String, Sendable {
    case text, json
}

/// The group of the API's routes, `/api/v1`, with its middleware in order: the database's
/// availability, the caller (token or session), the app and the caller's role in it for routes
/// under `apps/{app}`, and `Idempotency-Key` (when `idempotency` is given). The fast tier's
/// router tests build theirs with this too, on in-memory callers (and keys, `InMemoryIdempotency`).
func apiRoutes(
    on router: Router<RiversContext>, callers: any CallerRepository, idempotency: (any IdempotencyRepository)?, configuration: ServerConfiguration,
    cookies: SessionCookies, routeLog: RouteLog, availability: DatabaseAvailability
) -> RouteRegistrar<RiversContext> {
    var api = router.group("api/v1")
        // Errors made problems here already (as the router's own middleware does), so that the
        // security policy goes on them too.
        .add(middleware: AnswerSecurityMiddleware())
        .add(middleware: ProblemMiddleware(bodyLimit: configuration.maxBodyBytes, routes: routeLog))
        .add(middleware: DatabaseAvailabilityMiddleware(availability: availability))
        .add(middleware: AuthMiddleware(store: callers, sessions: cookies, proxyHops: configuration.trustedProxyHops))
        .add(middleware: AppAccessMiddleware(store: callers))
    if let idempotency {
        api = api.add(middleware: IdempotencyMiddleware(store: idempotency, bodyLimit: configuration.maxBodyBytes))
    }
    return RouteRegistrar(group: api, prefix: "api/v1", log: routeLog)
}

/// The router: the API under `/api/v1` (token required), the OpenAPI document, a health check,
/// and the editor's static files at `/`.
public func buildRouter(
    store: Store, configuration: ServerConfiguration, documents: PublishedDocuments, routeLog: RouteLog = RouteLog(),
    availability: DatabaseAvailability = DatabaseAvailability(ready: true), events: AppEventHub = AppEventHub()
) -> Router<RiversContext> {
    let router = Router(context: RiversContext.self)
    // (The published documents in memory are answered before the router, by
    // `PublicDocumentByteHandler`; what it does not answer comes here.)
    // Added first so they also wrap the not-found responder: every answer carries its request id,
    // and every error leaves as problem+json.
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: RequestLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ProblemMiddleware(bodyLimit: configuration.maxBodyBytes, routes: routeLog))
    router.add(middleware: EditorFilesMiddleware(directory: configuration.publicDirectory, logger: store.logger))

    let open = RouteRegistrar(group: router.group(""), prefix: "", log: routeLog)
    open.on(.get, "api/openapi.json", need: .anyone) { _, _ in
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
    }
    // Readiness: whether the database answers, as the monitor last saw it (no query per call).
    open.on(.get, "health", need: .anyone) { _, _ in
        guard availability.isReady else { throw Problem.databaseUnavailable }
        return JSONResponse(["status": "ok"])
    }
    // Readiness for load balancers that should send traffic only once the published documents are
    // in memory too: the database answers and every current document is loaded.
    open.on(.get, "health/ready", need: .anyone) { _, _ in
        guard availability.isReady, documents.isLoaded else { throw Problem.databaseUnavailable }
        return JSONResponse(["status": "ok"])
    }
    // The process answers: for liveness probes, without touching the database.
    open.on(.get, "health/live", need: .anyone) { _, _ in
        JSONResponse(["status": "ok"])
    }

    PublicDocumentController(documents: documents, availability: availability).register(on: open)
    let helpers = APIHelpers(bodyLimit: configuration.maxBodyBytes)

    let cookies = SessionCookies(publicBaseURL: configuration.publicBaseURL)
    let routes = apiRoutes(
        on: router, callers: store, idempotency: store, configuration: configuration, cookies: cookies, routeLog: routeLog,
        availability: availability)
    let accounts = AccountService(
        store: store, passwords: Passwords(perAddress: configuration.passwordChecksPerAddress),
        throttle: SignInThrottle(addressBurst: configuration.signInAddressBurst))
    SessionController(accounts: accounts, sessions: store, helpers: helpers, baseURL: configuration.baseURL, cookies: cookies).register(on: routes)
    TeamController(people: store, team: TeamService(storage: store), apps: AppService(storage: store), helpers: helpers, baseURL: configuration.baseURL, delivery: configuration.linkDelivery)
        .register(on: routes)
    APIController(store: store, helpers: helpers, baseURL: configuration.baseURL).register(on: routes)
    PluginController(store: store, plugins: PluginService(storage: store), helpers: helpers).register(on: routes)
    FamilyController(families: FamilyService(storage: store), layouts: LayoutService(storage: store), texts: store, helpers: helpers)
        .register(on: routes.appScoped())
    ScreenController(screens: ScreenService(storage: store), texts: store, helpers: helpers).register(on: routes.appScoped())
    PublishController(
        store: store, publishing: PublishService(storage: store), imports: ImportService(storage: store), helpers: helpers, documents: documents, baseURL: configuration.baseURL)
        .register(on: routes)
    PreviewLinkController(store: store, helpers: helpers, baseURL: configuration.baseURL, availability: availability)
        .register(api: routes, open: open)
    AppEventsController(store: store, hub: events, helpers: helpers, callers: store).register(on: routes)
    ReleaseController(store: store, releases: ReleaseService(storage: store), helpers: helpers, documents: documents, baseURL: configuration.baseURL)
        .register(on: routes)
    WebhookController(store: store, webhooks: WebhookService(storage: store, seal: configuration.webhookSecretSeal), helpers: helpers, allowPrivate: configuration.webhookPrivateNetworks).register(on: routes)
    return router
}

/// The whole server: the router plus the database client, run as one service group. It serves
/// at once; `prepare` (the schema check) runs when the database first answers, and until then
/// the API answers 503 and `/health` says not ready. The database is checked on `monitorClient`
/// when one is given (`DatabaseMonitor.ownClient`, run by the application too), else on `client`.
public func buildApplication(
    configuration: ServerConfiguration, client: PostgresClient, monitorClient: PostgresClient? = nil, logger: Logger,
    metrics: PrometheusCollectorRegistry? = nil,
    prepare: @escaping @Sendable () async throws -> Void = {}
) -> some ApplicationProtocol {
    let store = Store(client: client, logger: logger)
    let documents = PublishedDocuments(store: store, cacheBytes: configuration.documentCacheBytes, tagHeaders: configuration.cdnTagHeaders)
    let availability = DatabaseAvailability()
    let events = AppEventHub()
    let router = buildRouter(store: store, configuration: configuration, documents: documents, availability: availability, events: events)
    var metricsServer: Application<RouterResponder<RiversContext>>?
    if let metrics {
        if let port = configuration.metricsPort {
            let metricsRouter = Router(context: RiversContext.self)
            MetricsEndpoint(registry: metrics).register(on: metricsRouter)
            metricsServer = Application(
                router: metricsRouter, configuration: .init(address: .hostname(configuration.host, port: port), serverName: "rivers-metrics"),
                logger: logger)
        } else {
            MetricsEndpoint(registry: metrics).register(on: router)
        }
    }
    var app = Application(
        router: router,
        server: RiversHTTP1Channel.server(documents: documents, limits: configuration.connections),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "rivers"),
        // A group of the size asked for lives as long as the process, as the shared one does.
        eventLoopGroupProvider: configuration.eventLoopThreads.map { .shared(MultiThreadedEventLoopGroup(numberOfThreads: $0)) } ?? .singleton,
        logger: logger)
    let url = try? DatabaseURL(configuration.databaseURL)
    let address = url.map { $0.socketPath ?? "\($0.host):\($0.port)" } ?? "(DATABASE_URL)"
    if let monitorClient { app.addServices(monitorClient) }
    app.addServices(
        client, DatabaseMonitor(client: monitorClient ?? client, availability: availability, address: address, logger: logger, prepare: prepare),
        PublishListener(documents: documents, client: client, logger: logger),
        AppEventListener(hub: events, client: client, logger: logger),
        ScheduleRunner(releases: ReleaseService(storage: store), documents: documents, logger: logger),
        WebhookDeliverer(
            store: store, logger: logger, retry: WebhookRetry(base: configuration.webhookRetrySeconds),
            allowPrivate: configuration.webhookPrivateNetworks, seal: configuration.webhookSecretSeal))
    if let days = configuration.auditLogDays { app.addServices(AuditLogTrimmer(store: store, days: days, logger: logger)) }
    if let metricsServer { app.addServices(metricsServer) }
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
