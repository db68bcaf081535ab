import Foundation
import HTTPTypes
import Hummingbird
import RiversCore
import RiversStore

/// `Idempotency-Key` on a write (POST, PUT, PATCH, DELETE): the first request with a key is
/// carried out and its answer kept for 24 hours per app (or, outside apps, the instance), caller
/// and key; the same request again gets that answer (with `Idempotency-Replayed: true`), never a
/// second change. The key is marked carried out inside the write's own transaction, so a request
/// that died before committing leaves its key free to retry, and one that committed is never
/// repeated, even when its answer was lost.
///
/// - The same key with another method, path or body: 422.
/// - While the first request with a key runs: 409 with `Retry-After`.
/// - An answer that held a secret shown once (a token, a link, a session) or that is larger
///   than `maxKeptBody` is not kept: the key then answers 409 `idempotency-key-used`.
/// - Requests without credentials (signing in, using a link) take no key: each is single-use
///   or harmless to repeat by nature.
struct IdempotencyMiddleware: RouterMiddleware {
    typealias Context = RiversContext
    let store: any IdempotencyRepository
    let bodyLimit: Int

    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotency-Replayed")!
    /// Answers up to this size are kept whole.
    static let maxKeptBody = 64 * 1024
    /// Headers of an answer worth repeating.
    static let keptHeaders: [HTTPField.Name] = [.contentType, .eTag, .location]

    func handle(_ request: Request, context: RiversContext, next: (Request, RiversContext) async throws -> Response) async throws -> Response {
        guard let key = request.headers[Self.header], !AuthMiddleware.isSafe(request.method) else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Problem(.badRequest, type: "bad-parameter", title: "A header is not valid",
                          detail: "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good key)", field: "Idempotency-Key")
        }
        let caller: String
        switch context.principal {
        case .person(let session)?: caller = "user:" + session.user.id
        case .token(_, let token)?: caller = "token:" + token.id
        case nil: return try await next(request, context)
        }
        var request = request
        let body = try await request.collectBody(upTo: bodyLimit)
        let requestHash = sha256Hex(Array("\(request.method.rawValue) \(request.uri.path)\n".utf8) + Array(buffer: body))
        let claim = IdempotencyClaim(scope: context.access?.app.id ?? "", caller: caller, key: key)
        switch try await Self.bookkeeping({ try await store.claimIdempotencyKey(claim, requestHash: requestHash) }) {
        case .claimed: break
        case .replay(let answer): return Self.replay(answer)
        case .mismatch:
            throw Problem(.unprocessableContent, type: "idempotency-key-reused", title: "Idempotency-Key used for another request",
                          detail: "this Idempotency-Key was sent with another request (method, path or body) in the last 24 hours: use a new key for a new request",
                          field: "Idempotency-Key")
        case .inProgress:
            throw Problem(.conflict, type: "idempotency-key-in-progress", title: "A request with this key is running",
                          detail: "the first request with this Idempotency-Key is still being carried out; repeat it in a moment to get its answer",
                          field: "Idempotency-Key", headers: [.retryAfter: "1"])
        case .committedWithoutAnswer:
            throw Problem(.conflict, type: "idempotency-key-used", title: "Already carried out",
                          detail: "the request with this Idempotency-Key was carried out, but its answer was lost: read the resource to see it",
                          field: "Idempotency-Key")
        case .tooMany(let limit):
            throw Problem(.tooManyRequests, type: "too-many-idempotency-keys", title: "Too many Idempotency-Keys",
                          detail: "at most \(limit) keys are kept per caller and app for 24 hours; send writes without a key, or wait",
                          field: "Idempotency-Key", headers: [.retryAfter: "3600"])
        }
        WriteOutcome.current?.attach(claim)
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            // Nothing of it was saved: the key is free again. Otherwise the key stays taken, and
            // says so when it is used again.
            if WriteOutcome.current?.state ?? .nothingCommitted == .nothingCommitted {
                try? await Self.bookkeeping { try await store.releaseIdempotencyKey(claim) }
            } else if let problem = error as? Problem {
                try? await Self.bookkeeping { try await store.keepIdempotentAnswer(claim, StoredAnswer(status: Int(problem.status.code), headers: [:], body: nil)) }
            }
            throw error
        }
        return try await keep(response, claim)
    }

    /// Keeps the answer (its body collected) and returns it.
    private func keep(_ response: Response, _ claim: IdempotencyClaim) async throws -> Response {
        var response = response
        let secret = response.headers[.setCookie] != nil || response.headers[.cacheControl]?.contains("no-store") == true
        var body: ByteBuffer?
        if !secret {
            let collected = CollectedBody()
            try await response.body.write(BodyCollector(into: collected))
            body = collected.buffer.readableBytes <= Self.maxKeptBody ? collected.buffer : nil
            response.body = .init(byteBuffer: collected.buffer)
        }
        var headers: [String: String] = [:]
        for name in Self.keptHeaders { if let value = response.headers[name] { headers[name.rawName] = value } }
        let status = Int(response.status.code)
        // A failure (4xx, 5xx) that changed nothing is not kept: it may go another way next time.
        if status >= 400, WriteOutcome.current?.state ?? .nothingCommitted == .nothingCommitted {
            try? await Self.bookkeeping { try await store.releaseIdempotencyKey(claim) }
            return response
        }
        try await Self.bookkeeping { try await store.keepIdempotentAnswer(claim, StoredAnswer(status: status, headers: headers, body: body.map { Array(buffer: $0) })) }
        return response
    }

    /// The key's own bookkeeping is not a change of the request's: its transactions do not count
    /// in what the request committed.
    static func bookkeeping<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        try await WriteOutcome.$current.withValue(nil) { try await work() }
    }

    static func replay(_ answer: StoredAnswer) -> Response {
        guard let body = answer.body else {
            return Response(status: .conflict, headers: [.contentType: "application/problem+json"], body: .init(byteBuffer: ByteBuffer(bytes: Problem(
                .conflict, type: "idempotency-key-used", title: "Already carried out",
                detail: "the request with this Idempotency-Key was carried out (\(answer.status)); its answer is not kept (it held a secret shown once, or was large): read the resource to see it",
                field: "Idempotency-Key").json.serialized())))
        }
        var headers: HTTPFields = [replayedHeader: "true"]
        for (name, value) in answer.headers { if let field = HTTPField.Name(name) { headers[field] = value } }
        return Response(status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// A response body, collected (answers of writes are small: a resource, a problem).
private final class CollectedBody: @unchecked Sendable {
    var buffer = ByteBuffer()
}

private struct BodyCollector: ResponseBodyWriter {
    let into: CollectedBody

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        into.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
