import Hummingbird
import NIOConcurrencyHelpers
import RiversCore
import RiversStore

/// Every route the server answers, as `METHOD /path/{param}`, with what it needs; the OpenAPI
/// test checks that the document describes exactly these, and the access test tries each one
/// with every kind of caller.
public final class RouteLog: Sendable {
    private let entries = NIOLockedValueBox<[(route: String, need: Need)]>([])
    public init() {}
    public var routes: [String] { entries.withLockedValue { $0.map(\.route) } }
    public var needs: [(route: String, need: Need)] { entries.withLockedValue { $0 } }
    func record(_ method: HTTPRequest.Method, _ path: String, need: Need) {
        entries.withLockedValue { $0.append(("\(method.rawValue) \(path)", need)) }
    }
}

/// What a route needs from its caller: the policy, in one place. Every route declares one when it
/// is registered (`RouteRegistrar.on`), and it is checked before the handler reads anything.
public enum Need: Sendable, Equatable, CustomStringConvertible {
    /// No credentials (public documents, health, signing in, one-time links).
    case anyone
    /// Any token or signed-in person.
    case authenticated
    /// A signed-in person (their own sessions and password), not a token.
    case person
    /// An API token (what it is itself), not a person.
    case token
    /// An instance administrator.
    case instanceAdmin
    /// At least this role in the route's app (instance administrators have every role).
    case role(Role)

    public var description: String {
        switch self {
        case .anyone: return "anyone"
        case .authenticated: return "authenticated"
        case .person: return "person"
        case .token: return "token"
        case .instanceAdmin: return "instance admin"
        case .role(let role): return role.rawValue
        }
    }
}

/// A context that can tell whether its caller meets a need.
protocol Authorizing {
    var principal: Principal? { get }
    var refused: Problem? { get }
    /// The caller's role in the route's app, on app routes.
    var role: Role? { get }
}

extension Authorizing {
    /// 401 without credentials, 403 (problem+json, naming the need) with too few rights.
    func authorize(_ need: Need) throws {
        if need == .anyone { return }
        guard let principal else { throw refused ?? Problem.unauthorized }
        let allowed: Bool
        switch need {
        case .anyone, .authenticated: allowed = true
        case .person:
            if case .person = principal { allowed = true } else { allowed = false }
        case .token:
            if case .token = principal { allowed = true } else { allowed = false }
        case .instanceAdmin: allowed = principal.isInstanceAdmin
        case .role(let needed): allowed = principal.isInstanceAdmin || (role.map { $0 >= needed } ?? false)
        }
        guard allowed else { throw Problem.forbidden(need: need, role: role) }
    }
}

/// Registers routes under a prefix and records each one with its need.
struct RouteRegistrar<Context: RequestContext & Authorizing> {
    let group: RouterGroup<Context>
    let prefix: String
    let log: RouteLog

    func on<Output: ResponseGenerator>(
        _ method: HTTPRequest.Method, _ path: String, need: Need,
        _ handler: @escaping @Sendable (Request, Context) async throws -> Output
    ) {
        let full = path.isEmpty ? prefix : prefix + "/" + path
        log.record(method, full, need: need)
        group.on(RouterPath(path), method: method) { request, context in
            try context.authorize(need)
            return try await handler(request, context)
        }
    }
}

extension RouteRegistrar where Context == RiversContext {
    /// The routes under `apps/{app}`, whose handlers get the checked app and role in their context.
    func appScoped() -> RouteRegistrar<AppContext> {
        RouteRegistrar<AppContext>(group: group.group("apps/{app}", context: AppContext.self), prefix: prefix + "/apps/{app}", log: log)
    }
}

/// The seven routes of a resource kept as JSON with a revision (families, layouts, screens):
/// list, create, get, replace (PUT), merge-patch (PATCH), delete.
struct ResourceEndpoints: Sendable {
    /// The path segment: `families`.
    var path: String
    var list: @Sendable (_ appId: String, _ limit: Int, _ offset: Int) async throws -> TextPage
    var get: @Sendable (_ appId: String, _ id: String) async throws -> RecordText
    /// The resource as created (its stored text, or what a `Record` makes of it) and its id.
    var create: @Sendable (_ appId: String, _ body: JSONValue) async throws -> (resource: RecordText, id: String)
    /// The resource as written: its stored text (a screen's), or what a `Record` makes of it.
    var update: @Sendable (_ appId: String, _ id: String, RevisionPrecondition, ResourceEdit) async throws -> RecordText
    var delete: @Sendable (_ appId: String, _ id: String, RevisionPrecondition) async throws -> Void

    func register(on routes: RouteRegistrar<AppContext>, helpers: APIHelpers) {
        let collection = path
        let item = "\(path)/{id}"
        routes.on(.get, collection, need: .role(.viewer)) { request, context in
            let app = context.app
            let (limit, offset) = try helpers.paging(request)
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: try await list(app.id, limit, offset).json))
        }
        routes.on(.post, collection, need: .role(.editor)) { request, context in
            let app = context.app
            let (resource, id) = try await create(app.id, try await helpers.body(request))
            return JSONResponse(resource, status: .created, location: "/api/v1/apps/\(app.slug)/\(path)/\(id)")
        }
        routes.on(.get, item, need: .role(.viewer)) { request, context in
            let app = context.app
            return JSONResponse(try await get(app.id, try context.pathParameter("id")))
        }
        routes.on(.put, item, need: .role(.editor)) { request, context in
            let app = context.app
            let precondition = try helpers.precondition(request)
            let body = try await helpers.body(request)
            return JSONResponse(try await update(app.id, try context.pathParameter("id"), precondition, .replace(body)))
        }
        routes.on(.patch, item, need: .role(.editor)) { request, context in
            let app = context.app
            let precondition = try helpers.precondition(request)
            let patch = try await helpers.body(request)
            guard patch.objectValue != nil else {
                throw Problem.invalid([FieldError("", "a merge patch must be a JSON object, not \(patch.typeName)")])
            }
            return JSONResponse(try await update(app.id, try context.pathParameter("id"), precondition, .mergePatch(patch)))
        }
        routes.on(.delete, item, need: .role(.editor)) { request, context in
            let app = context.app
            try await delete(app.id, try context.pathParameter("id"), try helpers.precondition(request))
            return NoContent()
        }
    }
}

extension RouteLog {
    /// The methods of every route whose pattern matches `path` (`{param}` matches one segment).
    func methods(matching path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var methods: [String] = []
        for route in routes {
            let parts = route.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let pattern = parts[1].drop(while: { $0 == "/" }).split(separator: "/", omittingEmptySubsequences: false)
            guard pattern.count == segments.count,
                  zip(pattern, segments).allSatisfy({ p, s in (p.hasPrefix("{") && !s.isEmpty) || p == s })
            else { continue }
            methods.append(String(parts[0]))
        }
        return Array(Set(methods)).sorted()
    }
}
