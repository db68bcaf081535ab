import Foundation
import Hummingbird
import RiversCore
import RiversServices
import RiversStore

/// `/plugins`: register Zapp plugin manifests (screen plugins, ui_component plugins, navigation
/// and hook plugins), keep their versions, and give the editor a form for each.
struct PluginController {
    /// What is read (the plugins as stored).
    let store: any PluginRepository
    /// What is written.
    let plugins: PluginService
    let helpers: APIHelpers

    func register(on routes: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()
        appRoutes.on(.get, "plugins", need: .role(.viewer)) { request, context in
            let app = context.app
            let (limit, offset) = try helpers.paging(request)
            return JSONResponse(try await store.listPlugins(appId: app.id, limit: limit, offset: offset).json)
        }
        appRoutes.on(.post, "plugins", need: .role(.editor)) { request, context in
            let app = context.app
            let (plugin, created) = try await plugins.register(appId: app.id, manifestJSON: try await helpers.body(request))
            return JSONResponse(plugin, status: created ? .created : .ok, location: "/api/v1/apps/\(app.slug)/plugins/\(plugin.identifier)")
        }
        appRoutes.on(.get, "plugins/{id}", need: .role(.viewer)) { _, context in
            let app = context.app
            return JSONResponse(try await store.plugin(appId: app.id, identifier: try context.pathParameter("id")))
        }
        appRoutes.on(.put, "plugins/{id}", need: .role(.editor)) { request, context in
            let app = context.app
            let precondition = try helpers.precondition(request)
            let (plugin, _) = try await plugins.register(
                appId: app.id, manifestJSON: try await helpers.body(request), expectedIdentifier: try context.pathParameter("id"),
                precondition: precondition, replace: true)
            return JSONResponse(plugin)
        }
        appRoutes.on(.delete, "plugins/{id}", need: .role(.editor)) { request, context in
            let app = context.app
            try await plugins.delete(appId: app.id, identifier: try context.pathParameter("id"), precondition: try helpers.precondition(request))
            return NoContent()
        }
        appRoutes.on(.get, "plugins/{id}/form", need: .role(.viewer)) { request, context in
            let app = context.app
            // Any manifest_version a plugin was registered with (up to 10,000 characters of any kind but NUL).
            let version = try helpers.queryText(request, "version", maxCharacters: Limits.maxStringLength, nulOnly: true)
            let manifest = try await store.pluginManifest(appId: app.id, identifier: try context.pathParameter("id"), version: version)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(manifest.form()))))
        }
    }
}
