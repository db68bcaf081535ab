import Foundation
import Hummingbird
import RiversCore
import RiversServices
import RiversStore

/// Signing in and out, one's sessions, one's password, and one-time links (issue 12): HTTP's part
/// only; the rules are `AccountService`'s.
struct SessionController {
    /// Signing in, changing a password, using a one-time link.
    let accounts: AccountService
    /// One's sessions, listed and ended.
    let sessions: any SignInRepository
    let helpers: APIHelpers
    let baseURL: String
    let cookies: SessionCookies

    func register(on routes: RouteRegistrar<RiversContext>) {
        routes.on(.post, "session", need: .anyone) { request, context in
            let (r, problems) = try await helpers.reader(request, keys: ["email", "password"])
            let email = r.string("email", required: true, nonEmpty: true, maxLength: 254)?.lowercased()
            let password = r.string("password", required: true, nonEmpty: true, maxLength: 1000)
            guard problems.isEmpty, let email, let password else { throw Problem.invalid(problems.errors, count: problems.count) }
            let created = try await accounts.signIn(email: email, password: password, client: Self.client(request, context))
            return try signedIn(created, request: request, context: context, status: .created)
        }
        routes.on(.get, "session", need: .person) { _, context in
            guard case .person(let session)? = context.principal else { throw Problem.unauthorized }
            return JSONResponse(sessionJSON(session))
        }
        // A token says what it is: its app, role and expiry (a CI job can check it will not expire
        // in the middle of a run).
        routes.on(.get, "token", need: .token) { _, context in
            guard case .token(let app, let token)? = context.principal else { throw Problem.unauthorized }
            return JSONResponse(["token": token.json, "app": app.json(baseURL: baseURL, role: token.role)])
        }
        routes.on(.delete, "session", need: .person) { _, context in
            guard case .person(let session)? = context.principal else { throw Problem.unauthorized }
            try await sessions.endSessions(userId: session.user.id, id: session.id)
            return Response(status: .noContent, headers: [.setCookie: cookies.clearCookie])
        }
        routes.on(.get, "sessions", need: .person) { _, context in
            guard case .person(let session)? = context.principal else { throw Problem.unauthorized }
            let list = try await sessions.sessions(userId: session.user.id)
            return JSONResponse(["items": .array(list.map { s in
                ["id": .string(s.id), "created_at": .string(Timestamp.format(s.createdAt)), "last_seen_at": .string(Timestamp.format(s.lastSeenAt)),
                 "user_agent": .string(s.userAgent), "address": .string(s.address), "current": .bool(s.id == session.id)]
            })])
        }
        // Signing out everywhere: every session of the account ends, this one too.
        routes.on(.delete, "sessions", need: .person) { _, context in
            guard case .person(let session)? = context.principal else { throw Problem.unauthorized }
            try await sessions.endSessions(userId: session.user.id, id: nil)
            return Response(status: .noContent, headers: [.setCookie: cookies.clearCookie])
        }
        routes.on(.delete, "sessions/{id}", need: .person) { _, context in
            guard case .person(let session)? = context.principal else { throw Problem.unauthorized }
            let id = try context.pathParameter("id")
            guard try await sessions.endSessions(userId: session.user.id, id: id) > 0 else { throw Problem.notFound("no session \(id)") }
            // Ending this very session signs this browser out.
            return Response(status: .noContent, headers: UUIDText.normalize(id) == session.id ? [.setCookie: cookies.clearCookie] : [:])
        }
        // A new password ends every session; the answer signs this browser in again.
        routes.on(.post, "password", need: .person) { request, context in
            guard case .person(let session)? = context.principal else { throw Problem.unauthorized }
            let (r, problems) = try await helpers.reader(request, keys: ["current_password", "new_password"])
            let current = r.string("current_password", required: true, maxLength: 1000)
            let new = r.string("new_password", required: true, maxLength: 1000)
            guard problems.isEmpty, let current, let new else { throw Problem.invalid(problems.errors, count: problems.count) }
            let created = try await accounts.changePassword(of: session.user, current: current, new: new, client: Self.client(request, context))
            return try signedIn(created, request: request, context: context, status: .ok)
        }

        // One-time links: what a link is, and using it (set a password; accept an invitation).
        // The secret travels in the X-Link-Secret header: proxies and CDNs log paths, not it.
        routes.on(.get, "link", need: .anyone) { request, _ in
            try await linkInfo(try Self.linkSecret(request))
        }
        routes.on(.post, "link", need: .anyone) { request, context in
            try await useLink(try Self.linkSecret(request), request: request, context: context)
        }
        // The same with the secret in the path (deprecated: kept for clients written before).
        routes.on(.get, "links/{secret}", need: .anyone) { _, context in
            try await linkInfo(try context.pathParameter("secret"))
        }
        routes.on(.post, "links/{secret}", need: .anyone) { request, context in
            try await useLink(try context.pathParameter("secret"), request: request, context: context)
        }
    }

    static func linkSecret(_ request: Request) throws -> String {
        guard let secret = request.headers[.linkSecret], !secret.isEmpty else {
            throw Problem(.badRequest, type: "missing-link-secret", title: "Link secret missing",
                          detail: "send the link's secret (what follows # in its URL) in X-Link-Secret", field: "X-Link-Secret")
        }
        return secret
    }

    /// What a link is for, so the page that opens it asks the right question.
    private func linkInfo(_ secret: String) async throws -> JSONResponse {
        let (link, hasPassword) = try await accounts.liveLink(secret: secret)
        var o = link.json.objectValue ?? [:]
        o["has_password"] = .bool(hasPassword)
        return JSONResponse(.object(o))
    }

    /// Uses a link, once, and signs its person in.
    private func useLink(_ secret: String, request: Request, context: RiversContext) async throws -> Response {
        let created = try await accounts.useLink(secret: secret, client: Self.client(request, context)) {
            let (r, problems) = try await helpers.reader(request, keys: ["password", "name"])
            let password = r.string("password", required: true, maxLength: 1000)
            let name = r.string("name", maxLength: 200)
            guard problems.isEmpty, let password else { throw Problem.invalid(problems.errors, count: problems.count) }
            return (password, name)
        }
        return try signedIn(created, request: request, context: context, status: .created)
    }

    static func client(_ request: Request, _ context: RiversContext) -> SignInClient {
        SignInClient(address: context.remoteAddress, userAgent: request.headers[.userAgent] ?? "", requestId: context.id)
    }

    /// The answer that signs a browser in: the session, and its cookie.
    private func signedIn(_ created: NewSession, request: Request, context: RiversContext, status: HTTPResponse.Status) throws -> Response {
        var response = try JSONResponse(sessionJSON(created.session), status: status).response(from: request, context: context)
        response.headers[.setCookie] = cookies.setCookie(created.secret)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    private func sessionJSON(_ session: SignedInSession) -> JSONValue {
        ["user": session.user.json, "session_id": .string(session.id), "csrf_token": .string(session.csrfToken)]
    }
}
