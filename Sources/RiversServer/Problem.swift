import Foundation
import Hummingbird
import Logging
import RiversCore
import RiversServices
import RiversStore

/// An error answered as `application/problem+json` (RFC 9457): `type`, `title`, `status`,
/// `detail`, the offending `field` (a JSON pointer) and, for validation, every problem in `errors`.
public struct Problem: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var type: String
    public var title: String
    public var detail: String
    public var errors: [FieldError]
    public var field: String?
    public var extra: [String: JSONValue]
    public var headers: HTTPFields

    public init(
        _ status: HTTPResponse.Status, type: String, title: String, detail: String, errors: [FieldError] = [],
        field: String? = nil, extra: [String: JSONValue] = [:], headers: HTTPFields = [:]
    ) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.errors = errors
        self.field = field ?? errors.first?.pointer
        self.extra = extra
        self.headers = headers
    }

    public var json: JSONValue {
        var o = extra
        o["type"] = .string("/problems/\(type)")
        o["title"] = .string(title)
        o["status"] = .number(Double(status.code))
        o["detail"] = .string(detail)
        if let field { o["field"] = .string(field) }
        if !errors.isEmpty {
            o["errors"] = .array(errors.map { ["pointer": .string($0.pointer), "message": .string($0.message)] })
        }
        return .object(o)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json.serialized())))
    }

    // MARK: The problems this API answers with

    /// Every problem found, up to `Limits.maxProblems` of them; `error_count` says how many in all.
    public static func invalid(_ errors: [FieldError], count: Int? = nil) -> Problem {
        let total = max(count ?? errors.count, errors.count)
        let listed = Array(errors.prefix(Limits.maxProblems))
        let detail = total == 1 ? (listed.first?.description ?? "1 problem")
            : "\(total) problems\(total > listed.count ? " (the first \(listed.count) listed)" : ""): " + listed.prefix(5).map(\.description).joined(separator: "; ")
        return Problem(.unprocessableContent, type: "validation", title: "The request breaks the rules", detail: detail, errors: listed,
                       extra: ["error_count": .number(Double(total))])
    }

    public static func malformed(_ detail: String) -> Problem {
        Problem(.badRequest, type: "malformed-json", title: "The body is not valid JSON", detail: detail, field: "")
    }

    public static func badParameter(_ name: String, _ detail: String) -> Problem {
        Problem(.badRequest, type: "bad-parameter", title: "A query parameter is not valid", detail: detail, field: name)
    }

    /// 403: the caller is known but may not do this.
    static func forbidden(need: Need, role: Role?) -> Problem {
        let has = role.map { "your role here is \($0.rawValue)" } ?? "you have no role that allows it"
        let detail: String
        switch need {
        case .person: detail = "this needs a signed-in person, not an API token"
        case .token: detail = "this needs an API token (a signed-in person's own session is GET /api/v1/session)"
        default: detail = "this needs \(need) rights; \(has)"
        }
        return Problem(.forbidden, type: "forbidden", title: "Forbidden", detail: detail, extra: ["needs": .string(need.description)])
    }

    public static func notFound(_ detail: String) -> Problem {
        Problem(.notFound, type: "not-found", title: "Not found", detail: detail)
    }

    public static let unauthorized = Problem(
        .unauthorized, type: "unauthorized", title: "Authentication required",
        detail: "sign in (POST /api/v1/session) or send an API token as 'Authorization: Bearer <token>' (create one with 'rivers token create <app>')",
        headers: [.wwwAuthenticate: "Bearer realm=\"rivers\""])

    public static func tooLarge(limit: Int) -> Problem {
        Problem(.contentTooLarge, type: "too-large", title: "The body is too large", detail: "bodies may be at most \(limit) bytes (MAX_BODY_BYTES)")
    }

    public static func unsupportedMediaType(_ type: String) -> Problem {
        Problem(.unsupportedMediaType, type: "unsupported-media-type", title: "Send JSON", detail: "the body must be application/json (got \(type))", field: "")
    }

    /// Maps a store error to its problem.
    public static func from(_ error: StoreError) -> Problem {
        switch error {
        case .notFound(let detail): return .notFound(detail)
        case .preconditionFailed(let current):
            return Problem(
                .preconditionFailed, type: "stale-revision", title: "Someone else changed this first",
                detail: "If-Match does not match the current revision \(current); reload it, reapply your change and send the new ETag",
                extra: ["current_revision": .number(Double(current))], headers: [.eTag: ETag.make(current)])
        case .conflict(let detail, let usedBy):
            // At most 100 users are named; `used_by_count` says how many there are.
            return Problem(.conflict, type: "conflict", title: "The change conflicts with other data", detail: detail,
                           extra: usedBy.isEmpty ? [:] : ["used_by": .array(usedBy.prefix(Limits.maxProblems).map(\.json)), "used_by_count": .number(Double(usedBy.count))])
        case .invalid(let errors): return .invalid(errors)
        case .busy(let detail):
            return Problem(.serviceUnavailable, type: "busy", title: "Too busy", detail: detail, headers: [.retryAfter: "1"])
        }
    }

    static let linkGone = Problem(.gone, type: "link-gone", title: "Link used or expired",
                                  detail: "this link has been used or has expired: ask for a new one")

    /// Maps a refusal of signing in, of a password change or of a link's use to its problem.
    public static func from(_ error: AccountError) -> Problem {
        switch error {
        case .signInFailed:
            return Problem(.unauthorized, type: "sign-in-failed", title: "Sign-in failed", detail: "the email or the password is wrong", field: "/password")
        case .tooManySignIns(let wait):
            return Problem(.tooManyRequests, type: "too-many-sign-ins", title: "Too many sign-ins",
                           detail: "too many sign-in attempts; try again in \(wait) seconds", headers: [.retryAfter: String(wait)])
        case .wrongPassword(let field, let detail):
            return Problem(.forbidden, type: "wrong-password", title: "Wrong password", detail: detail, field: field)
        case .linkUnknown: return .notFound("this link is not known")
        case .linkUsedOrExpired: return .linkGone
        case .accountNeedsItsOwnLink:
            return Problem(.conflict, type: "conflict", title: "Conflict",
                           detail: "this email has an account already: set its password with its own link first, then accept with it")
        }
    }
}

/// Turns every error into problem+json: store errors by their meaning, Hummingbird's own errors
/// (unknown route, body too large) by their status, anything else into a 500 that leaks nothing.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let bodyLimit: Int
    let routes: RouteLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            throw problem
        } catch let error as StoreError {
            if case .busy = error { ServerMetrics.workRefused.increment() }
            throw Problem.from(error)
        } catch let error as AccountError {
            throw Problem.from(error)
        } catch let error as ValidationFailure {
            throw Problem.invalid(error.errors, count: error.count)
        } catch let error as HTTPResponseError {
            switch error.status {
            case .notFound:
                // A path the API has, with a method it does not: 405 and what it allows.
                let allowed = routes.methods(matching: request.uri.path)
                if !allowed.isEmpty {
                    throw Problem(.methodNotAllowed, type: "method-not-allowed", title: "Method not allowed",
                                  detail: "\(request.method) is not allowed here; use \(allowed.joined(separator: ", "))",
                                  headers: [.allow: allowed.joined(separator: ", ")])
                }
                throw Problem(.notFound, type: "no-route", title: "Not found", detail: "the API has nothing at this address")
            case .contentTooLarge: throw Problem.tooLarge(limit: bodyLimit)
            case .methodNotAllowed:
                throw Problem(.methodNotAllowed, type: "method-not-allowed", title: "Method not allowed", detail: "\(request.method) is not allowed on \(request.uri.path)")
            default:
                throw Problem(error.status, type: "http-\(error.status.code)", title: error.status.reasonPhrase, detail: error.status.reasonPhrase)
            }
        } catch where DatabaseAvailability.isUnavailability(error) {
            throw Problem.databaseUnavailable
        } catch {
            // The route's pattern, not the path: a path may hold a one-time link's secret.
            context.logger.error("unexpected error on \(request.method) \(context.endpointPath ?? "(no route)"): \(String(reflecting: error))")
            throw Problem(.internalServerError, type: "internal", title: "Internal error", detail: "the server failed; the error was logged")
        }
    }
}

/// Strong ETags carry the revision: `"7"`.
enum ETag {
    static func make(_ revision: Int) -> String { "\"\(revision)\"" }
}

