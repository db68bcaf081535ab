import Foundation
import Hummingbird
import RiversCore
import RiversStore

/// The request context: Hummingbird's core storage plus the app the bearer token belongs to.
public struct RiversContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The token's app, set by `TokenAuthMiddleware` on every `/api/v1` request.
    public var tokenApp: App?
    /// Who the token is, for "published by".
    public var tokenName: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}

/// The context of every route under `/api/v1/apps/{app}` (a Hummingbird child context): the app
/// named by `{app}` (id or slug), checked once when the route is matched. It must be the token's
/// app, else 404, so a token cannot even learn which other apps exist; the token's app was read
/// with the token, so this costs no query.
public struct AppContext: ChildRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let app: App
    /// Who the token is, for "published by".
    public let tokenName: String?

    /// How a publish through this request is recorded.
    var publisher: String { tokenName.map { "token \($0)" } ?? "api" }

    public init(context: RiversContext) throws {
        let key = try context.pathParameter("app")
        guard let app = context.tokenApp, key == app.slug || UUIDText.normalize(key) == app.id else {
            throw Problem.notFound("no app \(key)")
        }
        self.coreContext = context.coreContext
        self.app = app
        self.tokenName = context.tokenName
    }
}

/// Every `/api/v1` route needs `Authorization: Bearer <token>`; the token decides the one app
/// the request may see.
struct TokenAuthMiddleware: RouterMiddleware {
    typealias Context = RiversContext
    let store: any AppRepository

    func handle(_ request: Request, context: RiversContext, next: (Request, RiversContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else { throw Problem.unauthorized }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw Problem.unauthorized }
        let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
        // No token is longer; a longer header is refused before it is hashed.
        guard token.utf8.count <= 200, let (app, name) = try await store.tokenOwner(token) else {
            throw Problem(.unauthorized, type: "unauthorized", title: "Authentication required", detail: "the API token is not valid",
                          headers: [.wwwAuthenticate: "Bearer realm=\"rivers\", error=\"invalid_token\""])
        }
        var context = context
        context.tokenApp = app
        context.tokenName = name
        return try await next(request, context)
    }
}

/// Reading requests and writing JSON responses, the same way for every controller.
struct APIHelpers: Sendable {
    let bodyLimit: Int

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

extension RequestContext {
    /// A path parameter, percent-decoded. One that does not decode to UTF-8, holds a NUL or a
    /// control character, or is longer than any id can be names nothing: 404.
    func pathParameter(_ name: String) throws -> String {
        let raw = try parameters.require(name)
        guard raw.utf8.count <= 600, let decoded = raw.removingPercentEncoding, decoded.utf8.count <= 200,
              !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { throw Problem.notFound("nothing is found at this address") }
        return decoded
    }
}

/// A JSON response, with the resource's ETag when it has a revision.
struct JSONResponse: ResponseGenerator {
    var value: JSONValue
    var status: HTTPResponse.Status = .ok
    var headers: HTTPFields = [:]

    init(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) {
        self.value = value
        self.status = status
        self.headers = headers
    }

    init(_ record: Record, status: HTTPResponse.Status = .ok, location: String? = nil) {
        self.init(record.json, status: status)
        headers[.eTag] = ETag.make(record.revision)
        if let location { headers[.location] = location }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.serialized())))
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
