import Foundation
import Hummingbird
import Logging
import RiversCore
import RiversStore

/// `LOG_FORMAT=json`: one JSON object a line on standard error — `time`, `level`, `label`,
/// `message`, and the metadata as members (`request_id`, `method`, `route`, `status`,
/// `duration_ms` on the request lines) — for a log collector. Text stays the default.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String
    /// Where each line goes (standard error; tests read them).
    let write: @Sendable ([UInt8]) -> Void

    public init(label: String) {
        self.init(label: label) { line in FileHandle.standardError.write(Data(line)) }
    }

    public init(label: String, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: JSONValue] = [
            "time": .string(Timestamp.format(Date())), "level": .string(event.level.rawValue), "label": .string(label),
            "message": .string(event.message.description),
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) where object[key] == nil {
            object[key] = Self.json(value)
        }
        var line = JSONValue.object(object).serialized()
        line.append(UInt8(ascii: "\n"))
        write(line)
    }

    static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .stringConvertible(let c):
            if let n = c as? Int { return .number(Double(n)) }
            if let d = c as? Double, d.isFinite { return .number(d) }
            return .string(c.description)
        case .array(let items): return .array(items.map(json))
        case .dictionary(let d): return .object(d.mapValues(json))
        }
    }
}

/// One log line per request, after the answer: method, route pattern (never the path's values
/// or the query, never a body or a token), status, duration and request id.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var status = 500
        defer {
            let elapsed = ContinuousClock.now - start
            let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            context.logger.info("request", metadata: [
                "method": .string(request.method.rawValue), "route": .string(context.endpointPath ?? "(no route)"),
                "status": .stringConvertible(status), "duration_ms": .stringConvertible((ms * 1000).rounded() / 1000),
                "request_id": .string(context.id),
            ])
        }
        do {
            let response = try await next(request, context)
            status = Int(response.status.code)
            return response
        } catch let error as HTTPResponseError {
            status = Int(error.status.code)
            throw error
        }
    }
}
