// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "rivers",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "rivers", targets: ["rivers"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Already in the graph through HummingbirdTesting; the multi-process tests use its client.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already in the graph through Hummingbird; named here for header names and the HTTP parts
        // a connection's channel handlers see (timeouts, connection cap, the public documents).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already in the graph through SwiftNIO; named here for the public documents' lock-free index.
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // /metrics: swift-metrics is in the graph through Hummingbird; Prometheus is its backend.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Already in the graph through PostgresNIO; named here for SHA-256 (API tokens).
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // bcrypt for passwords (HummingbirdBcrypt only: a small C target, nothing else of it is built).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
    ],
    targets: [
        // The pure domain: model, validation, JSON values. No I/O.
        .target(name: "RiversCore"),
        // The pure layout engine: frames of every section and cell for a device. No I/O.
        .target(name: "RiversLayout", dependencies: ["RiversCore"]),
        // `make bench-layout`: cells laid out per second, release build.
        .executableTarget(name: "RiversLayoutBench", dependencies: ["RiversLayout"]),
        // `scripts/bench-publish.sh`: document generation time, and a document for the serving benchmark.
        .executableTarget(name: "RiversPublishBench", dependencies: ["RiversCore"]),
        // `scripts/bench-publish.sh`: SwiftNIO answering fixed bytes, the floor for the public URL.
        .executableTarget(name: "RiversNIOFloor", dependencies: [
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // `scripts/bench-publish.sh`: the public byte path's own cost per request, without sockets.
        // (It reaches the byte path's types through `package` access.)
        .executableTarget(name: "RiversPublicPathBench", dependencies: [
            "RiversServer", "RiversStore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
        ]),
        // gzip through the system zlib (zlib1g-dev), for published documents.
        .target(name: "CGzip", linkerSettings: [.linkedLibrary("z")]),
        // Persistence on PostgreSQL: migrations and repositories.
        .target(name: "RiversStore", dependencies: [
            "RiversCore", "RiversLayout", "CGzip",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Metrics", package: "swift-metrics"),
        ]),
        // The use cases (issue 26): each one transaction over the repository protocols of
        // RiversStore, whose implementations only speak SQL (or keep things in memory for tests).
        .target(name: "RiversServices", dependencies: [
            "RiversCore", "RiversStore", .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // HTTP: the JSON API and the static editor, on Hummingbird.
        .target(name: "RiversServer", dependencies: [
            "RiversCore", "RiversStore", "RiversServices", "RiversLayout",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            // Webhook deliveries (issue 27).
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
        ], resources: [.copy("openapi.json")]),
        // The `rivers` command: serve, migrate, app create, token create.
        .executableTarget(name: "rivers", dependencies: [
            "RiversCore", "RiversStore", "RiversServices", "RiversServer",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]),
        .testTarget(name: "RiversCoreTests", dependencies: ["RiversCore", "RiversLayout"]),
        .testTarget(name: "RiversLayoutTests", dependencies: ["RiversLayout", "RiversCore"]),
        // The services on in-memory repositories: no PostgreSQL (the fast tier).
        .testTarget(name: "RiversServicesTests", dependencies: ["RiversServices", "RiversStore", "RiversCore"]),
        .testTarget(name: "RiversServerTests", dependencies: [
            "RiversCore", "RiversStore", "RiversServices", "RiversServer", "RiversLayout",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
    ]
)
