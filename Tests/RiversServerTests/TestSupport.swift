import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import RiversCore
@testable import RiversServer
import RiversServices
import RiversStore
import Testing

struct SetupError: Error, CustomStringConvertible {
    var description: String
}

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

let testLogger: Logger = {
    var logger = Logger(label: "rivers-tests")
    logger.logLevel = .error
    return logger
}()

/// The real PostgreSQL the suite runs against: `DATABASE_URL` (set by `make test`) names the
/// server; each run creates a fresh database of its own on it and migrates it once.
enum TestDatabase {
    static func serverURL() throws -> DatabaseURL {
        guard let text = ProcessInfo.processInfo.environment["DATABASE_URL"], !text.isEmpty else {
            throw SetupError(description: "DATABASE_URL is not set: run the suite with `make test`, which starts a throwaway PostgreSQL")
        }
        return try DatabaseURL(text)
    }

    static var migrations: [Migration] {
        get throws { try Migration.load(from: repositoryRoot.appendingPathComponent("Migrations")) }
    }

    /// A client on a new, empty database, running until the process ends.
    static func freshDatabase(prefix: String = "rivers_test") async throws -> (PostgresClient, DatabaseURL) {
        let server = try serverURL()
        let name = "\(prefix)_\(UUIDText.random().prefix(8))"
        let admin = PostgresClient(configuration: server.clientConfiguration(), backgroundLogger: testLogger)
        let adminTask = Task { await admin.run() }
        // The name is made here from hex digits, never from input: safe to put in the statement.
        try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: testLogger)
        adminTask.cancel()
        let url = server.with(database: name)
        let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: testLogger)
        Task.detached { await client.run() }
        return (client, url)
    }

    /// A new database with every migration applied (for a test that must be alone in one).
    static func migratedDatabase(prefix: String = "rivers_test") async throws -> (PostgresClient, DatabaseURL) {
        let (client, url) = try await freshDatabase(prefix: prefix)
        try await Migrator(client: client, migrations: try migrations, logger: testLogger).migrate()
        return (client, url)
    }

    /// One migrated database shared by the whole run (tests isolate themselves by app).
    static let shared: Task<(PostgresClient, DatabaseURL), any Error> = Task { try await migratedDatabase() }

    static func client() async throws -> PostgresClient { try await shared.value.0 }

    /// A client on the shared database that is not running yet: for what runs its client itself
    /// (a whole application). `run()` may be called once per client.
    static func newClient() async throws -> PostgresClient {
        PostgresClient(configuration: try await shared.value.1.clientConfiguration(), backgroundLogger: testLogger)
    }
}

/// A response with its body parsed as JSON when it is JSON.
struct APIResponse {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var text: String
    var json: JSONValue

    var etag: String? { headers[.eTag] }
    subscript(key: String) -> JSONValue? { json[key] }
    /// The pointers of a validation problem's errors.
    var pointers: [String] { (json["errors"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue } }
}

/// A live server on a random port, a new app and a token for it.
struct TestAPI {
    let client: any TestClientProtocol
    let store: Store
    let app: App
    let token: String

    var base: String { "/api/v1/apps/\(app.slug)" }

    /// `path` is relative to the app (`families/FAMILY_1`) unless it starts with `/`.
    @discardableResult
    func request(
        _ method: HTTPRequest.Method, _ path: String, json: JSONValue? = nil, body: String? = nil, bytes: [UInt8]? = nil,
        headers: HTTPFields = [:], token: String? = nil, authorized: Bool = true
    ) async throws -> APIResponse {
        var headers = headers
        if authorized { headers[.authorization] = "Bearer \(token ?? self.token)" }
        var buffer: ByteBuffer?
        if let json {
            buffer = ByteBuffer(bytes: json.serialized())
        } else if let body {
            buffer = ByteBuffer(string: body)
        } else if let bytes {
            buffer = ByteBuffer(bytes: bytes)
        }
        if buffer != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        let uri = path.hasPrefix("/") ? path : "\(base)/\(path)"
        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: buffer)
        let text = String(buffer: response.body)
        let parsed = (try? JSONValue.parse(Array(text.utf8))) ?? .null
        ResponseLog.record(method: method, uri: uri, status: response.status, headers: response.headers, text: text)
        return APIResponse(status: response.status, headers: response.headers, text: text, json: parsed)
    }

    func create(_ collection: String, _ json: JSONValue) async throws -> APIResponse {
        let response = try await request(.post, collection, json: json)
        #expect(response.status == .created, "creating in \(collection): \(response.text)")
        return response
    }
}

/// Every response the API tests receive, one JSON line each, in the file named by
/// `RIVERS_API_RESPONSE_LOG` (set by `make test`): `scripts/validate-api-responses.py` then checks
/// each against the OpenAPI document, so a drift between the API and its document fails the suite.
enum ResponseLog {
    static let path = ProcessInfo.processInfo.environment["RIVERS_API_RESPONSE_LOG"].flatMap { $0.isEmpty ? nil : $0 }

    static func record(method: HTTPRequest.Method, uri: String, status: HTTPResponse.Status, headers: HTTPFields, text: String) {
        guard let path else { return }
        let line: JSONValue = [
            "method": .string(method.rawValue), "uri": .string(uri), "status": .number(Double(status.code)),
            "content_type": headers[.contentType].map(JSONValue.string) ?? .null, "body": .string(text),
        ]
        // One write(2) per line on a file opened with O_APPEND: lines from parallel tests never interleave.
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = line.serialized() + [UInt8(ascii: "\n")]
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// The store on the shared database and a new app with a token, for tests that build their own
/// router or application.
func storeWithApp(slugPrefix: String) async throws -> (store: Store, app: App, token: String) {
    let store = Store(client: try await TestDatabase.client(), logger: testLogger)
    let app = try await AppService(storage: store).create(slug: "\(slugPrefix)-\(UUIDText.random().prefix(8))", name: "Test app")
    return (store, app, try await TeamService(storage: store).createToken(appId: app.id).token)
}

/// The key the tests seal webhook secrets with.
let testWebhookSeal = try! WebhookSecretSeal(base64: Data(repeating: 7, count: 32).base64EncodedString())

func testConfiguration() -> ServerConfiguration {
    var c = ServerConfiguration()
    c.publicDirectory = repositoryRoot.appendingPathComponent("Public").path
    c.maxBodyBytes = 64 * 1024
    // The suite's tests run in parallel, all from 127.0.0.1, on one database: the per-address
    // sign-in limits are tested on their own (TeamTests), with their defaults.
    c.signInAddressBurst = 1_000_000
    c.passwordChecksPerAddress = Passwords.maxQueued
    // Webhook receivers in the tests listen on 127.0.0.1 (the rules for real ones: WebhooksTests).
    c.webhookPrivateNetworks = true
    // Webhook secrets sealed at rest, as a hosted server keeps them (a fixed test key).
    c.webhookSecretSeal = testWebhookSeal
    // HummingbirdTesting's live client connects when a test starts and sends its first request
    // after the test's own setup, which on a loaded machine (the whole suite on two cores) has
    // taken longer than the 10 s a new connection gets: the server closed it, and the request
    // failed with "I/O on closed channel". The timeouts themselves are tested against
    // `rivers serve` (Tests/hostile).
    c.connections.headerTimeout = .seconds(300)
    c.connections.idleTimeout = .seconds(300)
    return c
}

/// Runs `body` against a live server with a fresh app; `routeLog` collects the routes, and
/// `jsonWork`, when given, counts the JSON texts each request parses and writes in the server.
/// `loadIndex`: the published index loaded at start, as `rivers serve` has it before it is ready
/// (kept current there by LISTEN/NOTIFY, which these servers do not run: without it, every public
/// read not answered from memory asks the database, so that changes made by others are seen).
func withAPI(
    routeLog: RouteLog = RouteLog(), jsonWork: JSONWorkCount? = nil, loadIndex: Bool = false, tagHeaders: CDNTagHeaders = .both,
    _ body: @Sendable (TestAPI) async throws -> Void
) async throws {
    let client = try await TestDatabase.client()
    let store = Store(client: client, logger: testLogger)
    let app = try await AppService(storage: store).create(slug: "t-\(UUIDText.random().prefix(8))", name: "Test app")
    let token = try await TeamService(storage: store).createToken(appId: app.id).token
    let documents = PublishedDocuments(store: store, tagHeaders: tagHeaders)
    if loadIndex { try await documents.reloadAll() }
    let configuration = testConfiguration()
    let router = buildRouter(store: store, configuration: configuration, documents: documents, routeLog: routeLog)
    // The server `rivers serve` runs, public document handler included.
    let application = Application(
        responder: CountingJSONWork(inner: router.buildResponder(), count: jsonWork),
        server: RiversHTTP1Channel.server(documents: documents, limits: configuration.connections),
        // Named as `rivers serve` names it (only the framework's answers carry the name).
        configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "rivers"), logger: testLogger)
    try await application.test(.live) { client in
        try await body(TestAPI(client: client, store: store, app: app, token: token))
    }
}

/// The router's responder, with the JSON work of each request counted in `count` (when given).
struct CountingJSONWork<Inner: HTTPResponder>: HTTPResponder where Inner.Context == RiversContext {
    let inner: Inner
    let count: JSONWorkCount?

    func respond(to request: Request, context: RiversContext) async throws -> Response {
        guard let count else { return try await inner.respond(to: request, context: context) }
        return try await JSONWork.$count.withValue(count) { try await inner.respond(to: request, context: context) }
    }
}

// MARK: - Sample documents

/// The worked family: 320 wide, insets 10/10, spacing 10; one column 300, two 145.
let phoneFamily: JSONValue = [
    "id": "FAMILY_1", "name": "Phones",
    "reference_size": ["width": 320, "height": 568],
    "insets": ["top": 10, "left": 10, "bottom": 10, "right": 10],
    "interitem_spacing": 10, "line_spacing": 10,
    "cell_styles": [
        ["id": "LIST_1", "columns": 1, "height": 80],
        ["id": "GRID_1", "columns": 2, "aspect_ratio": 1.5],
    ],
]

func component(_ type: String, _ styles: [String] = ["LIST_1"], source: String? = nil, extra: [String: JSONValue] = [:]) -> JSONValue {
    var o: [String: JSONValue] = ["component_type": .string(type), "cell_styles": .array(styles.map(JSONValue.string))]
    if let source { o["data"] = ["source": .string(source), "type": "APPLICASTER_COLLECTION"] }
    o.merge(extra) { _, b in b }
    return .object(o)
}

func screenBody(_ name: String, components: [JSONValue] = [], extra: [String: JSONValue] = [:]) -> JSONValue {
    var o: [String: JSONValue] = ["name": .string(name), "family": "FAMILY_1", "ui_components": .array(components)]
    o.merge(extra) { _, b in b }
    return .object(o)
}

extension JSONValue {
    /// Follows a path of keys and indexes, for tests.
    func at(_ path: Any...) -> JSONValue? {
        var current: JSONValue? = self
        for step in path {
            if let key = step as? String { current = current?[key] }
            else if let index = step as? Int {
                guard let a = current?.arrayValue, a.indices.contains(index) else { return nil }
                current = a[index]
            }
        }
        return current
    }
}

/// The server's API group on a router alone (no sockets, no PostgreSQL), as the fast tier's
/// router tests use it: request ids, problems, and `apiRoutes`' authentication and app access on
/// `callers`, and `Idempotency-Key` when `idempotency` is given (in memory, a key is not marked
/// carried out inside the write's transaction: that is PostgreSQL's part).
func apiRouterAlone(
    callers: some CallerRepository, cookies: SessionCookies = SessionCookies(publicBaseURL: nil), idempotency: (any IdempotencyRepository)? = nil
) -> (router: Router<RiversContext>, routes: RouteRegistrar<RiversContext>, log: RouteLog) {
    let log = RouteLog()
    let router = Router(context: RiversContext.self)
    router.add(middleware: RequestIdMiddleware())
    router.add(middleware: ProblemMiddleware(bodyLimit: 64 * 1024, routes: log))
    let routes = apiRoutes(
        on: router, callers: callers, idempotency: idempotency, configuration: ServerConfiguration(), cookies: cookies,
        routeLog: log, availability: DatabaseAvailability(ready: true))
    return (router, routes, log)
}

/// An answer of the router alone: status, headers, the body parsed (null when it is not JSON).
struct RouterAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var json: JSONValue
    var pointers: [String] { (json["errors"]?.arrayValue ?? []).compactMap { $0["pointer"]?.stringValue } }
    var isProblem: Bool { headers[.contentType] == "application/problem+json" }
    /// A list's items.
    var items: [JSONValue] { json["items"]?.arrayValue ?? [] }
    /// The session cookie set, as a request sends it back.
    var cookie: String? { headers[.setCookie]?.split(separator: ";").first.map(String.init) }
}

/// `method path` under `/api/v1/` on the router alone, with `json` as its body.
func callAPI(
    _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ path: String, headers: HTTPFields = [:], json: JSONValue? = nil
) async throws -> RouterAnswer {
    var headers = headers
    if json != nil { headers[.contentType] = "application/json" }
    return try await client.execute(uri: "/api/v1/" + path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0.serialized()) }) {
        RouterAnswer(status: $0.status, headers: $0.headers, json: (try? JSONValue.parse(Array(buffer: $0.body))) ?? .null)
    }
}

/// PostgreSQL's statistics (index scans, rows read) as `read` gives them, once they moved from
/// `before`: a backend flushes its counts once idle, within about 10 seconds, so a test waits up
/// to 15 for them (and gets `before` back if they never moved).
func statisticsAfter(_ before: Int, _ read: () async throws -> Int) async throws -> Int {
    let deadline = ContinuousClock.now + .seconds(15)
    var after = before
    while after == before, ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(100))
        after = try await read()
    }
    return after
}
