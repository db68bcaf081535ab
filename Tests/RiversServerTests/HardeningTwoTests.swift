import Foundation
import Hummingbird
import HummingbirdTesting
import RiversCore
import RiversServices
import RiversStore
import Testing

@testable import RiversServer

/// Issue 24 (hardening, second round): each reproduction of the report, as a test.
@Suite("Hardening, second round")
struct HardeningTwoTests {
    static let password = "correct horse battery"

    /// Publishes the app's current screens; the new version's document.
    func publish(_ api: TestAPI, token: String? = nil) async throws -> JSONValue {
        let published = try await api.request(.post, "/api/v1/apps/\(api.app.id)/publish", json: [:], token: token)
        #expect(published.status == .created, "\(published.text)")
        return published.json
    }

    func body(_ document: ServedDocument?) -> String? {
        document.map { String(buffer: $0.body) }
    }

    // MARK: 1. A reused slug

    @Test("a purged app's slug is never given to another app, and no process serves the purged app's bytes under it")
    func aReusedSlugNeverServesThePurgedAppsDocument() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Old tenant", components: [component("list", source: "feed-1")]))
            _ = try await publish(api)
            let slug = api.app.slug
            // Another process, which has the document (current and numbered) in memory.
            let other = PublishedDocuments(store: api.store)
            try await other.reloadAll()
            let oldBody = try #require(body(try await other.document(slug: slug, number: nil)))
            #expect(oldBody.contains("Old tenant"))
            #expect(body(try await other.document(slug: slug, number: 1)) == oldBody)

            try await AppService(storage: api.store).archive(appId: api.app.id)
            #expect(try await AppService(storage: api.store).purge(slug)?.id == api.app.id)
            // The purge reaches the other process (its notification): the documents are dropped.
            try await other.refresh(slug: slug)
            #expect(try await other.document(slug: slug, number: nil) == nil)
            #expect(try await other.document(slug: slug, number: 1) == nil)
            #expect(other.cacheUsage.count == 0, "a purge drops what was kept of the app")

            // The slug stays the purged app's: CDNs may keep its numbered URLs for a year.
            await #expect(throws: StoreError.self) { try await AppService(storage: api.store).create(slug: slug, name: "Squatter") }
            let third = try await AppService(storage: api.store).create(slug: "third-\(UUIDText.random().prefix(6))", name: "Third")
            let thirdToken = try await TeamService(storage: api.store).createToken(appId: third.id).token
            let grab = try await api.request(.patch, "/api/v1/apps/\(third.id)", json: ["slug": .string(slug)], token: thirdToken)
            #expect(grab.status == .conflict, "\(grab.text)")

            // Even where the slug was freed by hand (an operator, or data from before the rule), a
            // process that kept the old bytes never serves them for the new app.
            let stale = PublishedDocuments(store: api.store)
            try await stale.reloadAll()
            try await TestDatabase.client().query("DELETE FROM published_slugs WHERE slug = \(slug)", logger: testLogger)
            let newApp = try await AppService(storage: api.store).create(slug: slug, name: "New tenant")
            let newToken = try await TeamService(storage: api.store).createToken(appId: newApp.id).token
            let newAPI = TestAPI(client: api.client, store: api.store, app: newApp, token: newToken)
            try await newAPI.create("families", phoneFamily)
            _ = try await newAPI.create("screens", screenBody("New tenant", components: [component("list", source: "feed-1")]))
            _ = try await publish(newAPI)
            for documents in [other, stale] {
                try await documents.refresh(slug: slug)
                #expect(body(try await documents.document(slug: slug, number: nil))?.contains("New tenant") == true)
                #expect(body(try await documents.document(slug: slug, number: 1))?.contains("New tenant") == true)
                #expect(body(documents.cached(slug: slug, number: 1))?.contains("Old tenant") != true)
            }
        }
    }

    @Test("a cached current document whose hash is not the index's is never served")
    func aCachedDocumentIsCheckedAgainstTheIndexHash() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            _ = try await publish(api)
            let documents = PublishedDocuments(store: api.store)
            try await documents.reloadAll()
            let served = try #require(try await documents.document(slug: api.app.slug, number: nil))
            // Another document kept under the same key (as a bug or a reused key would): refused.
            documents.update(slug: api.app.slug, version: PublishedVersion(
                appId: api.app.id, number: served.number, sha256: "not-the-index-hash", document: Array("{}".utf8), gzip: [],
                publishedBy: "t", note: "", rollbackOf: nil, createdAt: Date()))
            try await documents.reloadAll()
            #expect(documents.cached(slug: api.app.slug, number: nil) == nil, "the index's hash differs: not served from memory")
            #expect(try await documents.document(slug: api.app.slug, number: nil)?.sha256 == served.sha256)
        }
    }

    // MARK: 4. A slug change

    @Test("after a slug change every process answers 301 at the old slug and serves the new one, also when renamed back")
    func aSlugChangeIsSeenByEveryProcess() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            _ = try await api.create("screens", screenBody("Home", components: [component("list", source: "feed-1")]))
            _ = try await publish(api)
            let first = api.app.slug, second = "moved-\(UUIDText.random().prefix(6))"
            // One process hears every notification, the other only the periodic reload.
            let notified = PublishedDocuments(store: api.store), reloaded = PublishedDocuments(store: api.store)
            for documents in [notified, reloaded] {
                try await documents.reloadAll()
                #expect(try await documents.document(slug: first, number: nil)?.number == 1)
            }
            #expect(try await api.request(.patch, "/api/v1/apps/\(api.app.id)", json: ["slug": .string(second)]).status == .ok)
            for slug in [first, second] { try await notified.refresh(slug: slug) }
            try await reloaded.reloadAll()
            for documents in [notified, reloaded] {
                #expect(documents.redirect(slug: first) == .moved(second))
                #expect(documents.cached(slug: first, number: nil) == nil)
                #expect(try await documents.document(slug: second, number: nil)?.number == 1)
            }
            // Renamed again: a notification names the two slugs that change, so the first slug's
            // entry still says "second" where only notifications are heard; its 301 goes straight
            // to the third all the same (one hop, not a chain).
            let third = "again-\(UUIDText.random().prefix(6))"
            #expect(try await api.request(.patch, "/api/v1/apps/\(api.app.id)", json: ["slug": .string(third)]).status == .ok)
            for slug in [second, third] { try await notified.refresh(slug: slug) }
            try await reloaded.reloadAll()
            for documents in [notified, reloaded] {
                #expect(documents.redirect(slug: first) == .moved(third))
                #expect(documents.redirect(slug: second) == .moved(third))
            }
            // Renamed back: the others redirect to the first, and no entry left behind makes a loop.
            #expect(try await api.request(.patch, "/api/v1/apps/\(api.app.id)", json: ["slug": .string(first)]).status == .ok)
            for slug in [third, first] { try await notified.refresh(slug: slug) }
            try await reloaded.reloadAll()
            for documents in [notified, reloaded] {
                #expect(documents.redirect(slug: second) == .moved(first))
                #expect(documents.redirect(slug: third) == .moved(first))
                #expect(documents.redirect(slug: first) == nil)
                #expect(try await documents.document(slug: first, number: nil)?.number == 1)
            }
        }
    }

    @Test("an app has at most 20 former slugs redirecting to it: a 21st change is a 409 unless it goes back to one")
    func slugChangesAreBounded() async throws {
        try await withAPI { api in
            let base = "b\(UUIDText.random().prefix(6))"
            for i in 1...Limits.maxFormerSlugsPerApp {
                let changed = try await api.request(.patch, "/api/v1/apps/\(api.app.id)", json: ["slug": .string("\(base)-\(i)")])
                #expect(changed.status == .ok, "\(i): \(changed.text)")
            }
            let refused = try await api.request(.patch, "/api/v1/apps/\(api.app.id)", json: ["slug": .string("\(base)-new")])
            #expect(refused.status == .conflict && refused.headers[.contentType] == "application/problem+json", "\(refused.text)")
            #expect(try await api.request(.patch, "/api/v1/apps/\(api.app.id)", json: ["slug": .string("\(base)-3")]).status == .ok)
            #expect(try await api.request(.get, "/api/v1/apps/\(base)-3").status == .ok)
        }
    }

    // MARK: 2. What a member granted

    struct Person {
        var headers: HTTPFields
        var userId: String
        var email: String
    }

    func newPerson(_ api: TestAPI, role: Role?) async throws -> Person {
        let email = "h-\(UUIDText.random().prefix(8))@example.com"
        let user = try await api.store.createUser(email: email, name: "H", isAdmin: false)
        let (secret, _) = try await api.store.createPasswordLink(email: email, createdBy: "test")
        let used = try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: secret], authorized: false)
        #expect(used.status == .created)
        let cookie = try #require(used.headers[.setCookie]?.split(separator: ";").first)
        if let role { try await TeamService(storage: api.store).setRole(appId: api.app.id, userId: user.id, role: role) }
        return Person(
            headers: [.cookie: String(cookie), SessionCookies.csrfHeader: try #require(used["csrf_token"]?.stringValue)],
            userId: user.id, email: email)
    }

    func secret(_ invitation: APIResponse) throws -> String {
        String(try #require(invitation["url"]?.stringValue?.split(separator: "#").last))
    }

    @Test("a removed admin's own invitation gives her nothing back; a demoted one's grants above the new role are revoked")
    func membershipChangesRevokeWhatTheMemberGranted() async throws {
        try await withAPI { api in
            _ = try await newPerson(api, role: .admin)  // the admin who stays
            let alice = try await newPerson(api, role: .admin)
            let selfInvite = try await api.request(.post, "invitations", json: ["email": .string(alice.email), "role": "admin"], headers: alice.headers, authorized: false)
            #expect(selfInvite.status == .created, "\(selfInvite.text)")
            let toFriend = try await api.request(.post, "invitations", json: ["email": .string("friend-\(UUIDText.random().prefix(6))@example.com"), "role": "viewer"], headers: alice.headers, authorized: false)
            let aliceToken = try await api.request(.post, "tokens", json: ["name": "alice's", "role": "admin"], headers: alice.headers, authorized: false)
            let token = try #require(aliceToken["token"]?.stringValue)
            #expect(try await api.request(.get, "", token: token).status == .ok)

            #expect(try await api.request(.delete, "members/\(alice.userId)").status == .noContent)
            let reused = try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: try secret(selfInvite)], authorized: false)
            // Revoked (a link no longer known) — and, had it been missed, void when used.
            #expect(reused.status == .notFound, "\(reused.text)")
            #expect(try await api.store.role(userId: alice.userId, appId: api.app.id) == nil)
            #expect(try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: try secret(toFriend)], authorized: false).status == .notFound)
            #expect(try await api.request(.get, "", token: token).status == .unauthorized, "her token went with her")
            #expect(try await api.request(.get, "invitations")["items"]?.arrayValue?.isEmpty == true)

            // Demoted: what is above the new role goes; what is within it stays.
            let bob = try await newPerson(api, role: .admin)
            let high = try await api.request(.post, "tokens", json: ["name": "bob admin", "role": "admin"], headers: bob.headers, authorized: false)
            let low = try await api.request(.post, "tokens", json: ["name": "bob viewer", "role": "viewer"], headers: bob.headers, authorized: false)
            let invitedEditor = try await api.request(.post, "invitations", json: ["email": .string("e-\(UUIDText.random().prefix(6))@example.com"), "role": "editor"], headers: bob.headers, authorized: false)
            #expect(invitedEditor.status == .created)
            #expect(try await api.request(.put, "members/\(bob.userId)", json: ["role": "editor"]).status == .ok)
            #expect(try await api.request(.get, "", token: try #require(high["token"]?.stringValue)).status == .unauthorized)
            #expect(try await api.request(.get, "", token: try #require(low["token"]?.stringValue)).status == .ok)
            #expect(try await api.request(.get, "invitations")["items"]?.arrayValue?.count == 1, "an editor invitation is within an editor's role")
        }
    }

    @Test("an invitation whose grantor is no longer an admin is void when used, even where nothing revoked it")
    func anInvitationChecksItsGrantorWhenUsed() async throws {
        try await withAPI { api in
            _ = try await newPerson(api, role: .admin)
            let carol = try await newPerson(api, role: .admin)
            let invitation = try await api.request(.post, "invitations", json: ["email": .string(carol.email), "role": "admin"], headers: carol.headers, authorized: false)
            // Her role changed behind the API's back (SQL by hand, a restore of a backup, ...).
            try await TestDatabase.client().query(
                "UPDATE memberships SET role = 'viewer' WHERE app_id = \(api.app.id)::uuid AND user_id = \(carol.userId)::uuid", logger: testLogger)
            let used = try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: try secret(invitation)], authorized: false)
            #expect(used.status == .gone, "\(used.text)")
            #expect(try await api.store.role(userId: carol.userId, appId: api.app.id) == .viewer)
            #expect(try await api.request(.get, "/api/v1/link", headers: [.linkSecret: try secret(invitation)], authorized: false).status == .gone, "used up")
        }
    }

    @Test("revoking a token revokes the tokens and invitations made with it; an invitation of a revoked token is void")
    func revokingATokenRevokesWhatItGranted() async throws {
        try await withAPI { api in
            let made = try await api.request(.post, "tokens", json: ["name": "ci", "role": "admin"])
            let ci = try #require(made["token"]?.stringValue), ciId = try #require(made["id"]?.stringValue)
            let child = try await api.request(.post, "tokens", json: ["name": "child", "role": "editor"], token: ci)
            let childToken = try #require(child["token"]?.stringValue)
            let invitation = try await api.request(.post, "invitations", json: ["email": .string("c-\(UUIDText.random().prefix(6))@example.com"), "role": "admin"], token: ci)
            #expect(invitation.status == .created)
            #expect(try await api.request(.delete, "tokens/\(ciId)").status == .noContent)
            #expect(try await api.request(.get, "", token: childToken).status == .unauthorized)
            #expect(try await api.request(.post, "/api/v1/link", json: ["password": .string(Self.password)], headers: [.linkSecret: try secret(invitation)], authorized: false).status == .notFound)
        }
    }

    // MARK: 3. Sign-in

    @Test("password checks: at most two in flight from one address, sixteen in all")
    func passwordChecksAreAdmittedPerAddress() {
        var admission = PasswordAdmission(maxQueued: 3, maxPerAddress: 2)
        #expect(admission.admit("a") == .admitted)
        #expect(admission.admit("a") == .admitted)
        #expect(admission.admit("a") == .tooManyFromAddress)
        #expect(admission.admit("b") == .admitted)
        #expect(admission.admit("c") == .busy)
        admission.leave("a")
        #expect(admission.admit("c") == .admitted)
        for address in ["a", "b", "c"] { admission.leave(address) }
        #expect(admission.total == 0 && admission.byAddress.isEmpty)
    }

    @Test("sign-in delays double past the free attempts, per address and per account; the owner's address skips the account's")
    func signInDelaysDouble() {
        let throttle = SignInThrottle(accountBurst: 30, addressBurst: 100)
        let keys = SignInThrottle.keys(email: "a@example.com", address: "10.0.0.1")
        let now = Date()
        func counts(_ key: String, _ count: Int, before seconds: Double) -> [String: SignInAttemptCount] {
            [key: SignInAttemptCount(count: count, oldest: now.addingTimeInterval(-600), previous: now.addingTimeInterval(-seconds))]
        }
        // Five failures are free; the sixth waits 4 s after the fifth, the seventh 8 s, up to 60 s.
        #expect(throttle.wait(counts: counts(keys.accountFailures, 5, before: 0), keys: keys, knownAddress: false, now: now) == nil)
        #expect(throttle.wait(counts: counts(keys.accountFailures, 6, before: 1), keys: keys, knownAddress: false, now: now) == 3)
        #expect(throttle.wait(counts: counts(keys.accountFailures, 6, before: 5), keys: keys, knownAddress: false, now: now) == nil)
        #expect(throttle.wait(counts: counts(keys.accountFailures, 7, before: 0), keys: keys, knownAddress: false, now: now) == 8)
        #expect(throttle.wait(counts: counts(keys.accountFailures, 40, before: 0), keys: keys, knownAddress: false, now: now) == 60)
        #expect(throttle.wait(counts: counts(keys.accountFailures, 40, before: 0), keys: keys, knownAddress: true, now: now) == nil)
        // Successes count too: past the burst, per account and (longer) per address.
        #expect(throttle.wait(counts: counts(keys.accountAttempts, 31, before: 0), keys: keys, knownAddress: false, now: now) == 4)
        #expect(throttle.wait(counts: counts(keys.addressAttempts, 100, before: 0), keys: keys, knownAddress: true, now: now) == nil)
        #expect(throttle.wait(counts: counts(keys.addressAttempts, 112, before: 0), keys: keys, knownAddress: true, now: now) == 15 * 60)
        #expect(SignInThrottle.delay(count: 10_000, free: 5, cap: 60) == 60, "no overflow")
    }

    // MARK: 7. A write whose commit outcome is unknown

    @Test("a write given up on before its commit never commits; one given up on after says it may have")
    func writeOutcomes() {
        let before = WriteOutcome()
        #expect(before.abandon() == .abandoned)
        #expect(!before.beginCommit(), "a transaction of an abandoned request rolls back")
        let during = WriteOutcome()
        #expect(during.beginCommit())
        #expect(during.abandon() == .mayHaveCommitted)
        let lost = WriteOutcome()
        #expect(lost.beginCommit())
        lost.endCommit(confirmed: false)
        #expect(lost.state == .mayHaveCommitted)
        let done = WriteOutcome()
        #expect(done.beginCommit())
        done.endCommit(confirmed: true)
        #expect(done.abandon() == .mayHaveCommitted)
    }
}

/// Issue 24: `Idempotency-Key` on every write.
@Suite("Idempotency-Key")
struct IdempotencyTests {
    func key() -> HTTPFields { [IdempotencyMiddleware.header: UUIDText.random()] }

    @Test("a write repeated with its key is answered as the first time and changes nothing more")
    func aRepeatedWriteIsReplayed() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            let once = key()
            let body = screenBody("Home", components: [component("list", source: "feed-1")])
            let first = try await api.request(.post, "screens", json: body, headers: once)
            #expect(first.status == .created)
            #expect(first.headers[IdempotencyMiddleware.replayedHeader] == nil)
            let again = try await api.request(.post, "screens", json: body, headers: once)
            #expect(again.status == .created)
            #expect(again.headers[IdempotencyMiddleware.replayedHeader] == "true")
            #expect(again.text == first.text)
            #expect(again.headers[.eTag] == first.headers[.eTag])
            #expect(try await api.request(.get, "screens")["total"] == 1, "one screen, not two")
            // The same key with another body: 422, nothing done.
            let other = try await api.request(.post, "screens", json: screenBody("Other", components: []), headers: once)
            #expect(other.status == .unprocessableContent && other["type"] == "/problems/idempotency-key-reused", "\(other.text)")
            #expect(try await api.request(.get, "screens")["total"] == 1)

            // A PATCH with If-Match repeated: one new revision, the same answer.
            let id = try #require(first["id"]?.stringValue)
            let patchKey = key()
            var headers = patchKey
            headers[.ifMatch] = "\"1\""
            let patched = try await api.request(.patch, "screens/\(id)", json: ["name": "Home 2"], headers: headers)
            #expect(patched.status == .ok && patched["revision"] == 2)
            let repeated = try await api.request(.patch, "screens/\(id)", json: ["name": "Home 2"], headers: headers)
            #expect(repeated.status == .ok && repeated["revision"] == 2, "not a 412, not revision 3: \(repeated.text)")

            // A DELETE repeated.
            let deleteKey = key()
            #expect(try await api.request(.delete, "screens/\(id)", headers: deleteKey).status == .noContent)
            #expect(try await api.request(.delete, "screens/\(id)", headers: deleteKey).status == .noContent)
        }
    }

    @Test("a refused write frees its key; an answer with a secret is never replayed; keys are checked")
    func keysOfFailuresSecretsAndBadKeys() async throws {
        try await withAPI { api in
            let once = key()
            let refused = try await api.request(.post, "families", json: ["id": "FAMILY_1"], headers: once)
            #expect(refused.status == .unprocessableContent)
            // The key was given back: the corrected request (another body) goes through with it.
            let corrected = try await api.request(.post, "families", json: phoneFamily, headers: once)
            #expect(corrected.status == .created, "\(corrected.text)")

            let tokenKey = key()
            let made = try await api.request(.post, "tokens", json: ["name": "ci", "role": "viewer"], headers: tokenKey)
            #expect(made.status == .created && made["token"]?.stringValue != nil)
            let again = try await api.request(.post, "tokens", json: ["name": "ci", "role": "viewer"], headers: tokenKey)
            #expect(again.status == .conflict && again["type"] == "/problems/idempotency-key-used", "\(again.text)")
            #expect(!again.text.contains("rvs_"), "the secret is shown once")
            #expect(try await api.request(.get, "tokens")["items"]?.arrayValue?.filter { $0["name"] == "ci" }.count == 1)

            for bad in ["", "has space", String(repeating: "k", count: 256)] {
                let answer = try await api.request(.post, "families", json: phoneFamily, headers: [IdempotencyMiddleware.header: bad])
                #expect(answer.status == .badRequest && answer["field"] == "Idempotency-Key", "\(bad.prefix(10)): \(answer.text)")
            }
        }
    }
}

/// Issue 24, finding 5: what an admin relies on is listed whole, and every collection is capped.
@Suite("Per-app caps and lists with totals")
struct CapsTests {
    @Test("every token is listed (paged, with a total), and past the cap a new one is refused")
    func tokensAreAllListedAndCapped() async throws {
        try await withAPI { api in
            // The app's first token plus decoys up to the cap, made straight in the database.
            try await TestDatabase.client().query(
                """
                INSERT INTO api_tokens (id, app_id, token_hash, name, role)
                SELECT gen_random_uuid(), \(api.app.id)::uuid, sha256(('decoy' || n || \(api.app.id))::bytea), 'decoy ' || n, 'viewer'
                FROM generate_series(1, \(Limits.maxTokensPerApp - 1)) AS n
                """, logger: testLogger)
            let refused = try await api.request(.post, "tokens", json: ["name": "one too many", "role": "admin"])
            #expect(refused.status == .conflict && refused.text.contains("\(Limits.maxTokensPerApp) tokens"), "\(refused.text)")
            var seen = 0, offset: Int? = 0
            while let from = offset {
                let page = try await api.request(.get, "tokens?limit=200&offset=\(from)")
                #expect(page["total"] == .number(Double(Limits.maxTokensPerApp)))
                seen += page["items"]?.arrayValue?.count ?? 0
                offset = page["next_offset"]?.numberValue.map(Int.init)
            }
            #expect(seen == Limits.maxTokensPerApp, "every token is listed")
            // Revoking one makes room again.
            let first = try await api.request(.get, "tokens?limit=1&offset=1")["items"]?.arrayValue?.first?["id"]?.stringValue
            #expect(try await api.request(.delete, "tokens/\(try #require(first))").status == .noContent)
            #expect(try await api.request(.post, "tokens", json: ["name": "now it fits", "role": "viewer"]).status == .created)
        }
    }

    @Test("pending invitations and screens stop at their caps; invitations are paged with a total")
    func invitationsAndScreensAreCapped() async throws {
        try await withAPI { api in
            try await TestDatabase.client().query(
                """
                INSERT INTO links (secret_hash, id, kind, email, app_id, role, created_by, expires_at)
                SELECT sha256(('invite' || n || \(api.app.id))::bytea), gen_random_uuid(), 'invitation', 'i' || n || '@example.com',
                       \(api.app.id)::uuid, 'viewer', 'test', now() + interval '1 day'
                FROM generate_series(1, \(Limits.maxPendingInvitationsPerApp)) AS n
                """, logger: testLogger)
            let refused = try await api.request(.post, "invitations", json: ["email": "late@example.com", "role": "viewer"])
            #expect(refused.status == .conflict, "\(refused.text)")
            let page = try await api.request(.get, "invitations?limit=50")
            #expect(page["total"] == .number(Double(Limits.maxPendingInvitationsPerApp)) && page["items"]?.arrayValue?.count == 50)
            #expect(page["next_offset"] == 50)

            try await api.create("families", phoneFamily)
            let big = screenBody("Big", components: [component("list", source: "feed-1")],
                                 extra: ["extra": ["blob": .string(String(repeating: "x", count: Limits.maxScreenBytes))]])
            // (Larger than this suite's body limit: straight to the store, as an import or a larger
            // MAX_BODY_BYTES would bring it.)
            do {
                _ = try await ScreenService(storage: api.store).create(appId: api.app.id, body: big)
                Issue.record("a screen over the cap was stored")
            } catch StoreError.invalid(let errors) {
                #expect(errors.first?.message.contains("256 KB") == true, "\(errors)")
            }
            #expect(try await api.request(.get, "screens")["total"] == 0)
        }
    }

    /// The caps of layouts and manifests are on the sizes PostgreSQL keeps (generated columns,
    /// migration 0016): JSON text with a space after each `,` and `:`.
    @Test("layouts and plugin manifests are capped in bytes as stored, one by one and per app")
    func layoutsAndManifestsAreCappedAsStored() async throws {
        try await withAPI { api in
            try await api.create("families", phoneFamily)
            func padding(_ bytes: Int) -> JSONValue { .array((0..<(bytes / 5_000)).map { _ in .string(String(repeating: "p", count: 5_000)) }) }
            func layout(_ id: String, _ bytes: Int) -> JSONValue {
                ["id": .string(id), "name": .string(id), "family": "FAMILY_1",
                 "ui_components": [component("list", source: "feed-1", extra: ["extra": ["padding": padding(bytes)]])]]
            }
            let layouts = LayoutService(storage: api.store)
            do {
                _ = try await layouts.create(appId: api.app.id, body: layout("big", Limits.maxLayoutBytes + 5_000))
                Issue.record("a layout over its cap was stored")
            } catch StoreError.invalid(let errors) {
                #expect(errors.map(\.pointer) == [""] && errors[0].message.contains("a layout takes at most 256 KB"), "\(errors)")
            }
            var accepted = 0
            for n in 0..<12 {
                do {
                    _ = try await layouts.create(appId: api.app.id, body: layout("l\(n)", 250_000))
                    accepted += 1
                } catch StoreError.invalid(let errors) {
                    #expect(errors[0].message.contains("the app's layouts would take"), "\(errors)")
                    break
                }
            }
            #expect(accepted == 8, "2 MB holds eight layouts of 250 KB")
            #expect(try await api.request(.get, "layouts")["total"] == 8)

            let manifest = try fixture("manifest_qb_admob_inline_banner_ui_component_ios_qb.json")
            let plugins = PluginService(storage: api.store)
            do {
                _ = try await plugins.register(appId: api.app.id, manifestJSON: manifest.mergePatched(with: ["whitelisted_account_ids": padding(Limits.maxManifestBytes + 5_000)]))
                Issue.record("a manifest over its cap was stored")
            } catch StoreError.invalid(let errors) {
                #expect(errors.map(\.pointer) == [""] && errors[0].message.contains("a plugin manifest takes at most 128 KB"), "\(errors)")
            }
            #expect(try await api.request(.get, "plugins")["total"] == 0)
            accepted = 0
            for n in 0..<40 {
                do {
                    _ = try await plugins.register(
                        appId: api.app.id, manifestJSON: manifest.mergePatched(with: ["manifest_version": .string("2.0.\(n)"), "whitelisted_account_ids": padding(120_000)]))
                    accepted += 1
                } catch StoreError.invalid(let errors) {
                    #expect(errors[0].message.contains("the manifests of the app's plugins"), "\(errors)")
                    break
                }
            }
            var size = 0
            for try await bytes in try await TestDatabase.client().query(
                "SELECT manifest_bytes FROM plugin_versions WHERE app_id = \(api.app.id)::uuid AND manifest_version = '2.0.0'", logger: testLogger
            ).decode(Int.self) { size = bytes }
            #expect(size > 120_000 && accepted == Limits.maxManifestBytesPerApp / size, "\(accepted) manifests of \(size) bytes as stored")
        }
    }
}
