import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import Prometheus
import RiversCore
import RiversServices
@testable import RiversServer
import RiversStore
import Testing

/// Issue 15: what the server does when the database is away, its readiness, and its JSON logs.
@Suite("Operations: database outages, readiness, JSON logs")
struct OperationsTests {
    @Test func whileTheDatabaseIsAwayTheAPIAnswers503AtOnceAndPublicDocumentsStayServed() async throws {
        let (store, app, token) = try await storeWithApp(slugPrefix: "o")
        let availability = DatabaseAvailability(ready: false)
        let router = buildRouter(
            store: store, configuration: testConfiguration(), documents: PublishedDocuments(store: store), availability: availability)
        try await Application(router: router, logger: testLogger).test(.router) { client in
            let start = ContinuousClock.now
            try await client.execute(uri: "/api/v1/apps/\(app.slug)/screens", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "2")
                #expect(response.headers[.contentType] == "application/problem+json")
                let body = try JSONValue.parse(Array(response.body.readableBytesView))
                #expect(body["type"] == "/problems/database-unavailable")
            }
            #expect(ContinuousClock.now - start < .seconds(2), "answered at once, not after waiting for the pool")
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .serviceUnavailable, "not ready")
            }
            try await client.execute(uri: "/health/live", method: .get) { response in
                #expect(response.status == .ok, "alive")
            }
            try await client.execute(uri: "/health/ready", method: .get) { response in
                #expect(response.status == .serviceUnavailable, "not ready for traffic")
            }
            availability.record(ready: true)
            try await client.execute(uri: "/health", method: .get) { response in #expect(response.status == .ok) }
            try await client.execute(uri: "/api/v1/apps/\(app.slug)/screens", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.status == .ok, "served again without a restart")
            }
        }
    }

    @Test func theMonitorWaitsForAnUnreachableDatabaseAndSaysWhere() async throws {
        // A port nothing listens on: connections are refused.
        var configuration = PostgresClient.Configuration(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable)
        configuration.options.connectTimeout = .seconds(1)
        let unreachable = PostgresClient(configuration: configuration, backgroundLogger: testLogger)
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "monitor") { label in
            var handler = JSONLogHandler(label: label) { line in lines.withLockedValue { $0.append(String(decoding: line, as: UTF8.self)) } }
            handler.logLevel = .info
            return handler
        }
        let availability = DatabaseAvailability()
        let prepared = NIOLockedValueBox(false)
        let monitor = DatabaseMonitor(client: unreachable, availability: availability, address: "127.0.0.1:1", logger: logger) {
            prepared.withLockedValue { $0 = true }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await unreachable.run() }
            group.addTask { try? await monitor.run() }
            try? await Task.sleep(for: .milliseconds(2500))
            group.cancelAll()
        }
        #expect(!availability.isReady)
        #expect(!prepared.withLockedValue { $0 }, "the schema is checked only once the database answers")
        let logged = lines.withLockedValue { $0 }
        let first = try #require(logged.first.map { try JSONValue.parse(Array($0.utf8)) })
        #expect(first["level"] == "warning")
        #expect(first["message"]?.stringValue?.contains("cannot reach the database at 127.0.0.1:1") == true, "\(logged)")
    }

    /// A request in flight waits for an outage on a registration: it wakes when the database is
    /// seen down, at once when it is down already, and leaves nothing behind when cancelled.
    @Test func requestsInFlightHearOfAnOutage() async throws {
        let availability = DatabaseAvailability(ready: true)
        let waiting = Task { await availability.outage(); return true }
        try await Task.sleep(for: .milliseconds(50))
        availability.record(ready: false)
        #expect(await waiting.value)
        await availability.outage()  // down already: returns at once
        availability.record(ready: true)
        let cancelled = Task { await availability.outage(); return Task.isCancelled }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        #expect(await cancelled.value, "a cancelled wait ends without an outage")
        #expect(availability.waitingCount == 0)
    }

    /// One slow ping is not an outage (going down answers every request in flight with 503);
    /// two in a row are, and so is any error at once.
    @Test func oneSlowPingIsNotAnOutage() async throws {
        var judge = ReadinessJudge()
        let pings: [ReadinessJudge.Ping] = [.answered, .timedOut, .answered, .timedOut, .timedOut, .timedOut, .answered, .failed, .timedOut, .answered]
        let seen = pings.map { judge.readiness(after: $0) }
        #expect(seen == [true, nil, true, nil, false, false, true, false, nil, true])

        // The monitor as it runs: its availability and its log follow the judge.
        var configuration = PostgresClient.Configuration(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable)
        configuration.options.connectTimeout = .seconds(1)
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "monitor") { label in
            var handler = JSONLogHandler(label: label) { line in lines.withLockedValue { $0.append(String(decoding: line, as: UTF8.self)) } }
            handler.logLevel = .info
            return handler
        }
        let availability = DatabaseAvailability(ready: true)
        let monitor = DatabaseMonitor(
            client: PostgresClient(configuration: configuration, backgroundLogger: testLogger), availability: availability, address: "db:5432", logger: logger)
        var running = ReadinessJudge()
        monitor.observe(DatabaseMonitor.PingTimeout(), judge: &running)
        #expect(availability.isReady && lines.withLockedValue { $0 }.isEmpty, "one slow ping")
        monitor.observe(nil, judge: &running)
        monitor.observe(DatabaseMonitor.PingTimeout(), judge: &running)
        #expect(availability.isReady, "slow pings apart")
        monitor.observe(DatabaseMonitor.PingTimeout(), judge: &running)
        #expect(!availability.isReady, "two slow pings in a row")
        monitor.observe(nil, judge: &running)
        #expect(availability.isReady)
        struct Refused: Error {}
        monitor.observe(Refused(), judge: &running)
        #expect(!availability.isReady, "an error: down at once")
        let logged = lines.withLockedValue { $0 }
        #expect(logged.count == 3 && logged[0].contains("no answer within half a second") && logged[1].contains("answers again") && logged[2].contains("stopped answering"), "\(logged)")
    }

    /// A background loop that fails every second says so at warning once every 10 minutes (at
    /// debug only, schedules that never fire went unseen), the rest at debug.
    @Test func aFailingScheduleRunnerWarnsOnce() async throws {
        struct Broken: ReleaseStorage {
            struct Failure: Error {}
            func withReleases<T: Sendable>(appId: String, _ work: @escaping @Sendable (any ReleaseTransaction) async throws -> T) async throws -> T { throw Failure() }
            func withDueSchedule<T: Sendable>(_ work: @escaping @Sendable (any ReleaseTransaction, Schedule) async throws -> T) async throws -> T? { throw Failure() }
        }
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Logger(label: "schedules") { label in
            var handler = JSONLogHandler(label: label) { line in lines.withLockedValue { $0.append(String(decoding: line, as: UTF8.self)) } }
            handler.logLevel = .debug
            return handler
        }
        let runner = ScheduleRunner(
            releases: ReleaseService(storage: Broken()), documents: PublishedDocuments(store: InMemoryPublishedVersions()), logger: logger,
            interval: .milliseconds(20))
        let polling = Task { await runner.poll() }
        // Generous: with the whole suite on two cores the loop's task waits its turn for seconds
        // (two lines in 10 s were seen); the wait ends as soon as five are there.
        let deadline = ContinuousClock.now + .seconds(30)
        while lines.withLockedValue({ $0.count }) < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        polling.cancel()
        await polling.value
        let logged = try lines.withLockedValue { $0 }.map { try JSONValue.parse(Array($0.utf8)) }
        #expect(logged.count >= 5)
        #expect(logged.filter { $0["level"] == "warning" }.count == 1, "\(logged.map { $0["level"] })")
        #expect(logged.first?["message"]?.stringValue?.contains("firing due schedules failed") == true)
    }

    @Test func theMonitorBecomesReadyWhenTheDatabaseAnswers() async throws {
        // On a client of its own, as the server runs it: the other tests keep the shared pool busy.
        let client = DatabaseMonitor.ownClient(try await TestDatabase.shared.value.1, logger: testLogger)
        let availability = DatabaseAvailability()
        let monitor = DatabaseMonitor(client: client, availability: availability, address: "test", logger: testLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            group.addTask { try await monitor.run() }
            let deadline = ContinuousClock.now + .seconds(15)
            while !availability.isReady, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            group.cancelAll()
        }
        #expect(availability.isReady)
    }

    @Test func theWholeApplicationBecomesReadyAndServesMetrics() async throws {
        let client = try await TestDatabase.newClient()
        let registry = PrometheusCollectorRegistry()
        registry.makeCounter(name: "rivers_test_marker").increment(by: Int64(3))
        var configuration = testConfiguration()
        configuration.port = 0
        let prepared = NIOLockedValueBox(false)
        let app = buildApplication(configuration: configuration, client: client, logger: testLogger, metrics: registry) {
            prepared.withLockedValue { $0 = true }
        }
        try await app.test(.live) { client in
            let deadline = ContinuousClock.now + .seconds(10)
            var status = HTTPResponse.Status.serviceUnavailable
            while status != .ok, ContinuousClock.now < deadline {
                status = try await client.execute(uri: "/health", method: .get).status
                if status != .ok { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(status == .ok, "ready once the database answers")
            // Ready with the documents too once the published index is loaded.
            var ready = HTTPResponse.Status.serviceUnavailable
            while ready != .ok, ContinuousClock.now < deadline {
                ready = try await client.execute(uri: "/health/ready", method: .get).status
                if ready != .ok { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(ready == .ok)
            #expect(prepared.withLockedValue { $0 }, "the schema check ran first")
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.status == .ok)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(String(buffer: metrics.body).contains("rivers_test_marker 3"))
        }
    }

    @Test func jsonLogLinesCarryTheRequestFields() async throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "rivers") { label in
            JSONLogHandler(label: label) { line in lines.withLockedValue { $0.append(String(decoding: line, as: UTF8.self)) } }
        }
        logger.logLevel = .info
        logger.info("request", metadata: ["method": "GET", "route": "/api/v1/apps/{app}/screens", "status": .stringConvertible(200), "duration_ms": .stringConvertible(1.5)])
        let line = try #require(lines.withLockedValue { $0.first })
        #expect(line.hasSuffix("\n") && line.filter { $0 == "\n" }.count == 1, "one line")
        let json = try JSONValue.parse(Array(line.utf8))
        #expect(json["level"] == "info")
        #expect(json["label"] == "rivers")
        #expect(json["message"] == "request")
        #expect(json["route"] == "/api/v1/apps/{app}/screens")
        #expect(json["status"] == 200)
        #expect(json["duration_ms"] == 1.5)
        #expect(json["time"]?.stringValue?.hasSuffix("Z") == true)
    }

    @Test func logFormatAndShutdownTimeoutAreRead() throws {
        let c = try ServerConfiguration.fromEnvironment(["LOG_FORMAT": "JSON", "SHUTDOWN_TIMEOUT": "25"])
        #expect(c.logFormat == .json)
        #expect(c.shutdownTimeout == .seconds(25))
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["LOG_FORMAT": "xml"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.fromEnvironment(["SHUTDOWN_TIMEOUT": "0"]) }
    }

    @Test("WEBHOOK_SECRET_KEY and WEBHOOK_SECRET_KEY_PREVIOUS are read; a bad one stops the start and is not repeated")
    func webhookSecretKeysAreRead() throws {
        let key = Data(repeating: 5, count: 32).base64EncodedString(), old = Data(repeating: 6, count: 32).base64EncodedString()
        #expect(try !ServerConfiguration.fromEnvironment([:]).webhookSecretSeal.seals)
        let both = try ServerConfiguration.fromEnvironment(["WEBHOOK_SECRET_KEY": key + "\n", "WEBHOOK_SECRET_KEY_PREVIOUS": old]).webhookSecretSeal
        let appId = UUIDText.random()
        let sealedWithOld = try WebhookSecretSeal(base64: old).seal("whsec_x", appId: appId)
        #expect(both.seals)
        #expect(try both.open(sealedWithOld, appId: appId) == "whsec_x")
        let truncated = String(key.dropLast(8))
        for env in [
            ["WEBHOOK_SECRET_KEY": truncated], ["WEBHOOK_SECRET_KEY": key, "WEBHOOK_SECRET_KEY_PREVIOUS": truncated],
            ["WEBHOOK_SECRET_KEY_PREVIOUS": old],
        ] {
            do {
                _ = try ServerConfiguration.fromEnvironment(env)
                Issue.record("started with \(env.keys.sorted())")
            } catch let error as ConfigurationError {
                #expect(!error.description.contains(truncated) && !error.description.contains(old), "\(error.description)")
            }
        }
    }
}
