import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// The screen use cases over in-memory storage: no PostgreSQL (the fast tier). The same service
/// runs on `Store` in the server; `ContentStorageTests` (RiversServerTests) runs one script
/// of writes on both storages and compares them.
@Suite("Screen use cases, in memory")
struct ScreenServiceTests {
    let appId = "11111111-1111-4111-8111-111111111111"

    func make() async throws -> (ScreenService, InMemoryContent) {
        let storage = try await contentWithFamily(appId: appId)
        return (ScreenService(storage: storage), storage)
    }

    @Test func theFirstScreenIsHomeAndScreenTypesComeFromTheCounter() async throws {
        let (service, storage) = try await make()
        let (home, homeId) = try await service.create(appId: appId, body: screen("Home", [list("feed-1")]))
        #expect(home.json["home"] == true && home.json["screen_type"] == "home_1" && home.revision == 1)
        #expect(home.json["id"]?.stringValue == homeId)
        let (show, _) = try await service.create(appId: appId, body: screen("Show page"))
        #expect(show.json["home"] == false && show.json["screen_type"] == "show_page_2")
        #expect(storage.nextScreenNumber(appId: appId) == 3)

        // Another screen made home takes the flag, and the old home's revision moves on.
        let (third, _) = try await service.create(appId: appId, body: screen("Live", extra: ["home": true]))
        #expect(third.json["home"] == true)
        let screens = storage.screens(appId: appId)
        #expect(screens.map(\.screen.home) == [false, false, true])
        #expect(screens[0].revision == 2 && screens[1].revision == 1)
    }

    @Test func aCreateReportsEveryProblemAtItsPointerAndWritesNothing() async throws {
        let (service, storage) = try await make()
        let problems = try await invalid {
            try await service.create(appId: appId, body: screen("X", [list("feed-1", styles: ["NOPE"])], extra: ["screen_type": "mine", "parent": "not-a-uuid"]))
        }
        #expect(problems == ["/screen_type"], "screen_type is refused before the body is read")
        let many = try await invalid {
            try await service.create(appId: appId, body: screen("X", [list("feed-1", styles: ["NOPE"])], extra: ["parent": "22222222-2222-4222-8222-222222222222"]))
        }
        #expect(many.contains("/ui_components/0/cell_styles/0") && many.contains("/parent"), "\(many)")
        let noFamily = try await invalid { try await service.create(appId: appId, body: screen("X", family: "GONE")) }
        #expect(noFamily == ["/family"], "\(noFamily)")
        #expect(storage.screens(appId: appId).isEmpty && storage.nextScreenNumber(appId: appId) == 1)
        await #expect(throws: StoreError.self) { try await service.create(appId: "33333333-3333-4333-8333-333333333333", body: screen("X")) }
    }

    @Test func aWriteOverTheCapsRollsBackWhatItDid() async throws {
        let (service, storage) = try await make()
        _ = try await service.create(appId: appId, body: screen("Home"))
        let before = storage.screens(appId: appId)
        // Made home (the old home loses the flag in the transaction), then found too large.
        let big = screen("Big", extra: ["home": true, "extra": ["blob": .string(String(repeating: "x", count: Limits.maxScreenBytes))]])
        let problems = try await invalid { try await service.create(appId: appId, body: big) }
        #expect(problems == [""])
        let after = storage.screens(appId: appId)
        #expect(after.count == 1 && after[0].screen.home && after[0].revision == before[0].revision)
        #expect(storage.nextScreenNumber(appId: appId) == 2)
    }

    @Test func aLayoutFillsWhatTheBodyLeavesOut() async throws {
        let (service, storage) = try await make()
        _ = try await LayoutService(storage: storage).create(appId: appId, body: [
            "id": "two-lists", "name": "Two lists", "family": "FAMILY_1", "ui_components": .array([list("feed-1"), list("feed-2")]),
        ])
        let (made, _) = try await service.create(appId: appId, body: ["name": "From layout", "from_layout": "two-lists"])
        let components = made.json["ui_components"]?.arrayValue ?? []
        #expect(made.json["family"] == "FAMILY_1" && components.count == 2)
        #expect(components.compactMap { $0["data"]?["source"]?.stringValue } == ["feed-1", "feed-2"])
        #expect(Set(components.compactMap { $0["id"]?.stringValue }).count == 2, "fresh ids")

        // A connected screen's components take their data from the sender: no data sources come along.
        let (_, parentId) = try await service.create(appId: appId, body: screen("Parent"))
        let (child, _) = try await service.create(appId: appId, body: ["name": "Child", "from_layout": "two-lists", "parent": .string(parentId)])
        let childSources = (child.json["ui_components"]?.arrayValue ?? []).map { $0["data"]?["source"]?.stringValue ?? "" }
        #expect(childSources == ["", ""], "\(childSources)")

        // An unknown layout is reported with the body's other problems, not those it would have filled.
        let problems = try await invalid {
            try await service.create(appId: appId, body: ["name": 5, "from_layout": "nope"])
        }
        #expect(problems.contains("/from_layout") && problems.contains("/name") && !problems.contains("/family"), "\(problems)")
        // `from_layout: null` is no layout.
        let (plain, _) = try await service.create(appId: appId, body: screen("Plain").mergePatched(with: ["from_layout": .null]))
        #expect(plain.json["from_layout"] == nil && plain.json["ui_components"] == .array([]))
    }

    @Test func updatesPatchReplaceAndReorderTheTypedScreen() async throws {
        let (service, storage) = try await make()
        let (made, id) = try await service.create(appId: appId, body: screen("Home", [list("feed-1"), list("feed-2"), list("feed-3")]))
        let ids = (made.json["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }

        let patched = try await service.update(appId: appId, id: id, precondition: .oneOf([1]), edit: .mergePatch(["name": "Start"]))
        #expect(patched.json["name"] == "Start" && patched.revision == 2 && patched.json["screen_type"] == "home_1")
        // The If-Match revision is checked: the current one is named.
        await #expect(throws: StoreError.self) { try await service.update(appId: appId, id: id, precondition: .oneOf([1]), edit: .mergePatch(["name": "Late"])) }
        do {
            _ = try await service.update(appId: appId, id: id, precondition: .oneOf([1]), edit: .mergePatch(["name": "Late"]))
        } catch StoreError.preconditionFailed(let current) {
            #expect(current == 2)
        }

        let reordered = try await service.update(appId: appId, id: id, precondition: .none, edit: .reorder(ids.reversed()))
        #expect((reordered.json["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } == ids.reversed())
        let badOrder = try await invalid { try await service.update(appId: appId, id: id, precondition: .none, edit: .reorder([ids[0], ids[0], "x"])) }
        #expect(badOrder == ["/component_ids/1", "/component_ids/2", "/component_ids"], "\(badOrder)")

        // A replacement that leaves `home` out keeps it; one that unsets it is refused.
        var replacement = reordered.json.objectValue ?? [:]
        replacement.removeValue(forKey: "home")
        replacement["name"] = "Replaced"
        let replaced = try await service.update(appId: appId, id: id, precondition: .none, edit: .replace(.object(replacement)))
        #expect(replaced.json["name"] == "Replaced" && replaced.json["home"] == true && replaced.revision == 4)
        #expect(try await invalid { try await service.update(appId: appId, id: id, precondition: .none, edit: .mergePatch(["home": false])) } == ["/home"])
        #expect(try await invalid { try await service.update(appId: appId, id: id, precondition: .none, edit: .mergePatch(["screen_type": "other"])) } == ["/screen_type"])
        #expect(try await invalid { try await service.update(appId: appId, id: id, precondition: .none, edit: .replace(replacement.merging(["id": "44444444-4444-4444-8444-444444444444"]) { _, b in b }.json)) } == ["/id"])

        // Nothing changed: nothing written, the revision stays.
        let same = try await service.update(appId: appId, id: id, precondition: .none, edit: .mergePatch(["name": "Replaced"]))
        #expect(same.revision == 4 && storage.screens(appId: appId)[0].revision == 4)
        // Unknown screens, and ids that are not UUIDs, are not found.
        for missing in ["55555555-5555-4555-8555-555555555555", "not-a-uuid"] {
            do {
                _ = try await service.update(appId: appId, id: missing, precondition: .none, edit: .mergePatch(["name": "X"]))
                Issue.record("\(missing) was found")
            } catch StoreError.notFound {}
        }
    }

    @Test func aScreenOthersPointAtStaysAndRemovingHomeMovesTheFlag() async throws {
        let (service, storage) = try await make()
        let (_, homeId) = try await service.create(appId: appId, body: screen("Home"))
        let (_, otherId) = try await service.create(appId: appId, body: screen("Other"))
        let (_, childId) = try await service.create(appId: appId, body: screen("Child", extra: ["parent": .string(homeId)]))
        do {
            try await service.delete(appId: appId, id: homeId, precondition: .none)
            Issue.record("a parent was removed")
        } catch StoreError.conflict(_, let users) {
            #expect(users.map(\.id) == [childId] && users.map(\.via) == [.link("parent")])
        }
        do {
            try await service.delete(appId: appId, id: childId, precondition: .oneOf([7]))
            Issue.record("the precondition was not checked")
        } catch StoreError.preconditionFailed(let current) {
            #expect(current == 1)
        }
        try await service.delete(appId: appId, id: childId, precondition: .oneOf([1]))
        try await service.delete(appId: appId, id: homeId, precondition: .none)
        let left = storage.screens(appId: appId)
        #expect(left.map(\.screen.id) == [otherId] && left[0].screen.home && left[0].revision == 2)
        await #expect(throws: StoreError.self) { try await service.delete(appId: appId, id: homeId, precondition: .none) }
    }

    @Test func concurrentCreatesEachTakeTheirOwnNumber() async throws {
        let (service, storage) = try await make()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<24 { group.addTask { _ = try await service.create(appId: appId, body: screen("S\(i)")) } }
            try await group.waitForAll()
        }
        let screens = storage.screens(appId: appId)
        #expect(screens.count == 24 && screens.filter(\.screen.home).count == 1)
        #expect(Set(screens.map(\.screen.screenType)).count == 24 && storage.nextScreenNumber(appId: appId) == 25)
        #expect(storage.transactions.committed == 24 + 1, "one commit a create, and the family's")
    }
}
