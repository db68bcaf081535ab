import HTTPTypes
import Hummingbird
import Logging

extension HTTPField.Name {
    static let requestId = Self("X-Request-Id")!
    static let contentTypeOptions = Self("X-Content-Type-Options")!
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let frameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}

/// The `Content-Security-Policy` of the API's answers, problems included (`apiRoutes`): an answer
/// opened as a page (a JSON body, an SVG preview whose texts came from users) may load, run and
/// frame nothing. (The editor's pages have their own; published documents are JSON a client reads,
/// answered mostly by the byte path, whose heads stay as small as nginx's.)
struct AnswerSecurityMiddleware: RouterMiddleware {
    typealias Context = RiversContext
    static let policy = "default-src 'none'; frame-ancestors 'none'; sandbox"

    func handle(_ request: Request, context: RiversContext, next: (Request, RiversContext) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.policy }
            return response
        } catch var problem as Problem {
            problem.headers[.contentSecurityPolicy] = Self.policy
            throw problem
        }
    }
}

/// The outermost middleware: every response, errors included, carries the request's id in
/// `X-Request-Id` (the id Hummingbird puts in the request's log lines) and `nosniff`; every 5xx is
/// logged once with that id, never with a body or a token, so a user's report can be matched to
/// the log.
struct RequestIdMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.requestId] = context.id
        response.headers[.contentTypeOptions] = "nosniff"
        if response.headers[.date] == nil { response.headers[.date] = HTTPDate.now }
        // A 503 while the database is away is logged once by the monitor, not per request.
        if response.status.code >= 500, response.status != .serviceUnavailable {
            context.logger.error("\(response.status.code) on \(request.method) \(context.endpointPath ?? "(no route)")", metadata: ["request_id": .string(context.id)])
        }
        return response
    }
}
