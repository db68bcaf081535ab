import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Publishing and rollback over in-memory storage: no PostgreSQL (the fast tier).
@Suite("Publishing, in memory")
struct PublishServiceTests {
    let appId = "99999999-9999-4999-8999-999999999999"

    @Test func theDraftIsPublishedOnceAndRolledBackAsANewVersion() async throws {
        let storage = try await contentWithFamily(appId: appId)
        let publishing = PublishService(storage: storage)
        // Nothing to publish yet: the check says why, and nothing is stored.
        let empty = try await invalid { try await publishing.publish(appId: appId, note: "", publishedBy: "test") }
        #expect(!empty.isEmpty && storage.versions(appId: appId).isEmpty)

        let (_, homeId) = try await ScreenService(storage: storage).create(appId: appId, body: screen("Home", [list("feed-1")]))
        guard case .published(let first) = try await publishing.publish(appId: appId, note: "first", publishedBy: "test") else {
            Issue.record("the first publish stored nothing")
            return
        }
        #expect(first.number == 1 && first.appId == appId && storage.channel(appId: appId, name: ChannelName.production) == 1)
        // The document is rivers.json of the draft, and its gzip the same bytes.
        let document = try JSONValue.parse(first.document)
        #expect(document.arrayValue?.first?["id"]?.stringValue == homeId, "\(String(decoding: first.document, as: UTF8.self).prefix(200))")
        #expect(first.sha256 == sha256Hex(first.document) && !first.gzip.isEmpty)

        // Unchanged: the same document is not stored again.
        guard case .unchanged(let same) = try await publishing.publish(appId: appId, note: "", publishedBy: "test") else {
            Issue.record("an unchanged draft was stored again")
            return
        }
        #expect(same.number == 1 && storage.versions(appId: appId).count == 1)

        _ = try await ScreenService(storage: storage).update(appId: appId, id: homeId, precondition: .none, edit: .mergePatch(["name": "Start"]))
        guard case .published(let second) = try await publishing.publish(appId: appId, note: "", publishedBy: "test") else {
            Issue.record("a changed draft was not published")
            return
        }
        #expect(second.number == 2 && second.sha256 != first.sha256)

        // A rollback stores version 1's bytes again as version 3, and production points at it.
        guard case .published(let rolled) = try await publishing.rollback(appId: appId, to: 1, publishedBy: "test", note: "") else {
            Issue.record("the rollback stored nothing")
            return
        }
        #expect(rolled.number == 3 && rolled.rollbackOf == 1 && rolled.document == first.document && rolled.note == "rollback to version 1")
        #expect(storage.channel(appId: appId, name: ChannelName.production) == 3)
        do {
            _ = try await publishing.rollback(appId: appId, to: 9, publishedBy: "test", note: "")
            Issue.record("a rollback to no version went through")
        } catch StoreError.notFound {}
        #expect(try await invalid { try await publishing.publish(appId: appId, note: "", publishedBy: "test", channel: "beta") } == ["/channel"])
        #expect(storage.versions(appId: appId).map(\.number) == [1, 2, 3])
    }
}
