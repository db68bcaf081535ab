import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Metrics
import PostgresNIO
import Prometheus
import RiversCore
import RiversServer
import RiversServices
import ServiceLifecycle
import RiversStore

@main
struct Rivers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rivers",
        abstract: "Rivers: compose app screens and publish them as rivers.json.",
        subcommands: [Serve.self, Migrate.self, AppCommand.self, TokenCommand.self, UserCommand.self, WebhookCommand.self, Publish.self, Versions.self])
}

/// Opens a database client from `DATABASE_URL`, runs `body` while the client runs, then stops it.
func withDatabase<T: Sendable>(_ configuration: ServerConfiguration, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
    let url = try DatabaseURL(configuration.databaseURL)
    let client = PostgresClient(configuration: url.clientConfiguration(), backgroundLogger: quiet(logger))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        do {
            // What a command changes is the command line's, in the audit log.
            return try await AuditActor.$current.withValue(AuditActor(name: "command line", kind: .system)) { try await body(client) }
        } catch let error as PSQLError {
            throw CLIError("database: \(String(reflecting: error))")
        }
    }
}

/// A failure reported in one line, without the usage text ArgumentParser adds to validation errors.
struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A short-lived command's database client starts its `run()` beside the first query; PostgresNIO
/// warns about that race, which is harmless here. Errors still reach the command as thrown errors.
func quiet(_ logger: Logger) -> Logger {
    var quiet = logger
    quiet.logLevel = max(logger.logLevel, .error)
    return quiet
}

/// Runs `body` with the store, settings from the environment.
func withStore(_ body: @escaping @Sendable (Store, ServerConfiguration) async throws -> Void) async throws {
    let configuration = try ServerConfiguration.fromEnvironment()
    let logger = makeLogger(configuration)
    try await withDatabase(configuration, logger: logger) { client in
        try await body(Store(client: client, logger: logger), configuration)
    }
}

/// Runs `body` with the store and the app named by `key` (slug or id), settings from the environment.
func withApp(_ key: String, _ body: @escaping @Sendable (Store, App, ServerConfiguration) async throws -> Void) async throws {
    try await withStore { store, configuration in
        guard let app = try await store.findApp(key) else { throw CLIError("no app \(key)") }
        try await body(store, app, configuration)
    }
}

func makeLogger(_ configuration: ServerConfiguration) -> Logger {
    if configuration.logFormat == .json { LoggingSystem.bootstrap(JSONLogHandler.init) }
    var logger = Logger(label: "rivers")
    logger.logLevel = configuration.logLevel
    return logger
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the API and the editor (settings from the environment).")

    @Flag(help: "Apply pending migrations before serving (or set AUTO_MIGRATE=1).")
    var migrate = false

    func run() async throws {
        var configuration = try ServerConfiguration.fromEnvironment()
        configuration.autoMigrate = configuration.autoMigrate || migrate
        let logger = makeLogger(configuration)
        let url = try DatabaseURL(configuration.databaseURL)
        let client = PostgresClient(
            configuration: url.clientConfiguration(maximumConnections: configuration.databasePoolSize), backgroundLogger: quiet(logger))
        let migrations = try Migration.load(from: Migration.defaultDirectory())
        let autoMigrate = configuration.autoMigrate
        let seal = configuration.webhookSecretSeal
        logger.info("serving on http://\(configuration.host):\(configuration.port) (public base URL \(configuration.baseURL))")
        if let warning = configuration.insecureCookieWarning { logger.warning("\(warning)") }
        // The schema is checked once the database answers (the server waits for it, not ready
        // meanwhile): a server on an old schema would fail at random, so it stops instead.
        // Metrics go to Prometheus, served at /metrics (or on METRICS_PORT).
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let app = buildApplication(
            configuration: configuration, client: client, monitorClient: DatabaseMonitor.ownClient(url, logger: logger), logger: logger,
            metrics: registry
        ) {
            let migrator = Migrator(client: client, migrations: migrations, logger: logger)
            let pending = try await migrator.pending()
            if !pending.isEmpty {
                guard autoMigrate else {
                    throw CLIError(
                        "the database has \(pending.count) pending migration(s) (\(pending.map { "\($0.version)_\($0.name)" }.joined(separator: ", "))): run 'rivers migrate', or serve with --migrate or AUTO_MIGRATE=1")
                }
                try await migrator.migrate()
            }
            // A key missing or misnamed (its Kubernetes Secret is optional) is said at once, not
            // first noticed as webhooks that stopped arriving. Only a warning: never what stops
            // a start (an error in this closure would).
            do {
                for warning in try await WebhookService.keyWarnings(in: Store(client: client, logger: logger), seal: seal) {
                    logger.warning("\(warning)")
                }
            } catch {
                logger.warning("could not check the webhook secrets against WEBHOOK_SECRET_KEY: \(String(reflecting: error))")
            }
        }
        // Graceful shutdown on SIGTERM/SIGINT, bounded by SHUTDOWN_TIMEOUT.
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        try await ServiceGroup(configuration: group).run()
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations (again: changes nothing).")

    @Flag(help: "Only list what is applied and what is pending.")
    var status = false

    func run() async throws {
        let configuration = try ServerConfiguration.fromEnvironment()
        let logger = makeLogger(configuration)
        let status = self.status
        try await withDatabase(configuration, logger: logger) { client in
            let migrator = Migrator(client: client, migrations: try Migration.load(from: Migration.defaultDirectory()), logger: logger)
            if status {
                let pending = Set(try await migrator.pending().map(\.version))
                for m in migrator.migrations { print("\(pending.contains(m.version) ? "pending" : "applied") \(m.version)_\(m.name)") }
                return
            }
            let applied = try await migrator.migrate()
            print(applied.isEmpty ? "nothing to apply: the database is up to date" : "applied \(applied.map { "\($0.version)_\($0.name)" }.joined(separator: ", "))")
        }
    }
}

struct AppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "app", abstract: "Manage apps.", subcommands: [Create.self, Purge.self])

    struct Purge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an archived app for good: its screens, versions, tokens, members and audit entries.")

        @Argument(help: "The archived app's slug or id (archive it first: DELETE /api/v1/apps/{app}).")
        var app: String

        func run() async throws {
            let key = self.app
            try await withStore { store, _ in
                guard let app = try await AppService(storage: store).purge(key) else {
                    throw CLIError("no archived app \(key): only an archived app can be purged")
                }
                print("purged \(app.slug) (\(app.id))")
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app and print an API token for it.")

        @Argument(help: "The app's slug, used in public URLs: lower-case letters, digits and '-'.")
        var slug: String

        @Option(help: "Display name (defaults to the slug).")
        var name: String?

        @Flag(help: "Print only the token (for scripts).")
        var quiet = false

        func run() async throws {
            let configuration = try ServerConfiguration.fromEnvironment()
            let logger = makeLogger(configuration)
            let (slug, name, quiet) = (self.slug, self.name ?? self.slug, self.quiet)
            try await withDatabase(configuration, logger: logger) { store in
                let store = Store(client: store, logger: logger)
                let app: App
                do {
                    app = try await AppService(storage: store).create(slug: slug, name: name)
                } catch StoreError.conflict(let detail, _) {
                    throw CLIError(detail)
                } catch StoreError.invalid(let errors) {
                    throw CLIError("slug " + errors.map(\.message).joined(separator: "; "))
                }
                let (token, _) = try await TeamService(storage: store).createToken(appId: app.id, name: "created with the app", role: .admin, createdBy: "command line")
                if quiet {
                    print(token)
                } else {
                    print("created app \(app.slug) (\(app.id))")
                    print("API token (shown once; keep it): \(token)")
                }
            }
        }
    }
}

struct WebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "webhook", abstract: "Manage webhooks.", subcommands: [SealSecrets.self])

    struct SealSecrets: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "seal-secrets",
            abstract: "Seal with WEBHOOK_SECRET_KEY every webhook secret stored before the key was set or sealed with WEBHOOK_SECRET_KEY_PREVIOUS (again: changes nothing).")

        @Option(help: "Only this app's webhooks (its slug or id); every app's without it.")
        var app: String?

        func run() async throws {
            let key = self.app
            try await withStore { store, configuration in
                guard configuration.webhookSecretSeal.seals else {
                    throw CLIError("WEBHOOK_SECRET_KEY is not set: there is no key to seal webhook secrets with")
                }
                var appId: String?
                if let key {
                    // An archived app's webhooks keep their secrets too (a restored app uses them).
                    var app = try await store.findApp(key)
                    if app == nil { app = try await store.withApps { try await $0.archivedApp(key) } }
                    guard let app else { throw CLIError("no app \(key)") }
                    appId = app.id
                }
                let outcome = try await WebhookService.sealStoredSecrets(in: store, with: configuration.webhookSecretSeal, appId: appId)
                print("sealed the secrets of \(outcome.sealed) webhook\(outcome.sealed == 1 ? "" : "s")")
                if outcome.unopenableCount > 0 {
                    let more = outcome.unopenableCount - outcome.unopenable.count
                    throw CLIError(
                        "\(outcome.unopenableCount) webhook\(outcome.unopenableCount == 1 ? " has a secret" : "s have secrets") that neither "
                            + "WEBHOOK_SECRET_KEY nor WEBHOOK_SECRET_KEY_PREVIOUS opens (sealed with another key), left as they are: "
                            + outcome.unopenable.map { "\($0.id) (app \($0.appId))" }.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
                            + ". Set the key they were sealed with as WEBHOOK_SECRET_KEY_PREVIOUS and run this again, or rotate their secrets.")
                }
            }
        }
    }
}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Manage API tokens.", subcommands: [Create.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Issue another API token for an app and print it.")

        @Argument(help: "The app's slug or id.")
        var app: String

        @Option(help: "A name to remember the token by.")
        var name = "command line"

        @Option(help: "What the token may do: viewer, editor, publisher or admin.")
        var role = "admin"

        func run() async throws {
            let name = self.name
            guard let role = Role(rawValue: role) else { throw CLIError("--role must be viewer, editor, publisher or admin") }
            try await withApp(app) { store, app, _ in
                print(try await TeamService(storage: store).createToken(appId: app.id, name: name, role: role, createdBy: "command line").token)
            }
        }
    }
}

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check an app and publish its rivers.json as a new version.")

    @Argument(help: "The app's slug or id.")
    var app: String

    @Option(help: "A note kept with the version.")
    var note = ""

    func run() async throws {
        let note = self.note
        try await withApp(app) { store, app, configuration in
            let outcome: PublishOutcome
            do {
                outcome = try await PublishService(storage: store).publish(appId: app.id, note: note, publishedBy: "cli")
            } catch StoreError.invalid(let problems) {
                throw CLIError("not published: \(problems.count) problem(s)\n" + problems.map { "  \($0.pointer): \($0.message)" }.joined(separator: "\n"))
            }
            let url = "\(configuration.baseURL)/rivers/\(app.slug)/rivers.json"
            switch outcome {
            case .published(let version):
                print("published version \(version.number) of \(app.slug) (\(version.document.count) bytes, sha256 \(version.sha256.prefix(12)))")
            case .unchanged(let version):
                print("nothing changed since version \(version.number); no version was added")
            }
            print(url)
        }
    }
}

struct Versions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List an app's published versions, newest first.")

    @Argument(help: "The app's slug or id.")
    var app: String

    @Option(help: "How many to list.")
    var limit = 20

    func run() async throws {
        let limit = max(1, min(self.limit, 200))
        try await withApp(app) { store, app, _ in
            let (versions, total) = try await store.listVersions(appId: app.id, limit: limit, offset: 0)
            if versions.isEmpty { print("\(app.slug) has no published version yet") }
            for v in versions {
                let rollback = v.rollbackOf.map { " (rollback to \($0))" } ?? ""
                print("v\(v.number)  \(Timestamp.format(v.createdAt))  \(v.size) bytes  \(v.sha256.prefix(12))  \(v.publishedBy)\(rollback)  \(v.note)")
            }
            if total > versions.count { print("… \(total - versions.count) older") }
        }
    }
}

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage people's accounts.", subcommands: [Create.self, ResetPassword.self])

    /// Prints a one-time link to set the account's password (valid 7 days, usable once).
    static func printLink(_ secret: String, _ link: OneTimeLink, email: String, configuration: ServerConfiguration) {
        print("set-password link for \(email) (usable once, until \(Timestamp.format(link.expiresAt))):")
        print("\(configuration.baseURL)/link.html#\(secret)")
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an account and print a one-time link to set its password.")

        @Argument(help: "The person's email address.")
        var email: String

        @Option(help: "The person's name.")
        var name = ""

        @Flag(help: "An instance administrator: creates users and apps, and can do everything in every app.")
        var admin = false

        func run() async throws {
            let (email, name, admin) = (self.email, self.name, self.admin)
            try await withStore { store, configuration in
                do {
                    let (user, made) = try await store.createAccount(email: email, name: name, isAdmin: admin, passwordLinkBy: "command line")
                    print("created \(user.isAdmin ? "instance administrator" : "account") \(user.email)")
                    if let (secret, link) = made { UserCommand.printLink(secret, link, email: user.email, configuration: configuration) }
                } catch StoreError.conflict(let detail, _) {
                    throw CLIError(detail)
                }
            }
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset-password", abstract: "Print a one-time link to set a new password.")

        @Argument(help: "The person's email address.")
        var email: String

        func run() async throws {
            let email = self.email
            try await withStore { store, configuration in
                guard try await store.user(email: email) != nil else { throw CLIError("no account \(email)") }
                let (secret, link) = try await store.createPasswordLink(email: email, createdBy: "command line")
                UserCommand.printLink(secret, link, email: email, configuration: configuration)
            }
        }
    }
}
