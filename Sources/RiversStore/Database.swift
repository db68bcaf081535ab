import Foundation
import Logging
import PostgresNIO

/// Connection settings read from a `DATABASE_URL`:
/// `postgres://user[:password]@host[:port]/database` or, for a Unix socket,
/// `postgres:///database?host=/path/to/socket/dir&user=name` (as libpq writes it).
public struct DatabaseURL: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var socketDirectory: String?
    public var user: String
    public var password: String?
    public var database: String

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
              components.scheme == "postgres" || components.scheme == "postgresql"
        else {
            throw ConfigurationError("DATABASE_URL must look like postgres://user:password@host:5432/database (got \"\(text)\")")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, b in b })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        port = components.port ?? Int(query["port"] ?? "") ?? 5432
        user = components.user ?? query["user"] ?? "postgres"
        password = components.password ?? query["password"]
        database = String(components.path.drop(while: { $0 == "/" }))
        if database.isEmpty { database = query["dbname"] ?? user }
        if let socket = query["host"], socket.hasPrefix("/") { socketDirectory = socket }
    }

    /// The socket file inside the socket directory, as Postgres names it.
    public var socketPath: String? {
        socketDirectory.map { "\($0)/.s.PGSQL.\(port)" }
    }

    public func clientConfiguration() -> PostgresClient.Configuration {
        var config: PostgresClient.Configuration
        if let socketPath {
            config = .init(unixSocketPath: socketPath, username: user, password: password, database: database)
        } else {
            config = .init(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        }
        config.options.maximumConnections = 20
        return config
    }

    /// The URL again, as `DATABASE_URL` takes it.
    public var urlString: String {
        var text = "postgres://\(user)"
        if let password { text += ":\(password)" }
        text += "@\(host):\(port)/\(database)"
        if let socketDirectory { text += "?host=\(socketDirectory)" }
        return text
    }

    /// The same server and credentials, another database (tests create throwaway databases).
    public func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }
}

public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension PostgresConnection {
    /// Runs `body` in a transaction and rethrows its own error unchanged (PostgresNIO's
    /// `withTransaction` wraps it), so domain errors reach the HTTP layer as they were thrown.
    func transaction<T: Sendable>(logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await query("BEGIN", logger: logger)
        do {
            let result = try await body(self)
            try await query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await query("ROLLBACK", logger: logger)
            throw error
        }
    }
}

extension PostgresClient {
    func transaction<T: Sendable>(logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in
            try await connection.transaction(logger: logger, body)
        }
    }
}
