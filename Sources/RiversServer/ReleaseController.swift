import Foundation
import Hummingbird
import Logging
import RiversCore
import RiversServices
import RiversStore
import ServiceLifecycle

/// Releases (issue 27): channels, release rules and scheduled promotions. Every member sees
/// them; admins change them (through `ReleaseService`).
struct ReleaseController {
    let store: any ReleaseRepository
    let releases: ReleaseService
    let helpers: APIHelpers
    let documents: PublishedDocuments
    let baseURL: String

    func channelURL(_ slug: String, _ name: String) -> String {
        name == ChannelName.production ? "\(baseURL)/rivers/\(slug)/rivers.json" : "\(baseURL)/rivers/\(slug)/channels/\(name)/rivers.json"
    }

    func register(on routes: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()

        // MARK: Channels
        appRoutes.on(.get, "channels", need: .role(.viewer)) { _, context in
            let channels = try await store.channels(appId: context.app.id)
            return JSONResponse(pageJSON(channels.map { json($0, slug: context.app.slug) }, total: channels.count, limit: Limits.maxChannelsPerApp, offset: 0))
        }
        appRoutes.on(.get, "channels/{name}", need: .role(.viewer)) { _, context in
            let name = try Self.channelName(context)
            let (channel, history) = try await store.channel(appId: context.app.id, name: name, historyLimit: 50)
            var o = json(channel, slug: context.app.slug).objectValue ?? [:]
            o["history"] = .array(history.map { Self.json($0, people: context.people) })
            return JSONResponse(.object(o), headers: [.eTag: ETag.make(channel.revision)])
        }
        // Points a channel at a version, making the channel when it is new.
        appRoutes.on(.put, "channels/{name}", need: .role(.admin)) { request, context in
            let name = try Self.channelName(context)
            let problems = Problems()
            guard let r = ObjectReader(try await helpers.body(request), at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
            r.rejectUnknownKeys(["version", "note"])
            let version = r.integer("version", required: true, minimum: 1, maximum: Limits.maxVersionsPerApp)
            let note = r.string("note", maxLength: 1000) ?? ""
            if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
            let (channel, created) = try await releases.moveChannel(
                appId: context.app.id, name: name, version: version!, precondition: try helpers.precondition(request),
                movedBy: context.publisher, note: note)
            try? await documents.refresh(slug: context.app.slug)
            return JSONResponse(json(channel, slug: context.app.slug), status: created ? .created : .ok, headers: [.eTag: ETag.make(channel.revision)])
        }
        appRoutes.on(.post, "channels/{name}/rollback", need: .role(.admin)) { request, context in
            let name = try Self.channelName(context)
            let note = try await PublishController.note(request, helpers: helpers)
            let channel = try await releases.rollbackChannel(
                appId: context.app.id, name: name, precondition: try helpers.precondition(request), movedBy: context.publisher, note: note)
            try? await documents.refresh(slug: context.app.slug)
            return JSONResponse(json(channel, slug: context.app.slug), headers: [.eTag: ETag.make(channel.revision)])
        }
        appRoutes.on(.delete, "channels/{name}", need: .role(.admin)) { request, context in
            let name = try Self.channelName(context)
            try await releases.deleteChannel(appId: context.app.id, name: name, precondition: try helpers.precondition(request))
            try? await documents.refresh(slug: context.app.slug)
            return NoContent()
        }

        // MARK: Release rules
        appRoutes.on(.get, "release-rules", need: .role(.viewer)) { _, context in
            let set = try await store.releaseRules(appId: context.app.id)
            return JSONResponse(Self.json(set), headers: [.eTag: ETag.make(set.revision)])
        }
        appRoutes.on(.put, "release-rules", need: .role(.admin)) { request, context in
            let problems = Problems()
            guard let r = ObjectReader(try await helpers.body(request), at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
            r.rejectUnknownKeys(["rules"])
            let list = r.array("rules", required: true) ?? []
            let rules = ReleaseRules.read(list, at: "/rules", problems: problems)
            if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
            let set = try await releases.setReleaseRules(appId: context.app.id, rules: rules, precondition: try helpers.precondition(request))
            try? await documents.refresh(slug: context.app.slug)
            return JSONResponse(Self.json(set), headers: [.eTag: ETag.make(set.revision)])
        }
        // Which document an app of a store at a version gets now, and why.
        appRoutes.on(.get, "release-rules/resolve", need: .role(.viewer)) { request, context in
            guard let storeName = try helpers.queryText(request, "store", maxCharacters: 40), let appStore = AppStore(rawValue: storeName) else {
                throw Problem.badParameter("store", "store must be one of \(AppStore.names)")
            }
            guard let versionText = try helpers.queryText(request, "app_version", maxCharacters: 64), !versionText.isEmpty else {
                throw Problem.badParameter("app_version", "app_version is required (like 5.2.1)")
            }
            let set = try await store.releaseRules(appId: context.app.id)
            let channels = try await store.channels(appId: context.app.id)
            let (rule, target) = ReleaseRules.resolve(set.rules, store: appStore, version: AppVersion.leading(versionText))
            var o: [String: JSONValue] = [
                "store": .string(storeName), "app_version": .string(versionText),
                "rule": rule.map { .number(Double($0)) } ?? .null,
                "url": .string("\(baseURL)/rivers/\(context.app.slug)/\(storeName)/\(versionText.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? versionText)/rivers.json"),
            ]
            switch target {
            case .channel(let name):
                o["channel"] = .string(name)
                o["version"] = channels.first(where: { $0.name == name }).map { .number(Double($0.version)) } ?? .null
            case .version(let n):
                o["channel"] = .null
                o["version"] = .number(Double(n))
            }
            return JSONResponse(.object(o))
        }

        // MARK: Schedules
        appRoutes.on(.get, "schedules", need: .role(.viewer)) { request, context in
            let (limit, offset) = try helpers.paging(request)
            let (list, total) = try await store.schedules(appId: context.app.id, limit: limit, offset: offset)
            return JSONResponse(pageJSON(list.map { Self.json($0, people: context.people) }, total: total, limit: limit, offset: offset))
        }
        appRoutes.on(.post, "schedules", need: .role(.admin)) { request, context in
            let problems = Problems()
            guard let r = ObjectReader(try await helpers.body(request), at: "", problems: problems) else { throw Problem.invalid(problems.errors) }
            r.rejectUnknownKeys(["channel", "version", "at"])
            let channel = r.string("channel", required: true, nonEmpty: true, maxLength: 100)
            if let channel, let problem = ChannelName.problem(channel) { problems.add("/channel", problem) }
            let version = r.integer("version", required: true, minimum: 1, maximum: Limits.maxVersionsPerApp)
            var at: Date?
            if let text = r.string("at", required: true, nonEmpty: true, maxLength: 64) {
                if let date = Timestamp.parse(text) {
                    if date <= Date() {
                        problems.add("/at", "must be in the future (to promote now, point the channel at the version)")
                    } else if date > Date().addingTimeInterval(Limits.maxScheduleLead) {
                        problems.add("/at", "must be within a year")
                    } else {
                        at = date
                    }
                } else {
                    problems.add("/at", "must be a date and time with its offset, like 2026-12-01T09:00:00Z")
                }
            }
            if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
            let schedule = try await releases.createSchedule(
                appId: context.app.id, channel: channel!, version: version!, dueAt: at!, createdBy: context.publisher)
            return JSONResponse(Self.json(schedule, people: context.people), status: .created)
        }
        appRoutes.on(.delete, "schedules/{id}", need: .role(.admin)) { _, context in
            _ = try await releases.cancelSchedule(appId: context.app.id, id: try context.pathParameter("id"))
            return NoContent()
        }
    }

    static func channelName(_ context: some RequestContext) throws -> String {
        let name = try context.pathParameter("name")
        guard ChannelName.problem(name) == nil else { throw Problem.notFound("no channel \(String(name.prefix(40))) in this app") }
        return name
    }

    func json(_ channel: Channel, slug: String) -> JSONValue {
        [
            "name": .string(channel.name), "version": .number(Double(channel.version)), "revision": .number(Double(channel.revision)),
            "public_url": .string(channelURL(slug, channel.name)),
            "created_at": .string(Timestamp.format(channel.createdAt)), "updated_at": .string(Timestamp.format(channel.updatedAt)),
        ]
    }

    static func json(_ move: ChannelMove, people: PeopleShown) -> JSONValue {
        [
            "version": .number(Double(move.version)), "previous_version": move.previousVersion.map { .number(Double($0)) } ?? .null,
            "moved_by": .string(people.name(move.movedBy)), "note": .string(move.note), "at": .string(Timestamp.format(move.at)),
        ]
    }

    static func json(_ set: ReleaseRuleSet) -> JSONValue {
        [
            "rules": .array(set.rules.map(\.json)), "revision": .number(Double(set.revision)),
            "warnings": .array(ReleaseRules.warnings(set.rules).map { ["pointer": .string($0.pointer), "message": .string($0.message)] }),
        ]
    }

    static func json(_ s: Schedule, people: PeopleShown) -> JSONValue {
        let state = s.cancelledAt != nil ? "cancelled" : s.firedAt != nil ? "fired" : "pending"
        return [
            "id": .string(s.id), "channel": .string(s.channel), "version": .number(Double(s.version)),
            "at": .string(Timestamp.format(s.dueAt)), "state": .string(state), "late": .bool(s.late),
            "created_by": .string(people.name(s.createdBy)), "created_at": .string(Timestamp.format(s.createdAt)),
            "fired_at": s.firedAt.map { .string(Timestamp.format($0)) } ?? .null,
            "cancelled_at": s.cancelledAt.map { .string(Timestamp.format($0)) } ?? .null,
        ]
    }
}

/// Fires due schedules (issue 27): every process polls once a second and fires what is due, one
/// schedule per transaction, taking rows no other process holds (`SKIP LOCKED`), so each fires
/// exactly once across processes; one missed while every process was down fires at start, marked
/// late.
public struct ScheduleRunner: Service {
    let releases: ReleaseService
    let documents: PublishedDocuments
    let logger: Logger
    var interval: Duration = .seconds(1)
    /// A failure that repeats every second is said once every 10 minutes at warning (at debug
    /// it went unseen: schedules that never fire), the rest at debug.
    let failures = WarningGate(interval: .seconds(600))

    public init(releases: ReleaseService, documents: PublishedDocuments, logger: Logger, interval: Duration = .seconds(1)) {
        self.releases = releases
        self.documents = documents
        self.logger = logger
        self.interval = interval
    }

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await poll() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
    }

    func poll() async {
        while !Task.isCancelled {
            do {
                // At most 100 a tick, so one backlog cannot hold a process.
                for _ in 0..<100 {
                    guard let fired = try await releases.fireDueSchedule() else { break }
                    logger.info("schedule fired", metadata: [
                        "schedule": .string(fired.schedule.id), "app": .string(fired.slug), "channel": .string(fired.schedule.channel),
                        "version": .stringConvertible(fired.schedule.version), "late": .stringConvertible(fired.schedule.late),
                    ])
                    try? await documents.refresh(slug: fired.slug)
                }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                failures.say("fire", "firing due schedules failed; trying again every second: \(String(reflecting: error))", to: logger)
            }
            try? await Task.sleep(for: interval)
        }
    }
}
