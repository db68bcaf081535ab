import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// The in-memory content storage the fast tier's service and router tests run on must behave as
/// PostgreSQL does. One seeded script of writes (screens created, patched, replaced, reordered and
/// removed; the family patched and removed; layouts made, changed and removed; a plugin registered,
/// replaced and removed; the draft published and rolled back; channels moved, moved back and
/// removed, release rules set, promotions scheduled and cancelled; webhooks made, changed,
/// rotated, pinged and removed; valid and not)
/// runs through the services on `Store` and on `InMemoryContent`: every step must end the same way
/// (the same answer, revision and home flags included, or the same refusal at the same pointers),
/// and the two apps must hold the same screens at the end.
@Suite("The in-memory content storage behaves as PostgreSQL")
struct ContentStorageTests {
    /// What a step came to, comparable across storages (timestamps left out).
    enum Outcome: Equatable, CustomStringConvertible {
        case written(JSONValue, revision: Int)
        case removed
        case invalid([String])
        case conflict
        case notFound
        case preconditionFailed(Int)

        var description: String {
            switch self {
            case .written(let json, let revision): return "written r\(revision) \(String(decoding: json.serialized(), as: UTF8.self).prefix(300))"
            case .removed: return "removed"
            case .invalid(let pointers): return "invalid \(pointers)"
            case .conflict: return "conflict"
            case .notFound: return "not found"
            case .preconditionFailed(let current): return "precondition failed (current \(current))"
            }
        }
    }

    /// The services on one storage.
    struct Services: Sendable {
        var screens: ScreenService
        var families: FamilyService
        var layouts: LayoutService
        var plugins: PluginService
        var imports: ImportService
        var publishing: PublishService
        var releases: ReleaseService
        var releaseReads: any ReleaseRepository
        var webhooks: WebhookService
        var webhookReads: any WebhookRepository

        init(_ storage: some ContentStorage & VersionStorage & ReleaseStorage & ReleaseRepository & WebhookStorage & WebhookRepository) {
            screens = ScreenService(storage: storage)
            families = FamilyService(storage: storage)
            layouts = LayoutService(storage: storage)
            plugins = PluginService(storage: storage)
            imports = ImportService(storage: storage)
            publishing = PublishService(storage: storage)
            releases = ReleaseService(storage: storage)
            releaseReads = storage
            webhooks = WebhookService(storage: storage, seal: .none)
            webhookReads = storage
        }
    }

    static func outcome(_ step: () async throws -> (json: JSONValue, revision: Int)?) async -> Outcome {
        do {
            guard let (json, revision) = try await step() else { return .removed }
            return .written(json, revision: revision)
        } catch StoreError.invalid(let errors) {
            return .invalid(errors.map(\.pointer))
        } catch StoreError.conflict {
            return .conflict
        } catch StoreError.notFound {
            return .notFound
        } catch StoreError.preconditionFailed(let current) {
            return .preconditionFailed(current)
        } catch {
            return .invalid(["unexpected: \(error)"])
        }
    }

    @Test func oneScriptOfWritesEndsTheSameOnBoth() async throws {
        let (store, app, _) = try await storeWithApp(slugPrefix: "twin")
        let memory = InMemoryContent()
        memory.addApp(id: app.id, slug: app.slug)
        let services = [Services(store), Services(memory)]
        // HERO_1 is the layouts' only: dropping it is refused exactly while a layout uses it.
        let allStyles: JSONValue = .array((phoneFamily["cell_styles"]?.arrayValue ?? []) + [["id": "HERO_1", "columns": 1, "height": 200]])
        for s in services { _ = try await s.families.create(appId: app.id, body: phoneFamily.mergePatched(with: ["cell_styles": allStyles])) }

        let manifest = try fixture("manifest_qb_admob_inline_banner_ui_component_ios_qb.json")
        let banner = try #require(manifest["identifier"]?.stringValue)
        var random = SeededRandom(seed: 26)
        var ids: [String] = []
        var componentIds: [String: [String]] = [:]
        var kinds: [String: Int] = [:]
        let steps = 240
        // Schedules are due an hour from now and later, one step a minute apart (none fires here:
        // firing takes what is due in the whole shared database), in the same order on both.
        let firstDue = Date().addingTimeInterval(3600)
        var webhookSteps = 0
        for step in 0..<steps {
            let id = ids.isEmpty ? "" : ids[random.next(ids.count)]
            // The step, chosen once and run on both storages.
            let name: String
            let run: @Sendable (Services) async throws -> RecordText?
            var family: (@Sendable (Services) async throws -> Record?)?
            var plugin: (@Sendable (Services) async throws -> (plugin: StoredPlugin, created: Bool)?)?
            var publish: (@Sendable (Services) async throws -> PublishOutcome)?
            var release: (@Sendable (Services) async throws -> (json: JSONValue, revision: Int)?)?
            switch ids.count < 3 ? 0 : random.next(19) {
            case 0, 1:
                name = "create"
                // A new screen, its ids given so both storages hold the same one; now and then
                // home, a child, or broken (an unknown parent, a screen_type given).
                let screenId = UUIDText.random()
                let comps = (0..<(1 + step % 3)).map { i in
                    component(i % 2 == 0 ? "list" : "grid", [i % 2 == 0 ? "LIST_1" : "GRID_1"], source: "feed-\(i)", extra: ["id": .string("\(screenId.prefix(8))-c\(i)")])
                }
                var extra: [String: JSONValue] = ["id": .string(screenId)]
                switch random.next(8) {
                case 0: extra["home"] = true
                case 1: if !id.isEmpty { extra["parent"] = .string(id) }
                case 2: extra["screen_type"] = "mine"
                case 3: extra["parent"] = .string(UUIDText.random())
                default: break
                }
                // Now and then a component of the plugin's type (refused while it is not registered).
                let withBanner = random.next(4) == 0
                let components = comps + (withBanner ? [component(banner, source: "feed-b", extra: ["id": .string("\(screenId.prefix(8))-b")])] : [])
                let body = screenBody("Screen \(step)", components: components, extra: extra)
                run = { try await $0.screens.create(appId: app.id, body: body).resource }
            case 2, 3:
                name = "patch"
                let patches: [JSONValue] = [
                    ["name": .string("Renamed \(step)")], ["home": true], ["home": false], ["screen_type": "other"],
                    ["styles": ["background_color": "#101010FF"]], ["ui_components": [component("list", ["NOPE"])]],
                    ["parent": ids.first.map(JSONValue.string) ?? .null], ["name": 5, "family": "GONE"],
                ]
                let patch = patches[random.next(patches.count)]
                run = { try await $0.screens.update(appId: app.id, id: id, precondition: .none, edit: .mergePatch(patch)) }
            case 4:
                name = "reorder"
                var order = componentIds[id] ?? []
                if random.next(3) == 0 { order.append("missing") } else { order.reverse() }
                let given = order
                run = { try await $0.screens.update(appId: app.id, id: id, precondition: .none, edit: .reorder(given)) }
            case 5:
                name = "replace"
                let body = screenBody("Replaced \(step)", components: [component("list", source: "feed-r", extra: ["id": .string("r-\(step)")])])
                run = { try await $0.screens.update(appId: app.id, id: id, precondition: .none, edit: .replace(body)) }
            case 6:
                name = "stale patch"
                run = { try await $0.screens.update(appId: app.id, id: id, precondition: .oneOf([1]), edit: .mergePatch(["name": "Stale"])) }
            case 8, 9:
                // The family: renamed, a style dropped (refused while in use) or given back, broken.
                name = "family patch"
                let patches: [JSONValue] = [
                    ["name": .string("Family \(step)")], ["cell_styles": [["id": "LIST_1", "columns": 1, "height": 80]]],
                    ["cell_styles": phoneFamily["cell_styles"]!], ["cell_styles": allStyles], ["cell_styles": allStyles],
                    ["interitem_spacing": "wide", "insets": 5],
                ]
                let patch = patches[random.next(patches.count)]
                run = { _ in nil }
                family = { try await $0.families.update(appId: app.id, id: "FAMILY_1", precondition: .none, edit: .mergePatch(patch)) }
            case 10:
                // A layout made, changed or removed (one of three ids), or its style unknown.
                name = "layout"
                let layoutId = "layout-\(random.next(3))"
                let choice = random.next(4)
                let body: JSONValue = [
                    "id": .string(layoutId), "name": .string("Layout \(step)"), "family": "FAMILY_1",
                    "ui_components": [component("list", [choice == 3 ? "NOPE" : "HERO_1"], source: "feed-l", extra: ["id": "l-c"])],
                ]
                run = { _ in nil }
                family = { s in
                    switch choice {
                    case 0: return try await s.layouts.create(appId: app.id, body: body)
                    case 1:
                        try await s.layouts.delete(appId: app.id, id: layoutId, precondition: .none)
                        return nil
                    default: return try await s.layouts.update(appId: app.id, id: layoutId, precondition: .none, edit: .replace(body))
                    }
                }
            case 12:
                // The plugin registered (a version, another manifest, replacing or not) or removed.
                name = "plugin"
                let choice = random.next(5)
                let version = ["0.0.4", "0.0.5"][random.next(2)]
                let sent = manifest.mergePatched(with: ["manifest_version": .string(version), "description": .string("Banner \(random.next(2))")])
                let replace = random.next(2) == 0
                run = { _ in nil }
                plugin = { s in
                    if choice == 0 {
                        try await s.plugins.delete(appId: app.id, identifier: banner, precondition: .none)
                        return nil
                    }
                    return try await s.plugins.register(appId: app.id, manifestJSON: sent, replace: replace)
                }
            case 13, 14:
                // A publish (refused while the draft has problems), a rollback to an earlier
                // version, or a publish to a channel the app does not have.
                name = "publish"
                let choice = random.next(4)
                let target = 1 + random.next(4)
                run = { _ in nil }
                publish = { s in
                    switch choice {
                    case 0: return try await s.publishing.rollback(appId: app.id, to: target, publishedBy: "script", note: "")
                    case 1: return try await s.publishing.publish(appId: app.id, note: "beta", publishedBy: "script", channel: "beta")
                    default: return try await s.publishing.publish(appId: app.id, note: "step", publishedBy: "script")
                    }
                }
            case 7, 16, 17:
                // A channel moved (to a version that may not exist; If-Match now and then), moved
                // back or removed; the rules set (naming what may not exist); a promotion scheduled
                // cancelled or listed.
                name = "release"
                let choice = random.next(9)
                let channel = [ChannelName.production, "beta", "qa"][random.next(3)]
                let target = 1 + random.next(4)
                let precondition: RevisionPrecondition = random.next(4) == 0 ? .oneOf([1 + random.next(3)]) : .none
                let pick = random.next(10)
                let due = firstDue.addingTimeInterval(60 * Double(step))
                run = { _ in nil }
                release = { s in
                    switch choice {
                    case 0, 1:
                        let (c, created) = try await s.releases.moveChannel(
                            appId: app.id, name: channel, version: target, precondition: precondition, movedBy: "script", note: "")
                        return (["channel": .string(c.name), "version": .number(Double(c.version)), "created": .bool(created)], c.revision)
                    case 2:
                        let c = try await s.releases.rollbackChannel(appId: app.id, name: channel, precondition: precondition, movedBy: "script", note: "")
                        return (["channel": .string(c.name), "version": .number(Double(c.version))], c.revision)
                    case 3:
                        try await s.releases.deleteChannel(appId: app.id, name: channel, precondition: precondition)
                        return nil
                    case 4:
                        let rule = ReleaseRule(store: .appleStore, below: AppVersion("5.0"), target: pick < 3 ? .channel(channel) : .version(target))
                        let set = try await s.releases.setReleaseRules(appId: app.id, rules: pick == 0 ? [] : [rule], precondition: precondition)
                        return (["rules": .array(set.rules.map(\.json))], set.revision)
                    case 5, 8:
                        let made = try await s.releases.createSchedule(
                            appId: app.id, channel: channel, version: pick < 7 ? 1 : target, dueAt: due, createdBy: "script")
                        return (["channel": .string(made.channel), "version": .number(Double(made.version)), "pending": .bool(made.cancelledAt == nil)], 0)
                    case 6, 7:
                        let listed = try await s.releaseReads.schedules(appId: app.id, limit: 100, offset: 0).schedules
                        if choice == 6 && pick >= 5 {
                            // The list as it is: pending ones first, soonest first.
                            return (.array(listed.map { .string("\($0.channel) v\($0.version) \($0.cancelledAt == nil ? "pending" : "cancelled")") }), 0)
                        }
                        guard !listed.isEmpty else { throw StoreError.notFound("no schedule yet") }
                        let cancelled = try await s.releases.cancelSchedule(appId: app.id, id: listed[pick % listed.count].id)
                        return (["channel": .string(cancelled.channel), "version": .number(Double(cancelled.version)), "pending": .bool(cancelled.cancelledAt == nil)], 0)
                    default: return nil
                    }
                }
            case 18:
                // A webhook made (at most ten), changed (If-Match now and then), its secret
                // rotated, pinged, or removed: the k-th of the app's, as each storage lists them.
                name = "webhook"
                // Every kind in turn (made first), so each is run whatever the seed gives.
                let choice = [0, 2, 1, 3, 5, 0, 2, 4][webhookSteps % 8]
                webhookSteps += 1
                let pick = random.next(12)
                let precondition: RevisionPrecondition = random.next(4) == 0 ? .oneOf([1 + random.next(3)]) : .none
                // Every delivery in the shared test database may be taken by the deliverer of
                // another suite (WebhooksTests): these webhooks hear only of an archived app (which
                // never happens here) and point at a closed local port, so a ping fails at once.
                let url = "https://127.0.0.1:9/rivers-\(pick)"
                run = { _ in nil }
                release = { s in
                    func shown(_ hook: Webhook) -> (json: JSONValue, revision: Int) {
                        (["url": .string(hook.url), "events": .array(hook.events.map(JSONValue.string)), "enabled": .bool(hook.enabled),
                          "description": .string(hook.description), "rotated": .bool(hook.previousSecretUntil != nil)], hook.revision)
                    }
                    if choice == 0 {
                        return shown(try await s.webhooks.create(appId: app.id, url: url, description: "step \(step)", events: ["app.archived"], createdBy: "script").webhook)
                    }
                    let hooks = try await s.webhookReads.webhooks(appId: app.id)
                    guard !hooks.isEmpty else { throw StoreError.notFound("no webhook yet") }
                    let hook = hooks[pick % hooks.count]
                    switch choice {
                    case 1: return shown(try await s.webhooks.update(
                        appId: app.id, id: hook.id, change: WebhookChange(url: pick < 6 ? url : nil, enabled: pick % 2 == 0), precondition: precondition))
                    case 2: return shown(try await s.webhooks.rotateSecret(appId: app.id, id: hook.id).webhook)
                    case 3:
                        let ping = try await s.webhooks.ping(appId: app.id, id: hook.id)
                        return (["event": .string(ping.event), "state": .string(ping.state)], ping.attempts)
                    case 4:
                        try await s.webhooks.delete(appId: app.id, id: hook.id)
                        return nil
                    default:
                        // The pings (the release events' deliveries are written by PostgreSQL's
                        // triggers, which the in-memory storage does not have), their state left
                        // out: another suite's deliverer may have tried them.
                        let list = try await s.webhookReads.webhookDeliveries(appId: app.id, webhookId: hook.id, limit: 100, offset: 0).deliveries
                        let pings = list.filter { $0.event == "ping" }
                        return (.array(pings.map { .string($0.event) }), pings.count)
                    }
                }
            case 11:
                name = "family delete"
                run = { _ in nil }
                family = {
                    try await $0.families.delete(appId: app.id, id: "FAMILY_1", precondition: .none)
                    return nil
                }
            default:
                name = "delete"
                run = {
                    try await $0.screens.delete(appId: app.id, id: id, precondition: .none)
                    return nil
                }
            }
            var outcomes: [Outcome] = []
            for service in services {
                if let release {
                    outcomes.append(await Self.outcome { try await release(service) })
                } else if let publish {
                    outcomes.append(await Self.outcome {
                        let (kind, v): (String, PublishedVersion)
                        switch try await publish(service) {
                        case .published(let version): (kind, v) = ("published", version)
                        case .unchanged(let version): (kind, v) = ("unchanged", version)
                        }
                        return (["outcome": .string(kind), "sha256": .string(v.sha256), "size": .number(Double(v.size)),
                                 "rollback_of": v.rollbackOf.map { .number(Double($0)) } ?? .null], v.number)
                    })
                } else if let plugin {
                    outcomes.append(await Self.outcome {
                        try await plugin(service).map { p in
                            (["identifier": .string(p.plugin.identifier), "current": .string(p.plugin.currentVersion), "created": .bool(p.created),
                              "versions": .array(p.plugin.versions.map { .string($0.manifestVersion) }), "manifest": p.plugin.manifest.raw],
                             p.plugin.revision)
                        }
                    })
                } else if let family {
                    outcomes.append(await Self.outcome { try await family(service).map { ($0.body, $0.revision) } })
                } else {
                    outcomes.append(await Self.outcome {
                        try await run(service).map { (try JSONValue.parse($0.body.readableBytesView), $0.revision) }
                    })
                }
            }
            #expect(outcomes[0] == outcomes[1], "step \(step) (\(name)): PostgreSQL \(outcomes[0]), in memory \(outcomes[1])")
            let screenStep = family == nil && plugin == nil && publish == nil && release == nil
            if screenStep, case .written(let json, _) = outcomes[0], let written = json["id"]?.stringValue {
                if !ids.contains(written) { ids.append(written) }
                componentIds[written] = (json["ui_components"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            }
            if screenStep, case .removed = outcomes[0] { ids.removeAll { $0 == id } }
            kinds[name.split(separator: " ").first.map(String.init) ?? name, default: 0] += 1
            if case .written = outcomes[0] { kinds["written", default: 0] += 1 }
            if publish != nil, case .written(let json, _) = outcomes[0] { kinds[json["outcome"]?.stringValue ?? "?", default: 0] += 1 }
            if case .invalid = outcomes[0] { kinds["refused", default: 0] += 1 }
            if release != nil, case .written(let json, _) = outcomes[0] {
                kinds["released", default: 0] += 1
                if let pending = json["pending"]?.boolValue { kinds[pending ? "scheduled" : "cancelled", default: 0] += 1 }
            }
        }
        // The script did what it says: every kind of step, both outcomes, many times.
        for kind in ["create", "patch", "reorder", "replace", "stale", "delete", "family", "layout", "plugin", "publish", "published", "release", "released", "webhook", "written", "refused"] {
            #expect(kinds[kind, default: 0] >= 5, "\(kind): \(kinds)")
        }

        // The same screens at the end, in the same order, at the same revisions.
        let page = try await store.listText(.screens, appId: app.id, limit: 500, offset: 0)
        let stored = try page.items.map { (try JSONValue.parse($0.body.readableBytesView), $0.revision) }
        let kept = memory.screens(appId: app.id)
        #expect(stored.count == kept.count && stored.count >= 3, "\(stored.count) \(kept.count)")
        for (a, b) in zip(stored, kept) {
            #expect(a.0["id"]?.stringValue == b.screen.id && a.1 == b.revision && a.0["home"]?.boolValue == b.screen.home)
            #expect(a.0["screen_type"]?.stringValue == b.screen.screenType)
        }
        #expect(stored.filter { $0.0["home"] == true }.count == 1)
        // The same channels and rules.
        let channels = { (list: [Channel]) in list.map { "\($0.name) v\($0.version) r\($0.revision)" } }
        #expect(channels(try await store.channels(appId: app.id)) == channels(try await memory.channels(appId: app.id)))
        let rules = [try await store.releaseRules(appId: app.id), try await memory.releaseRules(appId: app.id)]
        #expect(rules[0].rules == rules[1].rules && rules[0].revision == rules[1].revision)
        // The same schedules, listed in the same order.
        let schedules = { (list: [Schedule]) in list.map { "\($0.channel) v\($0.version) \($0.cancelledAt == nil ? "pending" : "cancelled")" } }
        let listed = [try await store.schedules(appId: app.id, limit: 100, offset: 0), try await memory.schedules(appId: app.id, limit: 100, offset: 0)]
        #expect(schedules(listed[0].schedules) == schedules(listed[1].schedules) && listed[0].total == listed[1].total)
        #expect(kinds["scheduled", default: 0] >= 3 && kinds["cancelled", default: 0] >= 2, "\(kinds)")

        // What the publishing and preview-link routes read (`VersionRepository`), the same on both,
        // with production moved back to the first version (so that it is not the newest) and a
        // staging channel on the newest.
        let newest = try #require(try await store.listVersions(appId: app.id, limit: 1, offset: 0).versions.first?.number)
        #expect(newest > 1)
        for s in services {
            _ = try await s.releases.moveChannel(appId: app.id, name: ChannelName.production, version: 1, precondition: .none, movedBy: "script", note: "")
            _ = try await s.releases.moveChannel(appId: app.id, name: "staging", version: newest, precondition: .none, movedBy: "script", note: "")
        }
        let readers: [any VersionRepository] = [store, memory]
        var reads: [String] = []
        for r in readers {
            let report = try await r.problems(appId: app.id)
            let checked = try await r.checkedDraft(appId: app.id)
            let (versions, total) = try await r.listVersions(appId: app.id, limit: 100, offset: 0)
            let current = try await r.currentVersion(appId: app.id)
            let entry = try #require(try await r.publishedIndexEntry(slug: app.slug))
            let served = try await r.currentDocument(slug: app.slug)
            let first = try await r.version(appId: app.id, number: 1)
            reads.append(String(decoding: JSONValue.object([
                "problems": .array(report.problems.map { .string($0.pointer + " " + $0.message) }),
                "warnings": .array(report.warnings.map { .string($0.pointer + " " + $0.message) }),
                "draft": .string(sha256Hex(try await r.draftDocument(appId: app.id).joined)),
                "checked": .string(checked.document.map(sha256Hex) ?? "problems \(checked.problems.count)"),
                "versions": .array(versions.map { v in
                    .string("\(v.number) \(v.sha256) \(v.size) \(v.gzipSize) \(v.rollbackOf ?? 0) \(v.publishedBy) \(v.note)")
                }),
                "total": .number(Double(total)),
                "current": .string(current.map { "\($0.number) \($0.sha256) \($0.document.count)" } ?? "none"),
                "entry": .string("\(entry.number) \(entry.sha256) \(entry.newest) \(entry.gone) \(entry.channels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.number)" }) \(entry.rules.count)"),
                "served": .string(served.map { "\($0.number) \($0.appId) \(sha256Hex($0.document))" } ?? "none"),
                "first": .string(sha256Hex(first.document) + " " + sha256Hex(first.gzip)),
            ]).serialized(), as: UTF8.self))
        }
        #expect(reads[0] == reads[1], "PostgreSQL \(reads[0].prefix(1500)), in memory \(reads[1].prefix(1500))")
        #expect(reads[0].contains("\"total\":") && !reads[0].contains("\"total\":0"), "the script published: \(reads[0].prefix(300))")

        // Preview links on both: made, listed, opened, expired, revoked, capped, the same way.
        let linkStores: [any PreviewLinkRepository] = [store, memory]
        var linkReads: [String] = []
        for links in linkStores {
            func opened(_ secret: String) async throws -> String {
                switch try await links.previewLink(secret: secret) {
                case .live(let app, let link): return "live \(app.id) \(app.slug) \(link.name) \(link.lastUsedAt == nil)"
                case .expired: return "expired"
                case .unknown: return "unknown"
                }
            }
            var said: [String] = []
            let (live, made) = try await links.createPreviewLink(
                appId: app.id, name: "QA", expiresAt: Date().addingTimeInterval(3600), createdBy: "script", grantedBy: .operator)
            let (expired, _) = try await links.createPreviewLink(
                appId: app.id, name: "old", expiresAt: Date().addingTimeInterval(-60), createdBy: "script", grantedBy: .operator)
            let (gone, _) = try await links.createPreviewLink(
                appId: app.id, name: "older", expiresAt: Date().addingTimeInterval(-2 * 86400), createdBy: "script", grantedBy: .operator)
            said.append(try await opened(live))
            said.append(try await opened(live))
            said += [try await opened(expired), try await opened(gone), try await opened("rvp_" + String(repeating: "a", count: 64)), try await opened("nonsense")]
            let listed = try await links.previewLinks(appId: app.id, limit: 2, offset: 1)
            said.append("listed \(listed.total) \(listed.links.map(\.name))")
            try await links.revokePreviewLink(appId: app.id, id: made.id)
            said.append(try await opened(live))
            do { try await links.revokePreviewLink(appId: app.id, id: made.id) } catch { said.append("\(error)".replacingOccurrences(of: made.id, with: "ID")) }
            do { try await links.revokePreviewLink(appId: app.id, id: "not-an-id") } catch { said.append("\(error)") }
            // The sweep of links expired a day ago, then the cap.
            for i in 0..<(Limits.maxPreviewLinksPerApp - 1) {
                _ = try await links.createPreviewLink(
                    appId: app.id, name: "link \(i)", expiresAt: Date().addingTimeInterval(3600), createdBy: "script", grantedBy: .operator)
            }
            do {
                _ = try await links.createPreviewLink(appId: app.id, name: "over", expiresAt: Date().addingTimeInterval(3600), createdBy: "script", grantedBy: .operator)
                said.append("over the cap made")
            } catch { said.append("\(error)") }
            said.append("total \(try await links.previewLinks(appId: app.id, limit: 1, offset: 0).total)")
            linkReads.append(said.joined(separator: "; "))
        }
        #expect(linkReads[0] == linkReads[1], "PostgreSQL \(linkReads[0].prefix(1500)), in memory \(linkReads[1].prefix(1500))")
        #expect(linkReads[0].hasPrefix("live \(app.id) \(app.slug) QA true; live \(app.id) \(app.slug) QA false; expired; unknown; unknown; unknown"), "\(linkReads[0].prefix(500))")

        // A field document imported into both (its family extends FAMILY_1), then again (its
        // ids are taken), then replacing the draft: the same outcome each time.
        let document = try fixture("devportal_API_md_example.json")
        for (replacing, refused) in [(false, false), (false, true), (true, false)] {
            var results: [String] = []
            for s in services {
                do {
                    let r = try await s.imports.importDocument(appId: app.id, json: document, replacing: replacing)
                    results.append(String(decoding: JSONValue.object([
                        "screens": .array(r.screens.map { ["body": $0.body, "revision": .number(Double($0.revision))] }),
                        "created": .array(r.familiesCreated.map(JSONValue.string)), "extended": .array(r.familiesExtended.map(JSONValue.string)),
                        "warnings": .array(r.warnings.map { .string($0.pointer + " " + $0.message) }),
                    ]).serialized(), as: UTF8.self))
                } catch StoreError.invalid(let errors) {
                    results.append("invalid \(errors.map(\.pointer))")
                }
            }
            #expect(results[0] == results[1], "import (replacing: \(replacing)): PostgreSQL \(results[0].prefix(500)), in memory \(results[1].prefix(500))")
            #expect(results[0].hasPrefix("invalid") == refused, "\(results[0].prefix(500))")
        }
        let afterImport = try await store.listText(.screens, appId: app.id, limit: 500, offset: 0).items.map {
            (try JSONValue.parse($0.body.readableBytesView)["id"]?.stringValue, $0.revision)
        }
        #expect(afterImport.map(\.0) == memory.screens(appId: app.id).map(\.screen.id) && afterImport.count == document.arrayValue?.count)
        #expect(afterImport.map(\.1) == memory.screens(appId: app.id).map(\.revision))

        // The webhooks go, with their deliveries (see the webhook steps).
        for hook in try await store.webhooks(appId: app.id) { try await WebhookService(storage: store, seal: .none).delete(appId: app.id, id: hook.id) }
    }
}

/// A small deterministic generator (SplitMix64), so a failing script can be run again.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(z % UInt64(bound))
    }
}
