import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Apps made, renamed, archived, restored and purged over in-memory storage: no PostgreSQL (the
/// fast tier).
@Suite("Apps, in memory")
struct AppServiceTests {
    let storage = InMemoryApps()
    var apps: AppService { AppService(storage: storage) }

    func refusal(_ work: () async throws -> Void) async -> String? {
        do {
            try await work()
            return nil
        } catch StoreError.conflict(let message, _) {
            return message
        } catch StoreError.invalid(let errors) {
            return "invalid " + errors.map(\.pointer).joined(separator: " ")
        } catch {
            return "\(error)"
        }
    }

    @Test func aSlugIsNeverHandedToAnotherAppWhileItsURLsMayStillBeInUse() async throws {
        #expect(await refusal { _ = try await apps.create(slug: "Not A Slug", name: "x") } == "invalid /slug")
        #expect(await refusal { _ = try await apps.create(slug: UUIDText.random(), name: "x") } == "invalid /slug", "a slug never looks like an id")
        let news = try await apps.create(slug: "news", name: "News")
        #expect(await refusal { _ = try await apps.create(slug: "news", name: "Again") }?.contains("exists already") == true)

        // A new slug: the old one redirects to it, and no other app may take it meanwhile.
        let renamed = try await apps.update(appId: news.id, name: "Daily", slug: "daily")
        #expect(renamed.slug == "daily" && renamed.name == "Daily" && storage.redirect(of: "news") == news.id)
        #expect(storage.notified == ["news", "daily"])
        #expect(await refusal { _ = try await apps.create(slug: "news", name: "Thief") }?.contains("still redirects") == true)
        // The app itself may take its old slug back.
        _ = try await apps.update(appId: news.id, name: nil, slug: "news")
        #expect(storage.redirect(of: "news") == nil && storage.redirect(of: "daily") == news.id)

        // Once a redirect has run out, the slug is free again, unless the app published under it.
        storage.age(redirectsBy: Store.slugRedirectLifetime + 1)
        let sport = try await apps.create(slug: "daily", name: "Sport")
        storage.markPublished(appId: sport.id)
        _ = try await apps.update(appId: sport.id, name: nil, slug: "sport")
        storage.age(redirectsBy: Store.slugRedirectLifetime + 1)
        #expect(await refusal { _ = try await apps.create(slug: "daily", name: "Late") }?.contains("published another app's documents") == true)
        #expect(await refusal { _ = try await apps.update(appId: news.id, name: nil, slug: "sport") }?.contains("exists already") == true)
        #expect(await refusal { _ = try await apps.update(appId: news.id, name: nil, slug: "-bad") } == "invalid /slug")
    }

    @Test func anAppChangesItsSlugABoundedNumberOfTimesWithinTheRedirectsLifetime() async throws {
        let app = try await apps.create(slug: "s0", name: "S")
        let max = Limits.maxFormerSlugsPerApp
        for i in 1...max { _ = try await apps.update(appId: app.id, name: nil, slug: "s\(i)") }
        // Every former slug redirects to it: no new one, but any of them back, and the name still.
        #expect(await refusal { _ = try await apps.update(appId: app.id, name: nil, slug: "another") }?.contains("\(max) times within 90 days") == true)
        #expect(storage.redirect(of: "another") == nil)
        _ = try await apps.update(appId: app.id, name: nil, slug: "s3")
        #expect(try await apps.update(appId: app.id, name: "Renamed", slug: nil).name == "Renamed")
        // Once they stop redirecting, it may change again.
        storage.age(redirectsBy: Store.slugRedirectLifetime + 1)
        #expect(try await apps.update(appId: app.id, name: nil, slug: "another").slug == "another")
    }

    @Test func archivingCancelsSchedulesAndOnlyAnArchivedAppIsPurged() async throws {
        let app = try await apps.create(slug: "shop", name: "Shop")
        storage.addPendingSchedules(appId: app.id, count: 3)
        #expect(try await apps.purge("shop") == nil, "a live app is not purged")
        try await apps.archive(appId: app.id)
        #expect(storage.isArchived(appId: app.id) == true && storage.pendingSchedules(appId: app.id) == 0 && storage.notified.last == "shop")
        await #expect(throws: StoreError.self) { try await apps.archive(appId: app.id) }
        await #expect(throws: StoreError.self) { _ = try await apps.update(appId: app.id, name: "Gone", slug: nil) }
        #expect(try await apps.restore(app.id.uppercased())?.slug == "shop" && storage.isArchived(appId: app.id) == false)
        #expect(try await apps.restore("shop") == nil, "restored already")
        try await apps.archive(appId: app.id)
        #expect(try await apps.purge("shop")?.id == app.id && storage.isArchived(appId: app.id) == nil)
        #expect(try await apps.purge("shop") == nil)
    }
}
