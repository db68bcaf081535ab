import Logging
import RiversServer
import RiversStore
import Testing

@Suite("Configuration from the environment")
struct ConfigurationTests {
    @Test("every documented variable is read, with its default")
    func variables() throws {
        let defaults = try ServerConfiguration.fromEnvironment([:])
        #expect(defaults.host == "127.0.0.1")
        #expect(defaults.port == 8080)
        #expect(defaults.logLevel == .info)
        #expect(defaults.maxBodyBytes == 1_048_576)
        #expect(defaults.publicDirectory == "Public")
        #expect(!defaults.autoMigrate)
        #expect(defaults.eventLoopThreads == nil, "one event loop per core")
        #expect(defaults.baseURL == "http://127.0.0.1:8080")
        #expect(defaults.databasePoolSize == 20)
        #expect(defaults.cdnTagHeaders == .both)
        #expect(defaults.auditLogDays == nil, "kept for ever")

        let set = try ServerConfiguration.fromEnvironment([
            "HOST": "0.0.0.0", "PORT": "9000", "DATABASE_URL": "postgres://u:p@db:5433/x", "PUBLIC_BASE_URL": "https://r.example/",
            "LOG_LEVEL": "DEBUG", "MAX_BODY_BYTES": "2048", "PUBLIC_DIR": "/srv/public", "AUTO_MIGRATE": "true",
            "EVENT_LOOP_THREADS": "3", "DATABASE_POOL_SIZE": "8", "CDN_TAG_HEADERS": "Cache-Tag", "AUDIT_LOG_DAYS": "365",
        ])
        #expect(set.auditLogDays == 365)
        #expect(set.cdnTagHeaders == .cacheTag)
        #expect(try ServerConfiguration.fromEnvironment(["CDN_TAG_HEADERS": "none"]).cdnTagHeaders == [])
        #expect(try ServerConfiguration.fromEnvironment(["CDN_TAG_HEADERS": "surrogate-key"]).cdnTagHeaders == .surrogateKey)
        #expect(set.databasePoolSize == 8)
        #expect(try DatabaseURL(set.databaseURL).clientConfiguration(maximumConnections: set.databasePoolSize).options.maximumConnections == 8)
        #expect(set.eventLoopThreads == 3)
        #expect(set.host == "0.0.0.0")
        #expect(set.port == 9000)
        #expect(set.logLevel == .debug)
        #expect(set.maxBodyBytes == 2048)
        #expect(set.publicDirectory == "/srv/public")
        #expect(set.autoMigrate)
        #expect(set.baseURL == "https://r.example", "a trailing slash is dropped")
        let url = try DatabaseURL(set.databaseURL)
        #expect(url.host == "db" && url.port == 5433 && url.user == "u" && url.password == "p" && url.database == "x")
    }

    @Test("bad values are refused with the variable's name")
    func badValues() {
        for (name, value) in [
            ("PORT", "eighty"), ("LOG_LEVEL", "loud"), ("MAX_BODY_BYTES", "10"), ("EVENT_LOOP_THREADS", "0"), ("EVENT_LOOP_THREADS", "1000"),
            ("DATABASE_POOL_SIZE", "3"), ("DATABASE_POOL_SIZE", "1001"), ("DATABASE_POOL_SIZE", "twenty"),
            ("CDN_TAG_HEADERS", "fastly"), ("AUDIT_LOG_DAYS", "0"), ("AUDIT_LOG_DAYS", "36501"),
        ] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try ServerConfiguration.fromEnvironment([name: value]) }
            do {
                _ = try ServerConfiguration.fromEnvironment([name: value])
            } catch {
                #expect("\(error)".contains(name))
            }
        }
        #expect(throws: ConfigurationError.self) { try DatabaseURL("mysql://localhost/x") }
        let socket = try? DatabaseURL("postgres://postgres@localhost:54329/rivers?host=/tmp/sock")
        #expect(socket?.socketPath == "/tmp/sock/.s.PGSQL.54329")
        #expect(socket?.urlString == "postgres://postgres@localhost:54329/rivers?host=/tmp/sock")
    }
}
