import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import PostgresNIO
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// Issue 27: channels, release rules and scheduled promotions.
// Serialized: the schedule tests fire whatever is due in the shared database.
@Suite("Releases", .serialized)
struct ReleasesTests {
    /// An app with a home screen and versions 1 and 2 published (2 is production).
    func twoVersions(_ api: TestAPI) async throws -> String {
        try await api.create("families", phoneFamily)
        let screen = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")], extra: ["home": true]))
        #expect(try await api.request(.post, "publish", json: ["note": "first"]).status == .created)
        let id = try #require(screen["id"]?.stringValue)
        #expect(try await api.request(.patch, "screens/\(id)", json: ["name": "Home two"], headers: [.ifMatch: "*"]).status == .ok)
        #expect(try await api.request(.post, "publish", json: ["note": "second"]).status == .created)
        return id
    }

    func version(_ response: APIResponse) -> String? { response.headers[PublicDocumentController.versionHeader] }

    @Test("channels point at versions, each at a public URL with its own history; publishing to staging leaves production alone")
    func channels() async throws {
        try await withAPI { api in
            let id = try await twoVersions(api)
            let slug = api.app.slug
            let list = try await api.request(.get, "channels")
            #expect(list["total"] == 1 && list.json.at("items", 0)?["name"] == "production" && list.json.at("items", 0)?["version"] == 2)

            // A new channel, then a publish to it: production stays on 2.
            let made = try await api.request(.put, "channels/staging", json: ["version": 1, "note": "QA starts at 1"])
            #expect(made.status == .created, "\(made.text)")
            #expect(made["public_url"]?.stringValue?.hasSuffix("/rivers/\(slug)/channels/staging/rivers.json") == true)
            #expect(try await api.request(.patch, "screens/\(id)", json: ["name": "Home three"], headers: [.ifMatch: "*"]).status == .ok)
            let toStaging = try await api.request(.post, "publish", json: ["channel": "staging"])
            #expect(toStaging.status == .created && toStaging["channel"] == "staging" && toStaging.json.at("version")?["number"] == 3, "\(toStaging.text)")
            let main = try await api.request(.get, "/rivers/\(slug)/rivers.json", authorized: false)
            #expect(version(main) == "2" && main.text.contains("Home two"))
            let staging = try await api.request(.get, "/rivers/\(slug)/channels/staging/rivers.json", authorized: false)
            #expect(staging.status == .ok && version(staging) == "3" && staging.text.contains("Home three"))
            #expect(staging.headers[.cacheControl] == PublicDocumentController.currentCacheControl)
            #expect(staging.headers[.accessControlAllowOrigin] == "*")
            let tags = try #require(staging.headers[CacheTags.surrogateKey])
            #expect(tags == "app-\(api.app.id) app-\(api.app.id)-v3 app-\(api.app.id)-channel-staging")
            #expect(staging.headers[CacheTags.cacheTag] == tags.replacingOccurrences(of: " ", with: ","))
            #expect(main.headers[CacheTags.surrogateKey]?.contains("channel-production") == true)
            // ETag, 304 and gzip as on the main URL.
            let etag = try #require(staging.etag)
            #expect(try await api.request(.get, "/rivers/\(slug)/channels/staging/rivers.json", headers: [.ifNoneMatch: etag], authorized: false).status == .notModified)
            // (Not through api.request: its log of responses is checked as JSON.)
            let gzipped = try await api.client.executeRequest(
                uri: "/rivers/\(slug)/channels/staging/rivers.json", method: .get, headers: [.acceptEncoding: "gzip"], body: nil)
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            // Production by its channel name is the main URL's document; an unknown channel is a 404.
            #expect(version(try await api.request(.get, "/rivers/\(slug)/channels/production/rivers.json", authorized: false)) == "2")
            #expect(try await api.request(.get, "/rivers/\(slug)/channels/nope/rivers.json", authorized: false).status == .notFound)
            // Version 3 exists at its numbered URL though production is on 2.
            #expect(try await api.request(.get, "/rivers/\(slug)/v3/rivers.json", authorized: false).status == .ok)

            // Promote: production to 3, with If-Match; a stale one is refused.
            let prod = try await api.request(.get, "channels/production")
            let revision = try #require(prod.etag)
            let promoted = try await api.request(.put, "channels/production", json: ["version": 3], headers: [.ifMatch: revision])
            #expect(promoted.status == .ok && promoted["version"] == 3, "\(promoted.text)")
            #expect(try await api.request(.put, "channels/production", json: ["version": 1], headers: [.ifMatch: revision]).status == .preconditionFailed)
            #expect(version(try await api.request(.get, "/rivers/\(slug)/rivers.json", authorized: false)) == "3")
            // Promoted again to the version it serves (a retry): nothing moves, so the rollback
            // below still goes back to 2.
            let again = try await api.request(.put, "channels/production", json: ["version": 3], headers: [.ifMatch: try #require(promoted.etag)])
            #expect(again.status == .ok && again["version"] == 3 && again.etag == promoted.etag, "\(again.text)")
            // Publishing the same content again changes nothing; a version that does not exist is a 422 at its field.
            #expect(try await api.request(.post, "publish", json: [:])["changed"] == false)
            let missing = try await api.request(.put, "channels/production", json: ["version": 99])
            #expect(missing.status == .unprocessableContent && missing.pointers == ["/version"])
            #expect(try await api.request(.put, "channels/Bad%20Name", json: ["version": 1]).status == .notFound)

            // Rollback returns to the version before the latest move; the history says it all.
            let back = try await api.request(.post, "channels/production/rollback", json: [:])
            #expect(back.status == .ok && back["version"] == 2, "\(back.text)")
            #expect(version(try await api.request(.get, "/rivers/\(slug)/rivers.json", authorized: false)) == "2")
            let history = try await api.request(.get, "channels/production")
            let moves = try #require(history["history"]?.arrayValue)
            #expect(moves.map { $0["version"] } == [2, 3, 2, 1])
            #expect(moves.first?["note"] == "rollback to version 2")

            // Audited as channel moves.
            let audit = try await api.request(.get, "audit?kind=channel")
            #expect(audit["total"] == 4, "publish to staging, staging made, production moved and rolled back: \(audit.text)")

            // Staging cannot be removed while a rule sends apps to it; production never.
            #expect(try await api.request(.put, "release-rules", json: ["rules": [["channel": "staging", "store": "apple_store"]]]).status == .ok)
            #expect(try await api.request(.delete, "channels/staging").status == .conflict)
            #expect(try await api.request(.delete, "channels/production").status == .conflict)
            #expect(try await api.request(.put, "release-rules", json: ["rules": []]).status == .ok)
            #expect(try await api.request(.delete, "channels/staging").status == .noContent)
            #expect(try await api.request(.get, "/rivers/\(slug)/channels/staging/rivers.json", authorized: false).status == .notFound)
        }
    }

    @Test("who published, moved, scheduled or made a link is named with the email to admins only, as the live stream names people")
    func peopleAreNamedWithoutEmailsToNonAdmins() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")], extra: ["home": true]))
            let email = "grace-\(UUIDText.random().prefix(8))@example.com"
            let user = try await api.store.createUser(email: email, name: "Grace Hopper", isAdmin: false)
            try await TeamService(storage: api.store).setRole(appId: api.app.id, userId: user.id, role: .admin)
            let (secret, session) = try await api.store.createSession(userId: user.id, userAgent: "test", address: "")
            let grace: HTTPFields = [.cookie: "\(SessionCookies.name)=\(secret)", SessionCookies.csrfHeader: session.csrfToken]
            #expect(try await api.request(.post, "publish", json: [:], headers: grace, authorized: false).status == .created)
            #expect(try await api.request(.put, "channels/qa", json: ["version": 1], headers: grace, authorized: false).status == .created)
            #expect(try await api.request(.post, "preview-links", json: [:], headers: grace, authorized: false).status == .created)
            let at = Timestamp.format(Date().addingTimeInterval(3600))
            #expect(try await api.request(.post, "schedules", json: ["channel": "qa", "version": 1, "at": .string(at)], headers: grace, authorized: false).status == .created)
            let viewer = try await TeamService(storage: api.store).createToken(appId: api.app.id, name: "viewer", role: .viewer, createdBy: "test").token
            for (token, shown) in [(viewer, "Grace Hopper"), (api.token, "Grace Hopper <\(email)>")] {
                let versions = try await api.request(.get, "versions", token: token)
                #expect(versions.json.at("items", 0)?["published_by"]?.stringValue == shown, "\(versions.text)")
                let qa = try await api.request(.get, "channels/qa", token: token)
                #expect(qa.json.at("history", 0)?["moved_by"]?.stringValue == shown, "\(qa.text)")
                let links = try await api.request(.get, "preview-links", token: token)
                #expect(links.json.at("items", 0)?["created_by"]?.stringValue == shown, "\(links.text)")
                let schedules = try await api.request(.get, "schedules", token: token)
                #expect(schedules.json.at("items", 0)?["created_by"]?.stringValue == shown, "\(schedules.text)")
                #expect(!versions.text.contains(email) || token == api.token)
            }
        }
    }

    @Test("CDN_TAG_HEADERS picks the fields that carry the cache tags, on every public URL, 200 and 304, from the routes and from memory")
    func cdnTagHeaders() async throws {
        // The bytes of the main URL's 304 fields, by setting.
        let sizes = NIOLockedValueBox<[Int: Int]>([:])
        for (fields, surrogateKey, cacheTag) in [(CDNTagHeaders.cacheTag, false, true), ([], false, false), (.surrogateKey, true, false), (.both, true, true)] {
            try await withAPI(loadIndex: true, tagHeaders: fields) { api in
                _ = try await twoVersions(api)
                let slug = api.app.slug
                // The main URL twice: read from the database first, then answered from memory.
                for path in ["/rivers/\(slug)/rivers.json", "/rivers/\(slug)/rivers.json", "/rivers/\(slug)/v1/rivers.json", "/rivers/\(slug)/channels/production/rivers.json"] {
                    let answer = try await api.request(.get, path, authorized: false)
                    let etag = try #require(answer.etag, "\(path): \(answer.status)")
                    let revalidated = try await api.request(.get, path, headers: [.ifNoneMatch: etag], authorized: false)
                    #expect(answer.status == .ok && revalidated.status == .notModified, "\(path)")
                    for headers in [answer.headers, revalidated.headers] {
                        #expect((headers[CacheTags.surrogateKey] != nil) == surrogateKey, "\(fields.rawValue) \(path)")
                        #expect((headers[CacheTags.cacheTag] != nil) == cacheTag, "\(fields.rawValue) \(path)")
                    }
                    if path == "/rivers/\(slug)/rivers.json" {
                        sizes.withLockedValue { $0[fields.rawValue] = revalidated.headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 } }
                    }
                }
            }
        }
        // What README says: none saves 200 to 320 bytes an answer (318 on the main URL).
        let saved = sizes.withLockedValue { ($0[CDNTagHeaders.both.rawValue] ?? 0) - ($0[0] ?? 0) }
        #expect((300...320).contains(saved), "\(saved)")
    }

    @Test("release rules send app versions of a store to a channel or a pinned version; first match wins; no rule is production")
    func rules() async throws {
        try await withAPI { api in
            _ = try await twoVersions(api)
            let slug = api.app.slug
            #expect(try await api.request(.put, "channels/staging", json: ["version": 1]).status == .created)
            let rules: JSONValue = ["rules": [
                ["store": "google_play", "below_version": "5.2", "version": 1],
                ["store": "apple_store", "from_version": "6.0", "channel": "staging"],
                ["store": "apple_store", "from_version": "6.1", "below_version": "7", "version": 2],
            ]]
            // The ETag of rules never set is "0", and it is what If-Match sends for the first ones.
            let unset = try await api.request(.get, "release-rules")
            #expect(unset.etag == "\"0\"" && unset["rules"] == [])
            let set = try await api.request(.put, "release-rules", json: rules, headers: [.ifMatch: "\"0\""])
            #expect(set.status == .ok, "\(set.text)")
            // The third rule can never apply: the second takes every apple_store app from 6.0.
            let warnings = try #require(set["warnings"]?.arrayValue)
            #expect(warnings.count == 1 && warnings.first?["pointer"] == "/rules/2")
            let etag = try #require(set.etag)

            func served(_ store: String, _ version: String) async throws -> String? {
                let r = try await api.request(.get, "/rivers/\(slug)/\(store)/\(version)/rivers.json", authorized: false)
                #expect(r.status == .ok, "\(store) \(version): \(r.text)")
                return self.version(r)
            }
            #expect(try await served("google_play", "5.1.9") == "1")
            #expect(try await served("google_play", "5.2") == "2")
            #expect(try await served("apple_store", "6.0.1") == "1")  // staging
            #expect(try await served("apple_store", "5.9") == "2")
            #expect(try await served("samsung_app_store", "1.0") == "2")
            // A version an app sends with a suffix is read from its start; one with no number gets what no range names.
            #expect(try await served("google_play", "5.1-beta") == "1")
            #expect(try await served("google_play", "latest") == "2")
            let tagged = try await api.request(.get, "/rivers/\(slug)/apple_store/6.2/rivers.json", authorized: false)
            #expect(tagged.headers[CacheTags.surrogateKey]?.contains("app-\(api.app.id)-rules") == true)
            #expect(tagged.headers[CacheTags.surrogateKey]?.contains("channel-staging") == true)
            #expect(tagged.headers[.vary] == "Accept-Encoding")
            #expect(try await api.request(.get, "/rivers/\(slug)/windows_store/6.2/rivers.json", authorized: false).status == .notFound)

            // What a URL gets, as the editor shows it.
            let resolved = try await api.request(.get, "release-rules/resolve?store=google_play&app_version=5.0")
            #expect(resolved["rule"] == 0 && resolved["version"] == 1 && resolved["channel"] == .null, "\(resolved.text)")
            #expect(try await api.request(.get, "release-rules/resolve?store=nope&app_version=5.0").status == .badRequest)

            // Moving staging moves what its rule serves.
            #expect(try await api.request(.put, "channels/staging", json: ["version": 2]).status == .ok)
            #expect(try await served("apple_store", "6.0.1") == "2")

            // Every problem at its pointer, none saved.
            let bad = try await api.request(.put, "release-rules", json: ["rules": [
                ["store": "itunes", "channel": "staging"],
                ["from_version": "6.x", "version": 1],
                ["from_version": "6", "below_version": "5", "version": 1],
                ["channel": "nowhere"],
                ["version": 99],
                ["channel": "staging", "version": 1],
                [:],
            ]], headers: [.ifMatch: etag])
            #expect(bad.status == .unprocessableContent)
            #expect(Set(bad.pointers) == ["/rules/0/store", "/rules/1/from_version", "/rules/2/below_version", "/rules/5/version", "/rules/6"], "\(bad.text)")
            let unknown = try await api.request(.put, "release-rules", json: ["rules": [["channel": "nowhere"], ["version": 99]]], headers: [.ifMatch: etag])
            #expect(Set(unknown.pointers) == ["/rules/0/channel", "/rules/1/version"], "\(unknown.text)")
            #expect(try await api.request(.put, "release-rules", json: ["rules": []], headers: [.ifMatch: "\"99\""]).status == .preconditionFailed)
            #expect(try await api.request(.get, "release-rules")["rules"]?.arrayValue?.count == 3)
            #expect(try await api.request(.get, "audit?kind=release_rules")["total"] == 1)
        }
    }

    @Test("a transaction over one app never changes or counts another app's schedule or webhook, whatever id it is given")
    func transactionsStayInTheirApp() async throws {
        try await withAPI { api in
            _ = try await twoVersions(api)
            let made = try await api.request(.post, "schedules", json: ["channel": "production", "version": 1, "at": .string(Timestamp.format(Date().addingTimeInterval(3600)))])
            let scheduleId = try #require(made["id"]?.stringValue, "\(made.text)")
            let hook = try await api.request(.post, "webhooks", json: ["url": "https://hooks.example.com/x"])
            let hookId = try #require(hook["id"]?.stringValue, "\(hook.text)")
            #expect(try await api.request(.post, "webhooks/\(hookId)/ping").status == .accepted)
            let other = try await AppService(storage: api.store).create(slug: "t-\(UUIDText.random().prefix(8))", name: "Another app")

            await #expect(throws: StoreError.self) {
                try await api.store.withReleases(appId: other.id) { tx in _ = try await tx.markCancelled(schedule: scheduleId) }
            }
            await #expect(throws: StoreError.self) {
                try await api.store.withReleases(appId: other.id) { tx in _ = try await tx.markFired(schedule: scheduleId, lateAfterSeconds: 60) }
            }
            let schedules = try await api.request(.get, "schedules")
            #expect(schedules.json.at("items", 0, "state") == "pending", "\(schedules.text)")

            let stored = try #require(try await api.store.withWebhooks(appId: api.app.id) { tx in try await tx.webhook(id: hookId) })
            var elsewhere = stored
            elsewhere.url = "https://elsewhere.example.com/x"
            let changed = elsewhere
            await #expect(throws: StoreError.self) {
                try await api.store.withWebhooks(appId: other.id) { tx in _ = try await tx.updateWebhook(changed) }
            }
            #expect(try await api.request(.get, "webhooks/\(hookId)")["url"] == "https://hooks.example.com/x")
            #expect(try await api.store.withWebhooks(appId: other.id) { tx in try await tx.pendingDeliveries(webhookId: hookId, besides: nil) } == 0)
            #expect(try await api.store.withWebhooks(appId: api.app.id) { tx in try await tx.pendingDeliveries(webhookId: hookId, besides: nil) } == 1)
        }
    }

    @Test("finished schedules past the history kept go, the oldest by due time first; pending ones and another app's stay")
    func scheduleHistoryIsTrimmed() async throws {
        try await withAPI { api in
            _ = try await twoVersions(api)
            var ids: [String] = []
            for hours in 1...6 {
                let made = try await api.request(
                    .post, "schedules", json: ["channel": "production", "version": 1, "at": .string(Timestamp.format(Date().addingTimeInterval(Double(hours) * 3600)))])
                ids.append(try #require(made["id"]?.stringValue, "\(made.text)"))
            }
            for index in [0, 1, 3, 4] { #expect(try await api.request(.delete, "schedules/\(ids[index])").status == .noContent) }
            let other = try await AppService(storage: api.store).create(slug: "t-\(UUIDText.random().prefix(8))", name: "Another app")
            #expect(try await api.store.withReleases(appId: other.id) { tx in try await tx.dropScheduleHistory(keeping: 0) } == 0)
            #expect(try await api.store.schedules(appId: api.app.id).total == 6)

            #expect(try await api.store.withReleases(appId: api.app.id) { tx in try await tx.dropScheduleHistory(keeping: 2) } == 2)
            let kept = try await api.store.schedules(appId: api.app.id).schedules.map(\.id)
            // Pending soonest first, then the two latest cancelled, newest first.
            #expect(kept == [ids[2], ids[5], ids[4], ids[3]])
            #expect(try await api.store.withReleases(appId: api.app.id) { tx in try await tx.dropScheduleHistory(keeping: 2) } == 0)
        }
    }

    @Test("a schedule fires once when due, moves its channel as its own actor, can be cancelled, and says when it fired late")
    func schedules() async throws {
        try await withAPI { api in
            _ = try await twoVersions(api)
            let slug = api.app.slug
            let soon = Timestamp.format(Date().addingTimeInterval(1.2))
            let made = try await api.request(.post, "schedules", json: ["channel": "production", "version": 1, "at": .string(soon)])
            #expect(made.status == .created && made["state"] == "pending", "\(made.text)")
            let cancelled = try await api.request(.post, "schedules", json: ["channel": "production", "version": 1, "at": .string(Timestamp.format(Date().addingTimeInterval(1.2)))])
            let cancelledId = try #require(cancelled["id"]?.stringValue)
            #expect(try await api.request(.delete, "schedules/\(cancelledId)").status == .noContent)

            // Refused: the past, a version that does not exist, a channel that does not.
            let bad = try await api.request(.post, "schedules", json: ["channel": "qa", "version": 9, "at": "2020-01-01T00:00:00Z"])
            #expect(bad.status == .unprocessableContent && bad.pointers == ["/at"])
            let unknown = try await api.request(.post, "schedules", json: ["channel": "qa", "version": 9, "at": .string(soon)])
            #expect(Set(unknown.pointers) == ["/version", "/channel"], "\(unknown.text)")

            // Not due yet: nothing fires.
            let store = api.store
            while try await ReleaseService(storage: store).fireDueSchedule() != nil {}  // other tests' due schedules, if any
            #expect(version(try await api.request(.get, "/rivers/\(slug)/rivers.json", authorized: false)) == "2")
            try await Task.sleep(for: .milliseconds(1500))
            var fired: [FiredSchedule] = []
            while let f = try await ReleaseService(storage: store).fireDueSchedule() { fired.append(f) }
            let mine = fired.filter { $0.appId == api.app.id }
            #expect(mine.count == 1 && mine.first?.schedule.late == false)
            #expect(version(try await api.request(.get, "/rivers/\(slug)/rivers.json", authorized: false)) == "1")
            let list = try await api.request(.get, "schedules")
            let states = (list["items"]?.arrayValue ?? []).compactMap { $0["state"]?.stringValue }.sorted()
            #expect(states == ["cancelled", "fired"], "\(list.text)")
            // A fired schedule cannot be cancelled.
            let firedId = try #require(made["id"]?.stringValue)
            #expect(try await api.request(.delete, "schedules/\(firedId)").status == .conflict)

            // The schedule acted as itself.
            let audit = try await api.request(.get, "audit?kind=schedule")
            let actions = (audit["items"]?.arrayValue ?? []).compactMap { $0["action"]?.stringValue }
            #expect(actions.contains("fire") && actions.contains("cancel") && actions.contains("create"), "\(audit.text)")
            let moves = try await api.request(.get, "audit?kind=channel")
            #expect((moves["items"]?.arrayValue ?? []).contains { $0["actor"] == "schedule" && $0["actor_kind"] == "schedule" }, "\(moves.text)")

            // One missed while every process was down fires late and says so.
            let late = try await api.request(.post, "schedules", json: ["channel": "production", "version": 2, "at": .string(Timestamp.format(Date().addingTimeInterval(60)))])
            let lateId = try #require(late["id"]?.stringValue)
            let client = try await TestDatabase.client()
            try await client.query("UPDATE schedules SET due_at = now() - interval '1 hour' WHERE id = \(lateId)::uuid", logger: testLogger)
            var lateFired: FiredSchedule?
            while let f = try await ReleaseService(storage: store).fireDueSchedule() { if f.appId == api.app.id { lateFired = f } }
            #expect(lateFired?.schedule.late == true)
            let fireEntries = try await api.request(.get, "audit?kind=schedule")
            #expect((fireEntries["items"]?.arrayValue ?? []).contains { $0["summary"]?.stringValue?.contains("late") == true }, "\(fireEntries.text)")
        }
    }

    @Test("archiving an app cancels its pending schedules: restored, it fires nothing it was planned to before")
    func archivingCancelsSchedules() async throws {
        try await withAPI { api in
            _ = try await twoVersions(api)
            let pending = try await api.request(.post, "schedules", json: ["channel": "production", "version": 1, "at": .string(Timestamp.format(Date().addingTimeInterval(1)))])
            let id = try #require(pending["id"]?.stringValue)
            try await AppService(storage: api.store).archive(appId: api.app.id)
            try await Task.sleep(for: .milliseconds(1200))
            #expect(try await AppService(storage: api.store).restore(api.app.id) != nil)
            var fired: [FiredSchedule] = []
            while let f = try await ReleaseService(storage: api.store).fireDueSchedule() { fired.append(f) }
            #expect(!fired.contains { $0.schedule.id == id }, "a schedule of an archived app fired after its restore")
            let list = try await api.request(.get, "schedules")
            let mine = (list["items"]?.arrayValue ?? []).first { $0["id"]?.stringValue == id }
            #expect(mine?["state"] == "cancelled", "\(list.text)")
            #expect(version(try await api.request(.get, "/rivers/\(api.app.slug)/rivers.json", authorized: false)) == "2")
            let audit = try await api.request(.get, "audit?kind=schedule")
            #expect((audit["items"]?.arrayValue ?? []).contains { $0["action"] == "cancel" && $0["resource_id"]?.stringValue == id }, "\(audit.text)")
        }
    }

    @Test("exactly once: many firers at once fire each due schedule one time")
    func exactlyOnce() async throws {
        try await withAPI { api in
            _ = try await twoVersions(api)
            for _ in 0..<6 {
                let r = try await api.request(.post, "schedules", json: ["channel": "production", "version": 1, "at": .string(Timestamp.format(Date().addingTimeInterval(1)))])
                #expect(r.status == .created)
            }
            try await Task.sleep(for: .milliseconds(1200))
            let store = api.store
            let firedIds = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var ids: [String] = []
                        while let f = try await ReleaseService(storage: store).fireDueSchedule() { if f.appId == api.app.id { ids.append(f.schedule.id) } }
                        return ids
                    }
                }
                var all: [String] = []
                for try await ids in group { all += ids }
                return all
            }
            #expect(firedIds.count == 6 && Set(firedIds).count == 6)
        }
    }

    @Test("app versions compare part by part and read leniently from URLs; overlaps are found")
    func appVersions() {
        #expect(AppVersion("5.2")! == AppVersion("5.2.0")!)
        #expect(AppVersion("5.10")! > AppVersion("5.9")!)
        #expect(AppVersion("5.2.x") == nil && AppVersion("") == nil && AppVersion("1.2.3.4.5") == nil && AppVersion("1234567") == nil)
        #expect(AppVersion.leading("6.0.1-beta")?.description == "6.0.1")
        #expect(AppVersion.leading("7.2 (431)")?.description == "7.2")
        #expect(AppVersion.leading("beta") == nil)
        let rules = [
            ReleaseRule(store: .googlePlay, below: AppVersion("5.2"), target: .version(12)),
            ReleaseRule(store: nil, from: AppVersion("5.0"), below: AppVersion("6.0"), target: .channel("qa")),
            ReleaseRule(store: .appleStore, from: AppVersion("6.0"), target: .channel("staging")),
        ]
        #expect(ReleaseRules.resolve(rules, store: .googlePlay, version: AppVersion("5.1")).target == .version(12))
        #expect(ReleaseRules.resolve(rules, store: .appleStore, version: AppVersion("5.5")).target == .channel("qa"))
        #expect(ReleaseRules.resolve(rules, store: .appleStore, version: AppVersion("6.0")).target == .channel("staging"))
        #expect(ReleaseRules.resolve(rules, store: .samsungAppStore, version: nil).target == .channel("production"))
        let warnings = ReleaseRules.warnings(rules)
        #expect(warnings.map(\.pointer) == ["/rules/1"], "\(warnings)")
        #expect(ChannelName.problem("staging") == nil && ChannelName.problem("Staging") != nil && ChannelName.problem(String(repeating: "a", count: 33)) != nil)
    }
}

/// Issue 29, item 7: a published version restored into the draft, in one transaction, and undone.
@Suite("Restoring a version into the draft")
struct RestoreIntoDraftTests {
    @Test("PUT draft.json makes a version's document the whole draft; the draft read before puts it back; a broken one changes nothing")
    func restoreAndUndo() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let home = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")], extra: ["home": true]))
            #expect(try await api.request(.post, "publish", json: ["note": "one"]).status == .created)
            let homeId = try #require(home["id"]?.stringValue)
            #expect(try await api.request(.patch, "screens/\(homeId)", json: ["name": "Start"], headers: [.ifMatch: "*"]).status == .ok)
            _ = try await api.create("screens", screenBody("Added later", components: [component("list", source: "feed-2")]))
            let before = try await api.request(.get, "draft.json")

            // Version 1 into the draft: Home is back, the later screen is gone; nothing published.
            let one = try await api.request(.get, "versions/1")
            let document = try #require(one["document"])
            let restored = try await api.request(.put, "draft.json", json: document)
            #expect(restored.status == .ok, "\(restored.text)")
            let names = (try await api.request(.get, "screens")["items"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
            #expect(names == ["Home"], "\(names)")
            #expect(try await api.request(.get, "draft.json").json == document, "the draft is version 1's document, key for key")
            #expect(try await api.request(.post, "publish")["changed"] == false, "the draft is version 1 again")
            #expect(try await api.request(.get, "versions")["total"] == 1)

            // Undo: the draft read before, put back.
            #expect(try await api.request(.put, "draft.json", json: before.json).status == .ok)
            let again = (try await api.request(.get, "screens")["items"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }.sorted()
            #expect(again == ["Added later", "Start"], "\(again)")

            // A broken document is refused whole, at its pointers: the draft stays.
            let broken = try await api.request(.put, "draft.json", json: [["id": "not-a-uuid", "name": 7]])
            #expect(broken.status == .unprocessableContent && !broken.pointers.isEmpty)
            #expect((try await api.request(.get, "screens")["total"]) == 2)
            #expect(try await api.request(.get, "audit?kind=app")["items"]?.arrayValue?.contains { $0["action"] == "replace-draft" } == true)
        }
    }
}
