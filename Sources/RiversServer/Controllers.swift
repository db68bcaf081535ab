import Hummingbird
import RiversCore
import RiversStore

/// The `/api/v1` routes.
struct APIController {
    /// What the app's resources are kept in (`Store` on PostgreSQL).
    let store: any SavedScreenRepository & FamilyRepository & PluginRepository
    let helpers: APIHelpers
    let baseURL: String

    /// An app as the API shows it, with the stable URL of its published document.
    func appJSON(_ app: App, role: Role?) -> JSONValue { app.json(baseURL: baseURL, role: role) }

    func register(on routes: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()
        PreviewController(store: store, helpers: helpers).register(on: routes)
        appRoutes.on(.get, "", need: .role(.viewer)) { _, context in
            JSONResponse(appJSON(context.app, role: context.role))
        }
        routes.on(.get, "component-types", need: .authenticated) { _, _ in
            JSONResponse(["items": .array(ComponentType.builtIn.map(\.json))])
        }
        // The app's catalog: the built-in types and its ui_component plugins.
        appRoutes.on(.get, "component-types", need: .role(.viewer)) { _, context in
            let app = context.app
            let catalog = try await store.registry(appId: app.id).catalog
            let ids = ComponentType.builtIn.map(\.id) + catalog.types.keys.filter { id in !ComponentType.builtIn.contains { $0.id == id } }.sorted()
            return JSONResponse(["items": .array(ids.compactMap { catalog.types[$0]?.json })])
        }
    }
}
