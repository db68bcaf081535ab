import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversStore
import Testing

@testable import RiversServer

/// Issue 26: a write of a screen decodes once. The JSON texts the server parses and writes for
/// one PATCH are counted (`JSONWork`, bound around each request): the body is parsed once, the
/// stored form written once, and the answer is the text PostgreSQL returns (no JSON written for
/// it). The current screen and its family come typed from the process's cache when their row
/// versions are the ones kept: after the screen was made or last saved by this process.
@Suite("A screen write parses its body once and writes its stored form once")
struct ScreenWriteTests {
    func components() -> [JSONValue] {
        (0..<12).map { i in component(i % 2 == 0 ? "list" : "grid", i % 2 == 0 ? ["LIST_1"] : ["GRID_1"], source: "feed-\(i)") }
    }

    @Test func aPatchParsesItsBodyOnceAndWritesOnce() async throws {
        let count = JSONWorkCount()
        try await withAPI(jsonWork: count) { api in
            try await api.create("families", phoneFamily)
            count.reset()
            let made = try await api.create("screens", screenBody("Home", components: components()))
            let id = try #require(made.json["id"]?.stringValue)
            // A create, too, writes the stored form from the typed screen and answers with the
            // stored text: one serialization, no tree of the screen.
            #expect(count.serializations.count == 1 && count.screenTrees == 0, "\(count.serializations) \(count.screenTrees)")
            #expect(made.text == (try await api.request(.get, "screens/\(id)")).text)

            // The screen was kept as created: the first save parses its body only too.
            count.reset()
            let first = try await api.request(.patch, "screens/\(id)", json: ["name": "Start"])
            #expect(first.status == .ok, "\(first.text)")
            #expect(count.parses.count == 1, "the body: \(count.parses)")
            #expect(count.serializations.count == 1, "the stored form only: \(count.serializations)")

            // The next: only the body is parsed, only the stored form written.
            let patch: JSONValue = ["name": "Start again", "styles": ["background_color": "#101010FF"]]
            count.reset()
            let second = try await api.request(.patch, "screens/\(id)", json: patch)
            #expect(second.status == .ok, "\(second.text)")
            #expect(count.parses == [patch.serialized().count], "one parse, of the body sent: \(count.parses)")
            #expect(count.serializations.count == 1, "one serialization, to storage: \(count.serializations)")
            #expect(count.screenTrees == 0, "the patch is applied to the typed screen, and the stored form written from it")
            #expect(second.json["name"] == "Start again" && second.json["revision"] == 3)
            #expect(second.json.at("styles", "background_color") == "#101010FF")

            // A reorder and a replacement make no tree of the screen either.
            let ids = (second.json["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            count.reset()
            let reordered = try await api.request(.post, "screens/\(id)/reorder", json: ["component_ids": .array(ids.reversed().map(JSONValue.string))])
            #expect(reordered.status == .ok, "\(reordered.text)")
            #expect((reordered.json["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } == ids.reversed())
            #expect(count.parses.count == 1 && count.serializations.count == 1 && count.screenTrees == 0, "\(count.parses) \(count.serializations) \(count.screenTrees)")
            var replacement = reordered.json.objectValue ?? [:]
            replacement["name"] = "Replaced"
            count.reset()
            let replaced = try await api.request(.put, "screens/\(id)", json: .object(replacement))
            #expect(replaced.status == .ok, "\(replaced.text)")
            #expect(replaced.json["name"] == "Replaced" && replaced.json["revision"] == 5)
            #expect(count.parses.count == 1 && count.serializations.count == 1 && count.screenTrees == 0, "\(count.parses) \(count.serializations) \(count.screenTrees)")
            count.reset()
            let patchedBack = try await api.request(.patch, "screens/\(id)", json: ["name": "Start again"])
            #expect(patchedBack.status == .ok && patchedBack.json["revision"] == 6, "\(patchedBack.text)")

            // The answer is the stored text, as a read of the screen gives it.
            let read = try await api.request(.get, "screens/\(id)")
            #expect(patchedBack.text == read.text)
            #expect(patchedBack.headers[.eTag] == read.headers[.eTag])

            // The family changed in between: read again (its row version differs), and used.
            var family = phoneFamily.objectValue ?? [:]
            family["cell_styles"] = .array((phoneFamily["cell_styles"]?.arrayValue ?? []) + [["id": "HERO_1", "columns": 1, "height": 300]])
            #expect(try await api.request(.put, "families/FAMILY_1", json: .object(family)).status == .ok)
            count.reset()
            let hero = try await api.request(.patch, "screens/\(id)", json: ["ui_components": .array([component("hero", ["HERO_1"], source: "feed-h")])])
            #expect(hero.status == .ok, "\(hero.text)")
            #expect(count.parses.count == 2, "the body and the changed family: \(count.parses)")
            count.reset()
            let missing = try await api.request(.patch, "screens/\(id)", json: ["ui_components": .array([component("list", ["NOPE"])])])
            #expect(missing.status == .unprocessableContent)
            #expect(missing.json.at("errors", 0, "pointer") == "/ui_components/0/cell_styles/0")
            #expect(count.parses.count == 1, "a refused write parses only its body too: \(count.parses)")

            // A process that did not make it (nothing kept) reads the stored screen and its family.
            let other = try await withOtherProcess(api, count: count) { other in
                count.reset()
                let answer = try await other.request(.patch, "screens/\(id)", json: ["name": "Start, elsewhere"])
                #expect(count.parses.count == 3, "the body, the stored screen, its family: \(count.parses)")
                return answer
            }
            #expect(other.status == .ok, "\(other.text)")
            // Back here, that write is seen: the row version kept is not the current one.
            count.reset()
            #expect(try await api.request(.patch, "screens/\(id)", json: ["name": "Home"]).status == .ok)
            #expect(count.parses.count == 3, "the stored screen changed elsewhere: read again: \(count.parses)")
        }
    }

    /// `body` against a second server on the same database (with caches of its own), as the
    /// same app and token.
    func withOtherProcess<Value: Sendable>(
        _ api: TestAPI, count: JSONWorkCount, _ body: @Sendable @escaping (TestAPI) async throws -> Value
    ) async throws -> Value {
        let store = Store(client: try await TestDatabase.client(), logger: testLogger)
        let router = buildRouter(store: store, configuration: testConfiguration(), documents: PublishedDocuments(store: store))
        let application = Application(
            responder: CountingJSONWork(inner: router.buildResponder(), count: count),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: testLogger)
        return try await application.test(.live) { client in
            try await body(TestAPI(client: client, store: store, app: api.app, token: api.token))
        }
    }

    /// What a write keeps for the next one is what a read of the stored text gives: a preview
    /// served from the kept screen equals one read afresh by a process that never saw the write.
    @Test func theScreenKeptAfterAWriteIsTheStoredOne() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let made = try await api.create("screens", screenBody("Home", components: components()))
            let id = try #require(made.json["id"]?.stringValue)
            let patches: [JSONValue] = [["name": "One"], ["rules": ["pull_to_refresh": true]], ["extra": ["legacy": [1.5, "x", nil]]]]
            for (i, patch) in patches.enumerated() {
                let answer = try await api.request(.patch, "screens/\(id)", json: patch)
                #expect(answer.status == .ok, "patch \(i): \(answer.text)")
                let kept = try await api.store.savedScreen(appId: api.app.id, id: id)
                let fresh = try await Store(client: try await TestDatabase.client(), logger: testLogger).savedScreen(appId: api.app.id, id: id)
                #expect(kept.screen == fresh.screen, "patch \(i)")
                #expect(kept.options.pluginScreenTypes == fresh.options.pluginScreenTypes)
            }
        }
    }
}
