import Hummingbird
import RiversCore
import RiversServices
import RiversStore

/// The screen routes: `apps/{app}/screens` (list, create, get, replace, merge-patch, delete) and
/// the reorder of a screen's components. Writes go to the use cases (`ScreenService`), reads to
/// the stored texts; both are given, so the same controller runs on PostgreSQL in the server and
/// on in-memory repositories in the fast tier's router tests (`ContentRouterTests`).
struct ScreenController {
    let screens: ScreenService
    let texts: any RecordTextRepository
    let helpers: APIHelpers

    func register(on routes: RouteRegistrar<AppContext>) {
        ResourceEndpoints(
            path: "screens",
            list: { try await texts.listText(.screens, appId: $0, limit: $1, offset: $2) },
            get: { try await texts.recordText(.screens, appId: $0, id: $1) },
            create: { try await screens.create(appId: $0, body: $1) },
            update: { try await screens.update(appId: $0, id: $1, precondition: $2, edit: ScreenEdit($3)) },
            delete: { try await screens.delete(appId: $0, id: $1, precondition: $2) }
        ).register(on: routes, helpers: helpers)
        routes.on(.post, "screens/{id}/reorder", need: .role(.editor), reorder)
    }

    /// Reordering a screen's components is one request: the new order of their ids.
    @Sendable func reorder(_ request: Request, context: AppContext) async throws -> JSONResponse {
        let precondition = try helpers.precondition(request)
        let order = try ComponentOrder.read(try await helpers.body(request))
        return JSONResponse(try await screens.update(
            appId: context.app.id, id: try context.pathParameter("id"), precondition: precondition, edit: .reorder(order.ids)))
    }
}

/// The family and layout routes: `apps/{app}/families` and `apps/{app}/layouts` (list, create,
/// get, replace, merge-patch, delete), writes to their use cases, reads to the stored texts.
struct FamilyController {
    let families: FamilyService
    let layouts: LayoutService
    let texts: any RecordTextRepository
    let helpers: APIHelpers

    func register(on routes: RouteRegistrar<AppContext>) {
        ResourceEndpoints(
            path: "families",
            list: { try await texts.listText(.families, appId: $0, limit: $1, offset: $2) },
            get: { try await texts.recordText(.families, appId: $0, id: $1) },
            create: { RecordText.created(try await families.create(appId: $0, body: $1)) },
            update: { RecordText(try await families.update(appId: $0, id: $1, precondition: $2, edit: $3)) },
            delete: { try await families.delete(appId: $0, id: $1, precondition: $2) }
        ).register(on: routes, helpers: helpers)
        ResourceEndpoints(
            path: "layouts",
            list: { try await texts.listText(.layouts, appId: $0, limit: $1, offset: $2) },
            get: { try await texts.recordText(.layouts, appId: $0, id: $1) },
            create: { RecordText.created(try await layouts.create(appId: $0, body: $1)) },
            update: { RecordText(try await layouts.update(appId: $0, id: $1, precondition: $2, edit: $3)) },
            delete: { try await layouts.delete(appId: $0, id: $1, precondition: $2) }
        ).register(on: routes, helpers: helpers)
    }
}

/// A new order for a screen's top-level components, by id.
struct ComponentOrder {
    var ids: [String]

    static func read(_ body: JSONValue) throws -> ComponentOrder {
        let problems = Problems()
        guard let r = ObjectReader(body, at: "", problems: problems) else { throw Problem.invalid(problems.errors, count: problems.count) }
        r.rejectUnknownKeys(["component_ids"])
        let ids = r.stringArray("component_ids")
        if ids == nil, problems.isEmpty { problems.add("/component_ids", "is required: the ids of the screen's components in their new order") }
        guard problems.isEmpty, let ids else { throw Problem.invalid(problems.errors, count: problems.count) }
        return ComponentOrder(ids: ids)
    }
}
