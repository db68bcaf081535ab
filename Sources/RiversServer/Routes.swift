import Hummingbird
import NIOConcurrencyHelpers
import RiversCore
import RiversStore

/// Every route the server answers, as `METHOD /path/{param}`; the OpenAPI test checks that the
/// document describes exactly these.
public final class RouteLog: Sendable {
    private let entries = NIOLockedValueBox<[String]>([])
    public init() {}
    public var routes: [String] { entries.withLockedValue { $0 } }
    func record(_ method: HTTPRequest.Method, _ path: String) {
        entries.withLockedValue { $0.append("\(method.rawValue) \(path)") }
    }
}

/// Registers routes under a prefix and records each one.
struct RouteRegistrar<Context: RequestContext> {
    let group: RouterGroup<Context>
    let prefix: String
    let log: RouteLog

    func on<Output: ResponseGenerator>(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, Context) async throws -> Output
    ) {
        let full = path.isEmpty ? prefix : prefix + "/" + path
        log.record(method, full)
        group.on(RouterPath(path), method: method, use: handler)
    }
}

extension RouteRegistrar where Context == RiversContext {
    /// The routes under `apps/{app}`, whose handlers get the checked app in their context.
    func appScoped() -> RouteRegistrar<AppContext> {
        RouteRegistrar<AppContext>(group: group.group("apps/{app}", context: AppContext.self), prefix: prefix + "/apps/{app}", log: log)
    }
}

/// The seven routes of a resource kept as JSON with a revision (families, layouts, screens):
/// list, create, get, replace (PUT), merge-patch (PATCH), delete.
struct ResourceEndpoints: Sendable {
    /// The path segment: `families`.
    var path: String
    var list: @Sendable (_ appId: String, _ limit: Int, _ offset: Int) async throws -> Page
    var get: @Sendable (_ appId: String, _ id: String) async throws -> Record
    var create: @Sendable (_ appId: String, _ body: JSONValue) async throws -> Record
    var update: @Sendable (_ appId: String, _ id: String, RevisionPrecondition, @escaping Transform) async throws -> Record
    var delete: @Sendable (_ appId: String, _ id: String, RevisionPrecondition) async throws -> Void

    func register(on routes: RouteRegistrar<AppContext>, helpers: APIHelpers) {
        let collection = path
        let item = "\(path)/{id}"
        routes.on(.get, collection) { request, context in
            let app = context.app
            let (limit, offset) = try helpers.paging(request)
            return JSONResponse(try await list(app.id, limit, offset).json)
        }
        routes.on(.post, collection) { request, context in
            let app = context.app
            let record = try await create(app.id, try await helpers.body(request))
            let id = record.body["id"]?.stringValue ?? ""
            return JSONResponse(record, status: .created, location: "/api/v1/apps/\(app.slug)/\(path)/\(id)")
        }
        routes.on(.get, item) { request, context in
            let app = context.app
            return JSONResponse(try await get(app.id, try context.pathParameter("id")))
        }
        routes.on(.put, item) { request, context in
            let app = context.app
            let precondition = try helpers.precondition(request)
            let body = try await helpers.body(request)
            return JSONResponse(try await update(app.id, try context.pathParameter("id"), precondition) { _ in body })
        }
        routes.on(.patch, item) { request, context in
            let app = context.app
            let precondition = try helpers.precondition(request)
            let patch = try await helpers.body(request)
            guard patch.objectValue != nil else {
                throw Problem.invalid([FieldError("", "a merge patch must be a JSON object, not \(patch.typeName)")])
            }
            return JSONResponse(try await update(app.id, try context.pathParameter("id"), precondition) { current in
                current.mergePatched(with: patch)
            })
        }
        routes.on(.delete, item) { request, context in
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
