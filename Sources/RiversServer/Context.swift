import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import NIOCore
import NIOConcurrencyHelpers
import NIOPosix
import RiversCore
import RiversServices
import RiversStore

/// Who is asking: a person signed in through the editor (a session cookie), or an API token.
public enum Principal: Sendable {
    case person(SignedInSession)
    case token(app: App, token: TokenInfo)

    /// How the audit log and "published by" name the caller.
    var displayName: String {
        switch self {
        case .person(let session): return session.user.displayName
        case .token(_, let token): return "token \(token.name)"
        }
    }

    /// What a token or an invitation made by this caller is revoked with.
    var grantor: Grantor {
        switch self {
        case .person(let session): return .person(userId: session.user.id)
        case .token(_, let token): return .token(id: token.id)
        }
    }

    /// The expiry of what this caller makes that could outlive it (a token, a preview link): the
    /// one asked for, else `fallback`, never later than the caller's own token's expiry, so that
    /// a token about to expire cannot leave a lasting one behind (what a token grants goes with
    /// it, as when it is revoked). A later one asked for is a problem at `/expires_at`.
    func grantedExpiry(asked: Date?, fallback: Date?, problems: Problems) -> Date? {
        guard case .token(_, let token) = self, let limit = token.expiresAt else { return asked ?? fallback }
        if let asked, asked > limit {
            problems.add("/expires_at", "must be no later than \(Timestamp.format(limit)), when the token that makes it expires")
            return nil
        }
        return min(asked ?? fallback ?? limit, limit)
    }

    var isInstanceAdmin: Bool {
        if case .person(let session) = self { return session.user.isAdmin }
        return false
    }
}

/// The request context: Hummingbird's core storage plus who is asking (`AuthMiddleware`) and,
/// on routes under `apps/{app}`, the app and the caller's role in it (`AppAccessMiddleware`).
public struct RiversContext: RequestContext, Authorizing {
    public var coreContext: CoreRequestContextStorage
    public var principal: Principal?
    /// Why credentials that came with the request give no rights (a cookie write without its
    /// CSRF token): what a route that needs rights answers.
    public var refused: Problem?
    /// The app named by `{app}` and the caller's role in it.
    public var access: (app: App, role: Role)?
    /// The client's address, for sessions, throttling and the audit log: the TCP peer, or what
    /// trusted proxies say (`AuthMiddleware`, `TRUSTED_PROXY_HOPS`).
    public var remoteAddress: String

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? ""
    }

    var role: Role? { access?.role }
}

/// The context of every route under `/api/v1/apps/{app}` (a Hummingbird child context): the app
/// named by `{app}` (id or slug) and the caller's role there, checked by `AppAccessMiddleware`
/// when the route is matched: a token sees only its own app, a person only the apps they are a
/// member of (instance admins: every app); any other app is a 404, so no one learns which apps
/// exist.
public struct AppContext: ChildRequestContext, Authorizing {
    public var coreContext: CoreRequestContextStorage
    public let app: App
    public let principal: Principal?
    public let refused: Problem?
    public let role: Role?
    public let remoteAddress: String

    /// How a publish through this request is recorded.
    var publisher: String { principal?.displayName ?? "api" }

    public init(context: RiversContext) throws {
        guard let access = context.access else { throw Problem.notFound("no app \((try? context.pathParameter("app")) ?? "")") }
        self.coreContext = context.coreContext
        self.app = access.app
        self.role = access.role
        self.principal = context.principal
        self.refused = context.refused
        self.remoteAddress = context.remoteAddress
    }
}

/// Finds who is asking: `Authorization: Bearer <token>` (automation), else the session cookie
/// (the editor). A token that is not valid is a 401 at once; no credentials leave the principal
/// unset, and each route's need decides (`Authorizing`). A write through a cookie must carry the
/// session's CSRF token in `X-CSRF-Token` (a header forms cannot send) and, when the browser sends
/// `Origin`, come from this server's own origin. Everything the request changes is recorded in the
/// audit log under the caller's name.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = RiversContext
    let store: any CallerRepository
    let sessions: SessionCookies
    var proxyHops = 0

    func handle(_ request: Request, context: RiversContext, next: (Request, RiversContext) async throws -> Response) async throws -> Response {
        var context = context
        if proxyHops > 0 {
            context.remoteAddress = Self.clientAddress(forwardedFor: request.headers[values: .xForwardedFor], peer: context.remoteAddress, hops: proxyHops)
        }
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw Problem.unauthorized }
            let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
            // No token is longer; a longer header is refused before it is hashed.
            guard token.utf8.count <= 200, let (app, info) = try await store.tokenOwner(token) else {
                throw Problem(.unauthorized, type: "unauthorized", title: "Authentication required", detail: "the API token is not valid",
                              headers: [.wwwAuthenticate: "Bearer realm=\"rivers\", error=\"invalid_token\""])
            }
            context.principal = .token(app: app, token: info)
        } else if let secret = sessions.secret(in: request), let session = try await store.session(secret: secret) {
            if !Self.isSafe(request.method) {
                try sessions.checkOrigin(request)
            }
            if Self.isSafe(request.method)
                || request.headers[SessionCookies.csrfHeader].map({ Self.constantTimeEqual($0, session.csrfToken) }) == true
            {
                context.principal = .person(session)
            } else {
                // Without the token the cookie gives no rights; a route open to anyone (signing
                // in again, a link) still answers.
                context.refused = Problem(
                    .forbidden, type: "csrf", title: "CSRF token missing or wrong",
                    detail: "a write made with the session cookie must send the session's csrf_token in X-CSRF-Token", field: "X-CSRF-Token")
            }
            if session.renewed {
                // The cookie lives as long as the session: 14 days from its last use.
                let response = try await withActor(context) { try await next(request, context) }
                var renewed = response
                if renewed.headers[.setCookie] == nil { renewed.headers[.setCookie] = sessions.setCookie(secret) }
                return renewed
            }
        } else if !Self.isSafe(request.method) {
            try sessions.checkOrigin(request)
        }
        return try await withActor(context) { try await next(request, context) }
    }

    /// Runs the rest of the request with its caller recorded for the audit log.
    private func withActor(_ context: RiversContext, _ body: () async throws -> Response) async throws -> Response {
        let actor = context.principal.map { principal -> AuditActor in
            switch principal {
            case .person(let s): return AuditActor(name: s.user.email, kind: .user, requestId: context.id, address: context.remoteAddress)
            case .token(_, let t): return AuditActor(name: "token \(t.name)", kind: .token, requestId: context.id, address: context.remoteAddress)
            }
        } ?? AuditActor(name: "anonymous", kind: .anonymous, requestId: context.id, address: context.remoteAddress)
        return try await AuditActor.$current.withValue(actor) { try await body() }
    }

    /// The client's address behind `hops` proxies that each append the address they saw to
    /// `X-Forwarded-For`: the entry `hops` places from the right (what the nearest trusted proxy
    /// saw; entries further left are the client's word). Without enough entries the request did
    /// not come through them: the TCP peer.
    static func clientAddress(forwardedFor fields: [String], peer: String, hops: Int) -> String {
        let joined = fields.joined(separator: ",")
        guard hops > 0, joined.utf8.count <= 4096 else { return peer }
        let entries = joined.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard entries.count >= hops else { return peer }
        let entry = entries[entries.count - hops]
        guard !entry.isEmpty, entry.utf8.count <= 100 else { return peer }
        return entry
    }

    static func isSafe(_ method: HTTPRequest.Method) -> Bool { method == .get || method == .head || method == .options }

    /// Compares two secrets in time that depends on their lengths only.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }
}

/// Resolves `{app}` for the routes under `apps/{app}` (it runs once the route is matched, so the
/// parameter is known; other routes pass through): the app and the caller's role there (see
/// `AppContext`). Without credentials it is a 401, so a stranger learns nothing either.
struct AppAccessMiddleware: RouterMiddleware {
    typealias Context = RiversContext
    let store: any CallerRepository

    func handle(_ request: Request, context: RiversContext, next: (Request, RiversContext) async throws -> Response) async throws -> Response {
        guard context.parameters.get("app") != nil else { return try await next(request, context) }
        let key = try context.pathParameter("app")
        var context = context
        switch context.principal {
        case nil:
            throw context.refused ?? Problem.unauthorized
        case .token(let app, let token):
            guard key == app.slug || UUIDText.normalize(key) == app.id else { throw Problem.notFound("no app \(key)") }
            context.access = (app, token.role)
        case .person(let session):
            // Instance administrators have every app; anyone else only those they are a member of.
            guard let (app, role) = try await store.appAndRole(key, userId: session.user.id),
                let role = session.user.isAdmin ? .admin : role
            else { throw Problem.notFound("no app \(key)") }
            context.access = (app, role)
        }
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    /// A one-time link's secret (`GET`/`POST /api/v1/link`).
    static let linkSecret = Self("X-Link-Secret")!
}

/// The session cookie: its name and attributes, and the origin check of cookie-authenticated writes.
struct SessionCookies: Sendable {
    static let name = "rivers_session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    /// `Secure` when the server is reached over https (`PUBLIC_BASE_URL`).
    let secure: Bool
    /// This server's own origin when it is known (`PUBLIC_BASE_URL`); else the request's Host.
    let origin: String?

    init(publicBaseURL: String?) {
        secure = publicBaseURL?.lowercased().hasPrefix("https://") ?? false
        origin = publicBaseURL.flatMap { url in
            guard let c = URLComponents(string: url), let scheme = c.scheme, let host = c.host else { return nil }
            return "\(scheme)://\(host)" + (c.port.map { ":\($0)" } ?? "")
        }
    }

    func secret(in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let trimmed = pair.drop(while: { $0 == " " })
                if trimmed.hasPrefix(Self.name + "="), trimmed.utf8.count <= Self.name.utf8.count + 1 + 100 {
                    return String(trimmed.dropFirst(Self.name.count + 1))
                }
            }
        }
        return nil
    }

    /// A browser names the page a request comes from in `Origin`: it must be this server.
    func checkOrigin(_ request: Request) throws {
        guard let sent = request.headers[.origin] else { return }
        let allowed: Bool
        if let origin {
            // Configured: only that origin (the Host header is the client's to choose).
            allowed = sent == origin
        } else {
            let host = request.head.authority ?? ""
            allowed = !host.isEmpty && (sent == "http://\(host)" || sent == "https://\(host)")
        }
        guard allowed else {
            throw Problem(.forbidden, type: "cross-origin", title: "Cross-origin write refused",
                          detail: "writes with the session cookie are accepted only from this server's own pages", field: "Origin")
        }
    }

    func setCookie(_ secret: String) -> String {
        "\(Self.name)=\(secret); Path=/; Max-Age=\(Int(Store.sessionIdleLifetime)); HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }

    var clearCookie: String {
        "\(Self.name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }
}

/// Passwords: bcrypt at cost 12 (hummingbird-auth), a quarter of a second of CPU each by
/// design. They run on a thread pool of their own (half the cores, at least one thread), never
/// on the pool that serves the editor's files, so a flood of sign-ins slows only sign-ins. At
/// most `maxQueued` wait or run (503 past that), and at most `maxPerAddress` from one client
/// address (429 past that): one client cannot fill the queue for everyone else.
final class Passwords: PasswordHasher {
    static let cost: UInt8 = 12
    static let maxQueued = 16
    static let defaultPerAddress = 2

    /// The process's hashing threads, started at first use and shared by every router.
    static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        return pool
    }()
    static let threads = max(1, System.coreCount / 2)

    private let admission: NIOLockedValueBox<PasswordAdmission>

    init(perAddress: Int = Passwords.defaultPerAddress) {
        admission = NIOLockedValueBox(PasswordAdmission(maxQueued: Self.maxQueued, maxPerAddress: perAddress))
    }

    func hash(_ password: String, from address: String) async throws -> String {
        try await bounded(address) { Bcrypt.hash(password, cost: Self.cost) }
    }

    func verify(_ password: String, hash: String, from address: String) async throws -> Bool {
        try await bounded(address) { Bcrypt.verify(password, hash: hash) }
    }

    /// Hashes in flight now (for tests).
    var inFlight: Int { admission.withLockedValue { $0.total } }

    private func bounded<T: Sendable>(_ address: String, _ work: @escaping @Sendable () -> T) async throws -> T {
        switch admission.withLockedValue({ $0.admit(address) }) {
        case .admitted: break
        case .busy:
            ServerMetrics.passwordChecksRefused.increment()
            throw Problem(.serviceUnavailable, type: "busy", title: "Too busy",
                          detail: "too many sign-ins are being checked right now; retry in a moment", headers: [.retryAfter: "1"])
        case .tooManyFromAddress:
            ServerMetrics.passwordChecksRefused.increment()
            throw Problem(.tooManyRequests, type: "too-many-sign-ins", title: "Too many sign-ins",
                          detail: "other sign-ins from your address are being checked; retry in a moment", headers: [.retryAfter: "1"])
        }
        defer { admission.withLockedValue { $0.leave(address) } }
        return try await Self.pool.runIfActive(work)
    }

    /// A hash of no one's password: verifying against it costs the same time as a real check, so
    /// an unknown email cannot be told from a wrong password by the time the answer takes.
    static let decoy = Bcrypt.hash("rivers decoy password", cost: cost)
    var decoy: String { Self.decoy }
}

/// Which password checks may start: at most `maxQueued` in all and `maxPerAddress` from one
/// client address. Pure state, so it is tested without threads.
struct PasswordAdmission {
    enum Verdict { case admitted, busy, tooManyFromAddress }

    let maxQueued: Int
    let maxPerAddress: Int
    private(set) var total = 0
    private(set) var byAddress: [String: Int] = [:]

    init(maxQueued: Int, maxPerAddress: Int) {
        self.maxQueued = maxQueued
        self.maxPerAddress = maxPerAddress
    }

    mutating func admit(_ address: String) -> Verdict {
        if byAddress[address, default: 0] >= maxPerAddress { return .tooManyFromAddress }
        if total >= maxQueued { return .busy }
        total += 1
        byAddress[address, default: 0] += 1
        return .admitted
    }

    mutating func leave(_ address: String) {
        total -= 1
        if let n = byAddress[address] { byAddress[address] = n > 1 ? n - 1 : nil }
    }
}

extension ObjectReader {
    /// An optional `expires_at`: an RFC 3339 date and time in the future, at most `within`
    /// seconds from now (`described` says that bound in words); problems go to the reader's.
    func expiry(within: Double, described: String) -> Date? {
        guard let text = string("expires_at", maxLength: 40) else { return nil }
        guard let date = Timestamp.parse(text) else {
            problems.add(at("expires_at"), "must be an RFC 3339 date and time like 2027-01-31T00:00:00Z")
            return nil
        }
        if date <= Date() { problems.add(at("expires_at"), "must be in the future") }
        else if date.timeIntervalSinceNow > within { problems.add(at("expires_at"), "must be within \(described)") }
        return date
    }
}

/// Reading requests and writing JSON responses, the same way for every controller.
struct APIHelpers: Sendable {
    let bodyLimit: Int
    /// Work on a whole app (draft, publish check, publish, rollback, diff, import): one at a
    /// time per app, half the cores' worth at once in all.
    var wholeApp = WorkGate(name: "whole-app", concurrent: max(1, System.coreCount / 2))
    /// Previews (a screen laid out and drawn): one at a time per app, a core's worth each.
    var previews = WorkGate(name: "preview", concurrent: max(1, System.coreCount), maxWaiting: 64)

    /// The request body as JSON: 413 past the limit, 415 for another media type, 400 when malformed.
    func body(_ request: Request) async throws -> JSONValue {
        guard let value = try await optionalBody(request, allowEmpty: false) else { throw Problem.malformed("the body is empty") }
        return value
    }

    /// The body as JSON, or nil when there is none.
    func optionalBody(_ request: Request, allowEmpty: Bool = true) async throws -> JSONValue? {
        if let type = request.headers[.contentType] {
            // `;`, `` and other media types without a type/subtype are refused like any other.
            let media = (type.split(separator: ";", omittingEmptySubsequences: false).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            if media != "application/json" && media != "application/merge-patch+json" && !(media.hasSuffix("+json") && media.contains("/")) {
                throw Problem.unsupportedMediaType(String(media.prefix(100)))
            }
        }
        if allowEmpty, request.headers[.contentLength] == "0" { return nil }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: bodyLimit)
        } catch {
            throw Problem.tooLarge(limit: bodyLimit)
        }
        if allowEmpty, buffer.readableBytes == 0 { return nil }
        do {
            return try JSONValue.parse(buffer.readableBytesView)
        } catch {
            // Well-formed JSON holding a value no document may hold is a 422 at that value.
            if let pointer = error.pointer { throw Problem.invalid([FieldError(pointer, error.description)]) }
            throw Problem.malformed(error.description)
        }
    }

    /// `If-Match`: absent, `*`, or one or more strong ETags.
    func precondition(_ request: Request) throws -> RevisionPrecondition {
        guard let header = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return .none }
        if header == "*" { return .any }
        var revisions: [Int] = []
        for tag in header.split(separator: ",") {
            let t = tag.trimmingCharacters(in: .whitespaces)
            // If-Match compares strongly (RFC 9110 §13.1.1): a weak tag never matches.
            if t.hasPrefix("W/\""), t.hasSuffix("\""), t.count >= 4 { continue }
            let digits = t.count >= 2 && t.hasPrefix("\"") && t.hasSuffix("\"") ? t.dropFirst().dropLast() : ""
            guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else {
                throw Problem(.badRequest, type: "bad-if-match", title: "If-Match is not valid", detail: "If-Match takes the ETag of a GET, like \"3\" (quotes included)", field: "If-Match")
            }
            // Compared as text, as ETags are: `"04"` or a tag longer than any revision matches none.
            if let n = Int(digits), String(n) == digits { revisions.append(n) }
        }
        return .oneOf(revisions)
    }

    /// `limit` (1…200, default 50) and `offset` (default 0).
    /// A text query parameter: nil when absent; 400 when it holds a control character (a NUL
    /// cannot even be sent to PostgreSQL) or is longer than `maxCharacters`.
    func queryText(_ request: Request, _ name: String, maxCharacters: Int, nulOnly: Bool = false) throws -> String? {
        guard let value = request.uri.queryParameters[name[...]].map(String.init) else { return nil }
        if nulOnly {
            if value.unicodeScalars.contains("\u{0}") { throw Problem.badParameter(name, "\(name) must not contain NUL characters") }
        } else if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw Problem.badParameter(name, "\(name) must not contain control characters")
        }
        guard value.unicodeScalars.count <= maxCharacters else { throw Problem.badParameter(name, "\(name) is at most \(maxCharacters) characters") }
        return value
    }

    func paging(_ request: Request) throws -> (limit: Int, offset: Int) {
        let query = request.uri.queryParameters
        var limit = 50, offset = 0
        // Digits only: `+5` or ` 5` are not numbers a client means.
        func whole(_ text: Substring) -> Int? { text.count <= 10 && text.allSatisfy(\.isASCIIDigit) ? Int(text) : nil }
        if let text = query["limit"] {
            guard let n = whole(text), (1...Store.maxPageSize).contains(n) else {
                throw Problem.badParameter("limit", "limit must be a whole number from 1 to \(Store.maxPageSize)")
            }
            limit = n
        }
        if let text = query["offset"] {
            guard let n = whole(text), n <= Limits.maxInteger else {
                throw Problem.badParameter("offset", "offset must be a whole number from 0 to \(Limits.maxInteger)")
            }
            offset = n
        }
        return (limit, offset)
    }
}

/// The longest decoded path parameter that names anything (no id or slug is longer).
let pathParameterMaxBytes = 200

extension RequestContext {
    /// A path parameter, percent-decoded. One that does not decode to UTF-8, holds a NUL or a
    /// control character, or is longer than any id can be names nothing: 404.
    func pathParameter(_ name: String) throws -> String {
        let raw = try parameters.require(name)
        guard raw.utf8.count <= 600, let decoded = raw.removingPercentEncoding, decoded.utf8.count <= pathParameterMaxBytes,
              !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { throw Problem.notFound("nothing is found at this address") }
        return decoded
    }
}

/// A JSON response, with the resource's ETag when it has a revision.
struct JSONResponse: ResponseGenerator {
    /// A value to write, or bytes written already (a resource read as its stored text).
    enum Body { case value(JSONValue), bytes(ByteBuffer) }
    var body: Body
    var status: HTTPResponse.Status = .ok
    var headers: HTTPFields = [:]

    init(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) {
        self.body = .value(value)
        self.status = status
        self.headers = headers
    }

    init(_ record: Record, status: HTTPResponse.Status = .ok, location: String? = nil) {
        self.init(resource: record.json, revision: record.revision, status: status, location: location)
    }

    init(_ plugin: StoredPlugin, status: HTTPResponse.Status = .ok, location: String? = nil) {
        self.init(resource: plugin.json, revision: plugin.revision, status: status, location: location)
    }

    /// A resource with its bookkeeping; its revision is its ETag.
    init(resource: JSONValue, revision: Int, status: HTTPResponse.Status, location: String?) {
        self.init(resource, status: status)
        headers[.eTag] = ETag.make(revision)
        if let location { headers[.location] = location }
    }

    init(_ record: RecordText, status: HTTPResponse.Status = .ok, location: String? = nil) {
        body = .bytes(record.json)
        self.status = status
        headers[.eTag] = ETag.make(record.revision)
        if let location { headers[.location] = location }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        switch body {
        case .value(let value): return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.serialized())))
        case .bytes(let bytes): return Response(status: status, headers: headers, body: .init(byteBuffer: bytes))
        }
    }
}

struct NoContent: ResponseGenerator {
    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(status: .noContent)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension APIHelpers {
    /// The request's body as an object whose members must be among `keys`; its problems go to
    /// the `Problems` returned with it.
    func reader(_ request: Request, keys: Set<String>) async throws -> (ObjectReader, Problems) {
        let problems = Problems()
        guard let r = ObjectReader(try await body(request), at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
        r.rejectUnknownKeys(keys)
        return (r, problems)
    }
}
