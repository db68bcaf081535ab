import Foundation
import Logging
import PostgresNIO

/// A schema change: `Migrations/NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String

    /// Reads every `NNNN_name.sql` in `directory`, in order of version.
    public static func load(from directory: URL) throws -> [Migration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        var migrations: [Migration] = []
        for file in files where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]) else {
                throw ConfigurationError("migration file \(file) must be named NNNN_name.sql")
            }
            let sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            migrations.append(Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        migrations.sort { $0.version < $1.version }
        for (a, b) in zip(migrations, migrations.dropFirst()) where a.version == b.version {
            throw ConfigurationError("two migrations have version \(a.version): \(a.name) and \(b.name)")
        }
        return migrations
    }

    /// Where the migrations are: `RIVERS_MIGRATIONS_DIR`, else `Migrations/` in the working
    /// directory or beside the executable's build folder.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let dir = environment["RIVERS_MIGRATIONS_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Migrations")
        if FileManager.default.fileExists(atPath: cwd.path) { return cwd }
        var dir = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = dir.appendingPathComponent("Migrations")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return cwd
    }
}

/// Applies pending migrations, each in its own transaction, and records them in `schema_migrations`.
public struct Migrator: Sendable {
    public let client: PostgresClient
    public let migrations: [Migration]
    public let logger: Logger

    /// An arbitrary constant: the advisory lock that keeps two processes from migrating at once.
    static let lockKey: Int64 = 0x52_49_56_45_52_53

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        self.client = client
        self.migrations = migrations
        self.logger = logger
    }

    public func applied() async throws -> [Int] {
        try await client.withConnection { connection in
            // Reading never creates the table: that happens under the lock in `migrate`.
            for try await exists in try await connection.query(
                "SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger
            ).decode(Bool.self) where !exists {
                return []
            }
            var versions: [Int] = []
            for try await version in try await connection.query("SELECT version FROM schema_migrations ORDER BY version", logger: logger).decode(Int.self) {
                versions.append(version)
            }
            return versions
        }
    }

    public func pending() async throws -> [Migration] {
        let done = Set(try await applied())
        return migrations.filter { !done.contains($0.version) }
    }

    /// Applies what is pending and returns what it applied; running it again applies nothing.
    @discardableResult
    public func migrate() async throws -> [Migration] {
        try await client.withConnection { connection in
            // Lock first: two processes starting together must not both create the table or apply a file.
            try await connection.query("SELECT pg_advisory_lock(\(Self.lockKey))", logger: logger)
            do {
                try await ensureTable(connection)
                var done: Set<Int> = []
                for try await version in try await connection.query("SELECT version FROM schema_migrations", logger: logger).decode(Int.self) {
                    done.insert(version)
                }
                var appliedNow: [Migration] = []
                for migration in migrations where !done.contains(migration.version) {
                    logger.info("applying migration \(migration.version)_\(migration.name)")
                    try await connection.transaction(logger: logger) { connection in
                        // Migration files are trusted text from the repository; each statement runs
                        // on its own because the extended protocol takes one at a time.
                        for statement in SQLScript.statements(migration.sql) {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await connection.query(
                            "INSERT INTO schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                            logger: logger)
                    }
                    appliedNow.append(migration)
                }
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                return appliedNow
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger)
                throw error
            }
        }
    }

    func ensureTable(_ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
    }
}

/// Splits a SQL script into statements at top-level semicolons, leaving alone those inside
/// quotes, quoted identifiers, dollar-quoted bodies and comments.
public enum SQLScript {
    public static func statements(_ sql: String) -> [String] {
        let chars = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var i = 0
        func flush() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { statements.append(text) }
            current = String.UnicodeScalarView()
        }
        while i < chars.count {
            let c = chars[i]
            let next: Unicode.Scalar? = i + 1 < chars.count ? chars[i + 1] : nil
            if c == "-", next == "-" {  // line comment: dropped
                while i < chars.count, chars[i] != "\n" { i += 1 }
                continue
            }
            if c == "/", next == "*" {  // block comment: dropped
                i += 2
                while i + 1 < chars.count, !(chars[i] == "*" && chars[i + 1] == "/") { i += 1 }
                i += 2
                continue
            }
            if c == "'" || c == "\"" {  // quoted text or identifier; doubled quotes stay inside
                current.append(c)
                i += 1
                while i < chars.count {
                    current.append(chars[i])
                    if chars[i] == c {
                        if i + 1 < chars.count, chars[i + 1] == c { current.append(chars[i + 1]); i += 2; continue }
                        i += 1
                        break
                    }
                    i += 1
                }
                continue
            }
            if c == "$" {  // dollar quoting: $tag$ ... $tag$
                var j = i + 1
                while j < chars.count, chars[j] == "_" || chars[j].properties.isAlphabetic || ("0"..."9").contains(chars[j]) { j += 1 }
                if j < chars.count, chars[j] == "$" {
                    let tag = Array(chars[i...j])
                    current.append(contentsOf: tag)
                    i = j + 1
                    while i < chars.count {
                        if chars[i] == "$", i + tag.count <= chars.count, Array(chars[i..<i + tag.count]) == tag {
                            current.append(contentsOf: tag)
                            i += tag.count
                            break
                        }
                        current.append(chars[i])
                        i += 1
                    }
                    continue
                }
            }
            if c == ";" {
                flush()
                i += 1
                continue
            }
            current.append(c)
            i += 1
        }
        flush()
        return statements
    }
}
