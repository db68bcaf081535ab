import Foundation
import Hummingbird
import RiversCore
import RiversServices
import RiversStore

/// People, apps, members, invitations, tokens and the audit log (issue 12); signing in and
/// sessions are `SessionController`'s.
struct TeamController {
    /// What the people and team routes read; accounts an instance admin makes.
    let people: any TeamRepository
    /// Members, invitations and tokens changed.
    let team: TeamService
    /// Apps made, changed, archived, restored.
    let apps: AppService
    let helpers: APIHelpers
    let baseURL: String
    var delivery: any LinkDelivery = NoLinkDelivery()

    func appJSON(_ app: App, role: Role?) -> JSONValue { app.json(baseURL: baseURL, role: role) }

    /// Where a one-time link is opened: an editor page that reads the secret from the fragment
    /// (a fragment never reaches a server log or a Referer).
    func linkURL(_ secret: String) -> String { "\(baseURL)/link.html#\(secret)" }

    /// A new link's URL, after handing it to the delivery hook (by default, nobody: the answer
    /// shows it to whoever made it).
    func deliver(_ secret: String, _ link: OneTimeLink) async -> String {
        let url = linkURL(secret)
        await delivery.deliver(link, url: url)
        return url
    }

    func register(on routes: RouteRegistrar<RiversContext>) {
        registerPeopleAndApps(on: routes)
        registerAppAdministration(on: routes.appScoped())
    }

    // MARK: People and apps

    private func registerPeopleAndApps(on routes: RouteRegistrar<RiversContext>) {
        routes.on(.get, "apps", need: .authenticated) { request, context in
            let (limit, offset) = try helpers.paging(request)
            // `q`: only apps whose slug or name contains it, in any case (the editor's app search).
            let search = try helpers.queryText(request, "q", maxCharacters: 100).flatMap { $0.isEmpty ? nil : $0 }
            switch context.principal {
            case .token(let app, let token)?:
                let matches = search.map { q in [app.slug, app.name].contains { $0.localizedCaseInsensitiveContains(q) } } ?? true
                let items = offset == 0 && matches ? [appJSON(app, role: token.role)] : []
                return JSONResponse(pageJSON(items, total: matches ? 1 : 0, limit: limit, offset: offset))
            case .person(let session)?:
                let (page, total) = try await people.apps(
                    visibleTo: session.user.isAdmin ? nil : session.user.id, search: search, limit: limit, offset: offset)
                return JSONResponse(pageJSON(page.map { appJSON($0.app, role: session.user.isAdmin ? .admin : $0.role) }, total: total, limit: limit, offset: offset))
            case nil:
                throw Problem.unauthorized
            }
        }
        routes.on(.post, "apps", need: .instanceAdmin) { request, context in
            let (r, problems) = try await helpers.reader(request, keys: ["slug", "name"])
            let slug = r.string("slug", required: true, nonEmpty: true, maxLength: 63)
            let name = r.string("name", nonEmpty: true, maxLength: 200)
            if let slug, !Store.isValidSlug(slug) { problems.add(r.at("slug"), Store.slugRule) }
            guard problems.isEmpty, let slug else { throw Problem.invalid(problems.errors, count: problems.count) }
            let app = try await apps.create(slug: slug, name: name ?? slug)
            return JSONResponse(appJSON(app, role: .admin), status: .created, headers: [.location: "/api/v1/apps/\(app.slug)"])
        }
        routes.on(.get, "archived-apps", need: .instanceAdmin) { request, _ in
            let (limit, offset) = try helpers.paging(request)
            let (archived, total) = try await people.archivedApps(limit: limit, offset: offset)
            return JSONResponse(pageJSON(archived.map { appJSON($0, role: nil) }, total: total, limit: limit, offset: offset))
        }
        routes.on(.post, "archived-apps/{archived}/restore", need: .instanceAdmin) { _, context in
            let key = try context.pathParameter("archived")
            guard let app = try await apps.restore(key) else { throw Problem.notFound("no archived app \(key)") }
            return JSONResponse(appJSON(app, role: .admin))
        }
        routes.on(.get, "users", need: .instanceAdmin) { request, _ in
            let (limit, offset) = try helpers.paging(request)
            let (users, total) = try await people.listUsers(limit: limit, offset: offset)
            return JSONResponse(pageJSON(users.map(\.json), total: total, limit: limit, offset: offset))
        }
        // A new account gets a one-time link to set its password (no mail is sent: the link is in
        // the answer, for whoever made the account to pass on).
        routes.on(.post, "users", need: .instanceAdmin) { request, context in
            let (r, problems) = try await helpers.reader(request, keys: ["email", "name", "admin"])
            let email = r.string("email", required: true, nonEmpty: true, maxLength: 254)
            let name = r.string("name", maxLength: 200)
            let admin = r.bool("admin")
            if let email, !Self.looksLikeEmail(email) { problems.add("/email", "must be an email address") }
            guard problems.isEmpty, let email else { throw Problem.invalid(problems.errors, count: problems.count) }
            let (user, made) = try await people.createAccount(
                email: email, name: name ?? "", isAdmin: admin ?? false, passwordLinkBy: context.principal?.displayName ?? "")
            guard let (secret, link) = made else { throw Problem.notFound("link") }
            return JSONResponse(["user": user.json, "link": link.json, "url": .string(await deliver(secret, link))], status: .created)
        }
        routes.on(.post, "users/{id}/password-link", need: .instanceAdmin) { _, context in
            let id = try context.pathParameter("id")
            guard let user = try await people.user(id: id) else { throw Problem.notFound("no account \(id)") }
            let (secret, link) = try await people.createPasswordLink(email: user.email, createdBy: context.principal?.displayName ?? "")
            return JSONResponse(["user": user.json, "link": link.json, "url": .string(await deliver(secret, link))], status: .created)
        }
        routes.on(.get, "audit", need: .instanceAdmin) { request, _ in
            try await auditPage(appId: nil, request)
        }
    }

    /// One `@` with something before it, a `.` after it, no white space or NUL: the document's
    /// pattern, read by code point (a combining mark after `@` or `.` must not hide it, as it
    /// would in a Character).
    static func looksLikeEmail(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard let at = scalars.firstIndex(of: "@"), at > 0, scalars.lastIndex(of: "@") == at else { return false }
        return scalars[(at + 1)...].contains(".") && !scalars.contains(where: { $0 == "\0" || isPatternWhitespace($0) })
    }

    /// White space as the document's patterns list it (ECMAScript's `\s` less the byte-order mark).
    static func isPatternWhitespace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    // MARK: One app's members, invitations, tokens and activity

    private func registerAppAdministration(on routes: RouteRegistrar<AppContext>) {
        // App settings: the name, and the slug (the old public URL answers 301 for 90 days).
        routes.on(.patch, "", need: .role(.admin)) { request, context in
            let (r, problems) = try await helpers.reader(request, keys: ["name", "slug"])
            // A merge patch's null removes a member; an app's name and slug cannot be removed.
            for key in ["name", "slug"] where r.object[key]?.isNull == true { problems.add(r.at(key), "cannot be removed (null); give a new \(key) or leave it out") }
            let name = r.string("name", nonEmpty: true, maxLength: 200)
            let slug = r.string("slug", nonEmpty: true, maxLength: 63)
            // Checked here too, so that a bad slug is listed with every other problem of the body.
            if let slug, !Store.isValidSlug(slug) { problems.add(r.at("slug"), Store.slugRule) }
            guard problems.isEmpty else { throw Problem.invalid(problems.errors, count: problems.count) }
            let app = try await apps.update(appId: context.app.id, name: name, slug: slug)
            return JSONResponse(appJSON(app, role: context.role))
        }
        // Deleting archives: nothing is removed, and an instance admin can restore it.
        routes.on(.delete, "", need: .role(.admin)) { _, context in
            try await apps.archive(appId: context.app.id)
            return NoContent()
        }
        routes.on(.get, "members", need: .role(.admin)) { request, context in
            let (limit, offset) = try helpers.paging(request)
            let (members, total) = try await people.members(appId: context.app.id, limit: limit, offset: offset)
            // Who they are and their role here; not whether they are instance admins or have set a
            // password (an app's admins need not know).
            return JSONResponse(pageJSON(members.map { m in
                ["id": .string(m.user.id), "email": .string(m.user.email), "name": .string(m.user.name), "role": .string(m.role.rawValue),
                 "created_at": .string(Timestamp.format(m.user.createdAt))]
            }, total: total, limit: limit, offset: offset))
        }
        routes.on(.put, "members/{user}", need: .role(.admin)) { request, context in
            let userId = try context.pathParameter("user")
            let (r, problems) = try await helpers.reader(request, keys: ["role"])
            let role = r.role()
            guard problems.isEmpty, let role else { throw Problem.invalid(problems.errors, count: problems.count) }
            try await team.setRole(appId: context.app.id, userId: userId, role: role)
            return JSONResponse(["user_id": .string(userId), "role": .string(role.rawValue)])
        }
        routes.on(.delete, "members/{user}", need: .role(.admin)) { _, context in
            try await team.removeMember(appId: context.app.id, userId: try context.pathParameter("user"))
            return NoContent()
        }
        routes.on(.get, "invitations", need: .role(.admin)) { request, context in
            let (limit, offset) = try helpers.paging(request)
            let (links, total) = try await people.pendingInvitations(appId: context.app.id, limit: limit, offset: offset)
            return JSONResponse(pageJSON(links.map(\.json), total: total, limit: limit, offset: offset))
        }
        routes.on(.post, "invitations", need: .role(.admin)) { request, context in
            let (r, problems) = try await helpers.reader(request, keys: ["email", "role"])
            let email = r.string("email", required: true, nonEmpty: true, maxLength: 254)
            let role = r.role()
            if let email, !Self.looksLikeEmail(email) { problems.add("/email", "must be an email address") }
            guard problems.isEmpty, let email, let role else { throw Problem.invalid(problems.errors, count: problems.count) }
            let (secret, link) = try await team.invite(
                appId: context.app.id, email: email, role: role, createdBy: context.principal?.displayName ?? "",
                grantedBy: context.principal?.grantor ?? .operator)
            let url = await deliver(secret, link)
            // With mail, the link goes to the invitee only (see `LinkDelivery`).
            return JSONResponse(
                ["invitation": link.json, "url": delivery.handsLinksToTheirPeople ? .null : .string(url)], status: .created)
        }
        routes.on(.delete, "invitations/{id}", need: .role(.admin)) { _, context in
            try await team.withdrawInvitation(appId: context.app.id, id: try context.pathParameter("id"))
            return NoContent()
        }
        routes.on(.get, "tokens", need: .role(.admin)) { request, context in
            let (limit, offset) = try helpers.paging(request)
            let (tokens, total) = try await people.tokens(appId: context.app.id, limit: limit, offset: offset)
            return JSONResponse(pageJSON(tokens.map(\.json), total: total, limit: limit, offset: offset))
        }
        // The token is in this answer only; afterwards it is known by its id and name.
        routes.on(.post, "tokens", need: .role(.admin)) { request, context in
            let (r, problems) = try await helpers.reader(request, keys: ["name", "role", "expires_at"])
            let name = r.string("name", required: true, nonEmpty: true, maxLength: 100)
            let role = r.role()
            let asked = r.expiry(within: 5 * 366 * 24 * 3600, described: "5 years")
            let expires = context.principal?.grantedExpiry(asked: asked, fallback: nil, problems: problems) ?? asked
            guard problems.isEmpty, let name, let role else { throw Problem.invalid(problems.errors, count: problems.count) }
            let (token, info) = try await team.createToken(
                appId: context.app.id, name: name, role: role, expiresAt: expires, createdBy: context.principal?.displayName ?? "",
                grantedBy: context.principal?.grantor ?? .operator)
            var o = info.json.objectValue ?? [:]
            o["token"] = .string(token)
            return JSONResponse(.object(o), status: .created, headers: [.cacheControl: "no-store"])
        }
        routes.on(.delete, "tokens/{id}", need: .role(.admin)) { _, context in
            try await team.revokeToken(appId: context.app.id, id: try context.pathParameter("id"))
            return NoContent()
        }
        routes.on(.get, "audit", need: .role(.admin)) { request, context in
            try await auditPage(appId: context.app.id, request)
        }
    }

    /// `GET …/audit?actor=&kind=&id=&since=&until=&limit=&offset=`, newest first.
    private func auditPage(appId: String?, _ request: Request) async throws -> JSONResponse {
        let (limit, offset) = try helpers.paging(request)
        func text(_ name: String) throws -> String? {
            try helpers.queryText(request, name, maxCharacters: 300)
        }
        func date(_ name: String) throws -> Date? {
            guard let value = try text(name) else { return nil }
            guard let date = Timestamp.parse(value) else {
                throw Problem.badParameter(name, "\(name) must be an RFC 3339 date and time like 2026-11-23T10:00:00Z")
            }
            return date
        }
        guard offset <= Store.auditWindow else {
            throw Problem.badParameter("offset", "the newest \(Store.auditWindow) matching entries are paged through at most; narrow with until= (the at of the last entry seen) to go further back")
        }
        let filter = AuditFilter(actor: try text("actor"), kind: try text("kind"), resourceId: try text("id"), since: try date("since"), until: try date("until"))
        let (entries, total, capped) = try await people.auditEntries(appId: appId, filter: filter, limit: limit, offset: offset)
        var page = pageJSON(entries.map(\.json), total: total, limit: limit, offset: offset).objectValue ?? [:]
        page["total_capped"] = .bool(capped)
        return JSONResponse(.object(page))
    }
}

extension ObjectReader {
    /// `role`: one of the four roles, required.
    func role() -> Role? {
        let text = string("role", required: true)
        let role = text.flatMap(Role.init)
        if text != nil, role == nil { problems.add(at("role"), "must be one of viewer, editor, publisher, admin") }
        return role
    }
}

/// Where one-time links (set-password links, invitations) go besides the answer that made them.
/// Rivers sends no mail itself; to mail them, implement this (post to your mail service; never log
/// the URL: it is a credential until used) and set `ServerConfiguration.linkDelivery`.
public protocol LinkDelivery: Sendable {
    func deliver(_ link: OneTimeLink, url: String) async
    /// Whether the hook hands links to the people they are for (mail). Then an invitation's
    /// answer leaves its link out: an app admin who held the link of an email with no account yet
    /// could choose that account's password. True unless the hook says otherwise.
    var handsLinksToTheirPeople: Bool { get }
}

extension LinkDelivery {
    public var handsLinksToTheirPeople: Bool { true }
}

/// The default: links are only shown to whoever made them.
public struct NoLinkDelivery: LinkDelivery {
    public init() {}
    public func deliver(_ link: OneTimeLink, url: String) async {}
    public var handsLinksToTheirPeople: Bool { false }
}
