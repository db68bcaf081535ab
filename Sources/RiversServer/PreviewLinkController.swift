import Foundation
import Hummingbird
import RiversCore
import RiversStore

/// A draft on a device (issue 27): preview links, and the public URL each one is. The URL serves
/// the app's current draft as a rivers.json, built and checked as a publish would be, so a test
/// build pointed at it shows every save on its next start; no version is made.
struct PreviewLinkController {
    let store: any PreviewLinkRepository & VersionRepository
    let helpers: APIHelpers
    let baseURL: String
    var availability = DatabaseAvailability(ready: true)

    /// The secret travels in the path: an app reads a plain URL and can send no header. So the URL
    /// is a bearer credential for one app's draft (read-only), expiring and revocable, and never
    /// cached by anyone (`private, no-store`).
    static let cacheControl = "private, no-store"

    func url(_ secret: String) -> String { "\(baseURL)/preview/\(secret)/rivers.json" }

    func register(api routes: RouteRegistrar<RiversContext>, open: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()
        appRoutes.on(.get, "preview-links", need: .role(.viewer)) { request, context in
            let (limit, offset) = try helpers.paging(request)
            let (links, total) = try await store.previewLinks(appId: context.app.id, limit: limit, offset: offset)
            return JSONResponse(pageJSON(links.map { $0.json(people: context.people) }, total: total, limit: limit, offset: offset))
        }
        // The URL is in this answer only; afterwards the link is known by its id and name.
        appRoutes.on(.post, "preview-links", need: .role(.editor)) { request, context in
            let body = try await helpers.optionalBody(request) ?? [:]
            let problems = Problems()
            guard let r = ObjectReader(body, at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
            r.rejectUnknownKeys(["name", "expires_at"])
            let name = r.string("name", nonEmpty: true, maxLength: 100)
            let asked = r.expiry(within: Limits.maxPreviewLinkLifetime, described: "\(Int(Limits.maxPreviewLinkLifetime / 86400)) days")
            let fallback = Date().addingTimeInterval(Limits.defaultPreviewLinkLifetime)
            let expires = context.principal?.grantedExpiry(asked: asked, fallback: fallback, problems: problems) ?? asked ?? fallback
            if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
            let (secret, link) = try await store.createPreviewLink(
                appId: context.app.id, name: name ?? "Preview link", expiresAt: expires,
                createdBy: context.principal?.displayName ?? "", grantedBy: context.principal?.grantor ?? .operator)
            var o = link.json(people: context.people).objectValue ?? [:]
            o["url"] = .string(url(secret))
            return JSONResponse(.object(o), status: .created, headers: [.cacheControl: "no-store"])
        }
        appRoutes.on(.delete, "preview-links/{id}", need: .role(.editor)) { _, context in
            try await store.revokePreviewLink(appId: context.app.id, id: try context.pathParameter("id"))
            return NoContent()
        }

        for method in [HTTPRequest.Method.get, .head] {
            open.on(method, "preview/{secret}/rivers.json", need: .anyone) { request, context in
                try await draft(secret: try context.pathParameter("secret"), request: request)
            }
        }
        open.on(.options, "preview/{secret}/rivers.json", need: .anyone) { _, context in
            try PublicDocumentController.preflight((try context.pathParameter("secret")).utf8.count <= 200)
        }
    }

    /// The draft a secret opens: 200 with the document (304 when the client has it), 409 with the
    /// problems that would stop a publish, 410 for an expired link, 404 for any other.
    func draft(secret: String, request: Request) async throws -> Response {
        let never: HTTPFields = [.cacheControl: Self.cacheControl, .accessControlAllowOrigin: "*"]
        guard availability.isReady else { throw Problem.databaseUnavailable }
        let app: App
        switch try await store.previewLink(secret: secret) {
        case .unknown:
            throw Problem(.notFound, type: "not-found", title: "Not found",
                          detail: "no preview link here: it was never made, was revoked, or its app was archived", headers: never)
        case .expired:
            throw Problem(.gone, type: "preview-link-expired", title: "Gone",
                          detail: "this preview link has expired: make a new one in the editor's Releases page", headers: never)
        case .live(let found, _):
            app = found
        }
        let (problems, document) = try await helpers.wholeApp.run(app: app.id) { try await store.checkedDraft(appId: app.id) }
        guard let document else {
            let listed = Array(problems.prefix(Limits.maxProblems))
            throw Problem(
                .conflict, type: "draft-has-problems", title: "The draft cannot be published as it is",
                detail: "\(problems.count) problem\(problems.count == 1 ? "" : "s") would stop a publish: " + listed.prefix(3).map(\.description).joined(separator: "; "),
                errors: listed, extra: ["error_count": .number(Double(problems.count))], headers: never)
        }
        let etag = "\"\(sha256Hex(document))\""
        var headers = never
        headers[.eTag] = etag
        headers[.accessControlExposeHeaders] = "ETag"
        if let asked = request.headers[.ifNoneMatch], PublicDocumentController.members(asked).contains(where: { $0 == etag || $0 == "*" || $0 == "W/" + etag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.contentLength] = String(document.count)
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: ByteBuffer(bytes: document)))
    }
}

extension PreviewLink {
    /// A preview link as the API lists it (never its URL: that is in the answer that made it).
    func json(people: PeopleShown) -> JSONValue {
        [
            "id": .string(id), "name": .string(name), "created_by": .string(people.name(createdBy)),
            "created_at": .string(Timestamp.format(createdAt)), "expires_at": .string(Timestamp.format(expiresAt)),
            "expired": .bool(expiresAt <= Date()),
            "last_used_at": lastUsedAt.map { .string(Timestamp.format($0)) } ?? .null,
        ]
    }
}
