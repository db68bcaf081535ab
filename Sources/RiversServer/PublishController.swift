import Foundation
import Hummingbird
import RiversCore
import RiversServices
import RiversStore

/// Publishing an app: the check, the draft, publish, versions, diff and rollback.
struct PublishController {
    let store: any VersionRepository
    /// Publishing and rollback.
    let publishing: PublishService
    /// Importing a document into the draft.
    let imports: ImportService
    let helpers: APIHelpers
    let documents: PublishedDocuments
    let baseURL: String

    func register(on routes: RouteRegistrar<RiversContext>) {
        let appRoutes = routes.appScoped()
        appRoutes.on(.get, "problems", need: .role(.viewer)) { _, context in
            let app = context.app
            let report = try await helpers.wholeApp.run(app: app.id) { try await store.problems(appId: app.id) }
            // At most 100 of each are listed; the counts say how many there are.
            func list(_ errors: [FieldError]) -> JSONValue {
                .array(errors.prefix(Limits.maxProblems).map { ["pointer": .string($0.pointer), "message": .string($0.message)] })
            }
            return JSONResponse([
                "problems": list(report.problems), "count": .number(Double(report.problems.count)),
                "warnings": list(report.warnings), "warning_count": .number(Double(report.warnings.count)),
            ])
        }
        appRoutes.on(.get, "draft.json", need: .role(.viewer)) { _, context in
            let app = context.app
            let document = try await helpers.wholeApp.run(app: app.id) { try await store.draftDocument(appId: app.id) }
            // Written screen by screen from the bytes the store keeps: no copy of the whole
            // document per request (an app may be megabytes; issue 26's memory target).
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(contentLength: document.byteCount) { writer in
                    try await writer.write(ByteBuffer(string: "["))
                    for (i, screen) in document.screens.enumerated() {
                        var buffer = ByteBuffer()
                        buffer.reserveCapacity(screen.count + 1)
                        if i > 0 { buffer.writeString(",") }
                        buffer.writeBytes(screen)
                        try await writer.write(buffer)
                    }
                    try await writer.write(ByteBuffer(string: "]"))
                    try await writer.finish(nil)
                })
        }
        appRoutes.on(.post, "publish", need: .role(.publisher)) { request, context in
            let app = context.app
            let (note, channel) = try await Self.noteAndChannel(request, helpers: helpers)
            let outcome = try await helpers.wholeApp.run(app: app.id) {
                try await Self.measured { try await publishing.publish(appId: app.id, note: note, publishedBy: context.publisher, channel: channel) }
            }
            return await respond(outcome, app: app, channel: channel, people: context.people)
        }
        // Import adds the document's screens; PUT draft.json makes the document the whole draft
        // (a version restored into the editor, or an undo of that).
        for (method, path, replacing) in [(HTTPRequest.Method.post, "import", false), (.put, "draft.json", true)] {
            appRoutes.on(method, path, need: .role(.editor)) { request, context in
                try await importing(request, context.app, replacing: replacing)
            }
        }
        appRoutes.on(.get, "versions", need: .role(.viewer)) { request, context in
            let app = context.app
            let (limit, offset) = try helpers.paging(request)
            let (versions, total) = try await store.listVersions(appId: app.id, limit: limit, offset: offset)
            return JSONResponse(pageJSON(versions.map { $0.json(slug: app.slug, baseURL: baseURL, people: context.people) }, total: total, limit: limit, offset: offset))
        }
        appRoutes.on(.get, "versions/diff", need: .role(.viewer)) { request, context in
            let app = context.app
            let query = request.uri.queryParameters
            func number(_ name: String) throws -> Int {
                guard let text = query[Substring(name)], let n = Int(String(text)), n > 0 else {
                    throw Problem.badParameter(name, "\(name) must be a version number (diff?from=1&to=2)")
                }
                return n
            }
            let (fromNumber, toNumber) = (try number("from"), try number("to"))
            let (from, to, diff) = try await helpers.wholeApp.run(app: app.id) {
                let from = try await store.version(appId: app.id, number: fromNumber)
                let to = try await store.version(appId: app.id, number: toNumber)
                return (from, to, DocumentDiff.diff(from: try JSONValue.parse(from.document), to: try JSONValue.parse(to.document)))
            }
            return JSONResponse(.object((diff.objectValue ?? [:]).merging(["from": .number(Double(from.number)), "to": .number(Double(to.number))]) { a, _ in a }))
        }
        appRoutes.on(.get, "versions/{number}", need: .role(.viewer)) { _, context in
            let app = context.app
            let version = try await store.version(appId: app.id, number: try Self.versionNumber(context))
            var json = version.json(slug: app.slug, baseURL: baseURL, people: context.people).objectValue ?? [:]
            json["document"] = try JSONValue.parse(version.document)
            return JSONResponse(.object(json))
        }
        appRoutes.on(.post, "versions/{number}/rollback", need: .role(.publisher)) { request, context in
            let app = context.app
            let number = try Self.versionNumber(context)
            let note = try await Self.note(request, helpers: helpers)
            let outcome = try await helpers.wholeApp.run(app: app.id) {
                try await Self.measured { try await publishing.rollback(appId: app.id, to: number, publishedBy: context.publisher, note: note) }
            }
            return await respond(outcome, app: app, people: context.people)
        }
    }

    func importing(_ request: Request, _ app: App, replacing: Bool) async throws -> JSONResponse {
        // The body is the document under review: a broken one is a 422 saying where, like any
        // other problem of the document (elsewhere malformed JSON is a 400).
        let document: JSONValue
        do {
            document = try await helpers.body(request)
        } catch let problem as Problem where problem.type == "malformed-json" {
            throw Problem.invalid([FieldError("", problem.detail)])
        }
        let result = try await helpers.wholeApp.run(app: app.id) { try await imports.importDocument(appId: app.id, json: document, replacing: replacing) }
        return JSONResponse([
            "screens": .array(result.screens.map { ["id": $0.body["id"] ?? .null, "name": $0.body["name"] ?? .null, "screen_type": $0.body["screen_type"] ?? .null] }),
            "families_created": .array(result.familiesCreated.map(JSONValue.string)),
            "families_extended": .array(result.familiesExtended.map(JSONValue.string)),
            "warnings": .array(result.warnings.map { ["pointer": .string($0.pointer), "message": .string($0.message)] }),
        ], status: replacing ? .ok : .created)
    }

    /// A publish or rollback, counted by result and timed (`ServerMetrics`).
    static func measured(_ work: () async throws -> PublishOutcome) async throws -> PublishOutcome {
        let start = ContinuousClock.now
        do {
            let outcome = try await work()
            switch outcome {
            case .published: ServerMetrics.publish(result: "published").increment()
            case .unchanged: ServerMetrics.publish(result: "unchanged").increment()
            }
            let elapsed = ContinuousClock.now - start
            ServerMetrics.publishDuration.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
            return outcome
        } catch {
            ServerMetrics.publish(result: "refused").increment()
            throw error
        }
    }

    func respond(_ outcome: PublishOutcome, app: App, channel: String = ChannelName.production, people: PeopleShown) async -> JSONResponse {
        let url = channel == ChannelName.production
            ? "\(baseURL)/rivers/\(app.slug)/rivers.json" : "\(baseURL)/rivers/\(app.slug)/channels/\(channel)/rivers.json"
        switch outcome {
        case .published(let version):
            // This process serves the new version at once; the others hear of it by notification.
            if channel == ChannelName.production { documents.update(slug: app.slug, version: version) }
            // The entry as committed (channels, and the generation that orders it after any
            // reading from before this publish).
            try? await documents.refresh(slug: app.slug)
            return JSONResponse(["changed": true, "version": version.json(slug: app.slug, baseURL: baseURL, people: people), "channel": .string(channel),
                                 "public_url": .string(url)], status: .created)
        case .unchanged(let version):
            return JSONResponse(["changed": false, "version": version.json(slug: app.slug, baseURL: baseURL, people: people), "channel": .string(channel),
                                 "public_url": .string(url),
                                 "detail": .string("\(channel) serves version \(version.number) already, with this same content; no version was added")])
        }
    }

    static func versionNumber(_ context: some RequestContext) throws -> Int {
        let text = try context.pathParameter("number")
        guard let n = Int(text), n > 0 else { throw Problem.notFound("no version \(text)") }
        return n
    }

    /// An optional `{"note": "...", "channel": "staging"}` (production unless said); an empty body is fine.
    static func noteAndChannel(_ request: Request, helpers: APIHelpers) async throws -> (note: String, channel: String) {
        let body = try await helpers.optionalBody(request)
        guard let body else { return ("", ChannelName.production) }
        let problems = Problems()
        guard let r = ObjectReader(body, at: "", problems: problems) else { throw Problem.invalid(problems.errors, count: problems.count) }
        r.rejectUnknownKeys(["note", "channel"])
        let note = r.string("note", maxLength: 1000)
        let channel = r.string("channel", nonEmpty: true, maxLength: 100)
        if let channel, let problem = ChannelName.problem(channel) { problems.add("/channel", problem) }
        if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
        return (note ?? "", channel ?? ChannelName.production)
    }

    /// An optional `{"note": "..."}`; an empty body is fine.
    static func note(_ request: Request, helpers: APIHelpers) async throws -> String {
        let body = try await helpers.optionalBody(request)
        guard let body else { return "" }
        let problems = Problems()
        guard let r = ObjectReader(body, at: "", problems: problems) else { throw Problem.invalid(problems.errors, count: problems.count) }
        r.rejectUnknownKeys(["note"])
        let note = r.string("note", maxLength: 1000)
        if !problems.isEmpty { throw Problem.invalid(problems.errors, count: problems.count) }
        return note ?? ""
    }
}
