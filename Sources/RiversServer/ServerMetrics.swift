import Hummingbird
import Metrics
import Prometheus

/// The metrics Rivers records (through swift-metrics; `rivers serve` makes Prometheus their
/// backend and serves them at `/metrics`). HTTP requests by route pattern, method and status,
/// with their durations, come from Hummingbird's `MetricsMiddleware` (`hb_requests`,
/// `hb_request_errors`, `http_server_request_duration`, `http_server_active_requests`).
enum ServerMetrics {
    /// Publishes and rollbacks, by `result` (`published`, `unchanged`, `refused`).
    static func publish(result: String) -> Metrics.Counter { Metrics.Counter(label: "rivers_publishes_total", dimensions: [("result", result)]) }
    /// How long a publish takes, end to end.
    static let publishDuration = Metrics.Timer(label: "rivers_publish_duration_seconds")
    /// Public documents answered from this process's memory, and those it had to read first.
    static let documentCacheHits = Metrics.Counter(label: "rivers_public_document_cache_hits_total")
    static let documentCacheMisses = Metrics.Counter(label: "rivers_public_document_cache_misses_total")
    /// 404s answered from memory for slugs no app has (the routes' 404s are in `hb_requests`).
    static let documentsNotFound = Metrics.Counter(label: "rivers_public_document_unknown_slugs_total")
    /// Requests for a document not in memory that waited for a read already under way.
    static let documentReadsJoined = Metrics.Counter(label: "rivers_public_document_reads_joined_total")
    /// Bytes of published documents sent (after gzip when the client takes it).
    static let documentBytes = Metrics.Counter(label: "rivers_public_document_bytes_total")
    /// Times the LISTEN connection for publishes was lost and opened again.
    static let listenReconnects = Metrics.Counter(label: "rivers_listen_reconnects_total")
    /// 1 while the database answers, 0 while it does not.
    static let databaseReady = Metrics.Gauge(label: "rivers_database_ready")
    /// API requests answered 503 because the database was away.
    static let databaseUnavailable = Metrics.Counter(label: "rivers_database_unavailable_responses_total")
    static let writeOutcomeUnknown = Metrics.Counter(label: "rivers_write_outcome_unknown_responses_total")
    /// Drafts, checks, publishes, previews and changes refused because too many were waiting
    /// (`WorkGate`; an app's changes past its turns, `StoreError.busy`).
    static let workRefused = Metrics.Counter(label: "rivers_work_refused_total")
    /// Sign-ins and password changes refused (503) because too many password checks were queued.
    static let passwordChecksRefused = Metrics.Counter(label: "rivers_password_checks_refused_total")
}

/// `GET /metrics`: every metric in the Prometheus text format.
struct MetricsEndpoint {
    let registry: PrometheusCollectorRegistry

    func register(on router: Router<RiversContext>) {
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
    }
}
