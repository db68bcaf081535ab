import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import RiversServer

/// The public path's connection as pure state (issue 26): bytes and events in, actions out, with
/// no channel, socket or database. The documents are strings here.
@Suite("Public connection: the state machine")
struct PublicConnectionTests {
    typealias Connection = PublicConnection<String>

    static let document = "GET /rivers/app/rivers.json HTTP/1.1\r\n\r\n"
    static let other = "GET /rivers/other/rivers.json HTTP/1.1\r\n\r\n"

    /// Drives one connection and says what it does, as text: `answer <document>`, `forward <bytes>`.
    final class Driver {
        var connection = Connection()

        func feed(_ bytes: String? = nil) -> [String] {
            if let bytes { connection.received(ByteBuffer(string: bytes)) }
            var actions: [String] = []
            while actions.count < 100 {
                switch connection.next(lookup: { request, _ in request.slug == "app" ? "doc:\(request.slug)" : nil }) {
                case .wait: return actions
                case .answer(let request, let document): actions.append("answer \(document)\(request.keepAlive ? "" : " close")")
                case .forward(let bytes): actions.append("forward " + String(buffer: bytes))
                }
            }
            Issue.record("no end of actions")
            return actions
        }

        func responseEnded() { connection.responseEnded() }
        func writabilityChanged(_ writable: Bool) { connection.writabilityChanged(writable) }
        func readRequested() -> Bool { connection.readRequested() }
        func takeWantedRead() -> Bool { connection.takeWantedRead() }
        var mode: Connection.Mode { connection.mode }
        var awaited: Int { connection.awaited }
    }

    @Test func documentsAreAnsweredAndOtherRequestsForwardedWholeAndAlone() {
        let connection = Driver()
        #expect(connection.feed(Self.document + Self.document) == ["answer doc:app", "answer doc:app"])
        // A request that is not a document in memory goes on; everything after it waits.
        #expect(connection.feed(Self.other + Self.document) == ["forward " + Self.other])
        #expect(connection.awaited == 1)
        #expect(connection.feed(Self.document) == [])
        connection.responseEnded()
        #expect(connection.feed() == ["answer doc:app", "answer doc:app"], "both held requests, in order")
        #expect(connection.mode == .reading && connection.awaited == 0)
    }

    /// The handler asks for reads itself only while nothing forwarded awaits its response and the
    /// requests are read here; otherwise the handlers behind it have their say, as NIO's reads go.
    @Test func theConnectionReadsForItselfOnlyWhileNothingBehindItHoldsAnything() {
        let connection = Driver()
        #expect(connection.connection.readsForItself)
        #expect(connection.feed(Self.document) == ["answer doc:app"])
        #expect(connection.connection.readsForItself)
        #expect(connection.feed(Self.other) == ["forward " + Self.other])
        #expect(!connection.connection.readsForItself, "a forwarded request awaits its response")
        connection.responseEnded()
        #expect(connection.connection.readsForItself)
        let head = "PUT /api/v1/apps/a/draft.json HTTP/1.1\r\nHost: x\r\ncontent-length: 4\r\n\r\n"
        #expect(connection.feed(head + "{}") == ["forward " + head + "{}"])
        #expect(!connection.connection.readsForItself, "a body still arriving")
        #expect(connection.feed("  ") == ["forward   "])
        connection.responseEnded()
        #expect(connection.connection.readsForItself)
        #expect(connection.feed("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n").count == 2)
        #expect(!connection.connection.readsForItself, "a chunked body still arriving")
        #expect(connection.feed("0\r\n\r\n") == ["forward 0\r\n\r\n"])
        #expect(!connection.connection.readsForItself, "its response not ended")
        connection.responseEnded()
        #expect(connection.connection.readsForItself)
        #expect(connection.feed("GET / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n").count == 1)
        #expect(connection.mode == .passingOn && !connection.connection.readsForItself, "handed on for good")
    }

    /// A chunked body in its plainest form is followed to its end, however the bytes arrive, and
    /// the connection is read here again after its response (a client sending a bodiless POST
    /// chunked, as NIO's and AsyncHTTPClient's encoders do, kept it on the decoder for good).
    @Test func aChunkedBodyIsFollowedToItsEndAcrossReads() {
        let head = "POST /api/v1/apps/a/publish HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n"
        let bodies = ["0\r\n\r\n", "5\r\nhello\r\n1A\r\n" + String(repeating: "z", count: 26) + "\r\n00\r\n\r\n", "a\r\n0\r\n\r\n0\r\n\r\n\r\n0\r\n\r\n"]
        for body in bodies {
            let whole = Array((head + body + Self.document).utf8)
            for split in [1, 2, 3, 7, head.utf8.count, head.utf8.count + 1, head.utf8.count + 4, whole.count - 1, whole.count] {
                let connection = Driver()
                var forwarded = ""
                var start = 0
                while start < whole.count {
                    let end = min(whole.count, start + split)
                    for action in connection.feed(String(decoding: whole[start..<end], as: UTF8.self)) {
                        #expect(action.hasPrefix("forward "), "\(action)")
                        forwarded += action.dropFirst(8)
                    }
                    start = end
                }
                #expect(forwarded == head + body, "reads of \(split) bytes: \(forwarded.debugDescription)")
                #expect(connection.mode == .reading && connection.awaited == 1)
                connection.responseEnded()
                #expect(connection.feed() == ["answer doc:app"], "the request after it, read here")
            }
        }
        // A chunk extension (or anything past the plainest form): the rest goes to the decoder.
        let connection = Driver()
        #expect(connection.feed(head + "5;name=value\r\nhello\r\n0\r\n\r\n" + Self.document) == [
            "forward " + head, "forward 5;name=value\r\nhello\r\n0\r\n\r\n" + Self.document,
        ])
        #expect(connection.mode == .passingOn)
    }

    @Test("a chunked body ends only where its plainest form ends it; every other form is malformed here")
    func chunkedFraming() {
        func read(_ parts: [String]) -> ChunkedBodyFraming.Outcome {
            var framing = ChunkedBodyFraming()
            var outcome = ChunkedBodyFraming.Outcome.more
            for part in parts {
                var bytes = Array(part.utf8)
                outcome = bytes.withUnsafeMutableBytes { framing.read(UnsafeRawBufferPointer($0)) }
                if outcome != .more { return outcome }
            }
            return outcome
        }
        #expect(read(["0\r\n\r\n"]) == .ended(at: 5))
        #expect(read(["0\r\n\r\nGET"]) == .ended(at: 5))
        #expect(read(["3\r\nab", "c\r\n0\r", "\n\r\nxyz"]) == .ended(at: 3))
        #expect(read(["fFfFfF\r\n"]) == .more)
        #expect(read(["3\r\n\r\n\r\r\n0\r\n\r\n"]) == .ended(at: 13), "data is not looked at")
        for malformed in [
            "\r\n", "x\r\n", " 0\r\n\r\n", "0 \r\n\r\n", "0\n\r\n", "0\r\r\n", "0;ext\r\n\r\n", "0\r\nTrailer: x\r\n\r\n",
            "0\r\n\n", "3\r\nabcd\r\n", "3\r\nabc\n0\r\n\r\n", "3\r\nabc\r\r", "-1\r\n", "0x3\r\n", "10000000\r\n",
            "+3\r\nabc\r\n",
        ] {
            #expect(read([malformed]) == .malformed, "\(malformed.debugDescription)")
        }
        #expect(read(["fffffff\r\n"]) == .more, "seven digits: the largest size read")
    }


    @Test func aBodyIsForwardedByItsLengthAcrossReads() {
        let connection = Driver()
        let head = "PUT /api/v1/apps/a/draft.json HTTP/1.1\r\nHost: x\r\ncontent-length: 0011\r\n\r\n"
        #expect(connection.feed(head + "{\"a\"") == ["forward " + head + "{\"a\""])
        #expect(connection.mode == .forwardingBody(remaining: 7))
        #expect(connection.feed(": 1") == ["forward : 1"])
        #expect(connection.feed(", 2}" + Self.document) == ["forward , 2}"], "the body's end, and not a byte more")
        #expect(connection.mode == .reading)
        connection.responseEnded()
        #expect(connection.feed() == ["answer doc:app"])
        // A response that ends before its request's body is in (an early error): the body still goes on.
        #expect(connection.feed("POST /x HTTP/1.1\r\nContent-Length: 4\r\n\r\nab") == ["forward POST /x HTTP/1.1\r\nContent-Length: 4\r\n\r\nab"])
        connection.responseEnded()
        #expect(connection.feed("cd" + Self.document) == ["forward cd", "answer doc:app"])
    }

    @Test func whatTheBytesDoNotSayBeyondDoubtHandsTheConnectionOn() {
        let unclear = [
            "POST /x HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            "POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
            "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
            "POST /x HTTP/1.1\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
            "POST /x HTTP/1.1\r\nContent-Length: +1\r\n\r\n",
            "POST /x HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n",
            "POST /x HTTP/1.1\r\nContent-Length: 1234567890123456\r\n\r\n",
            "POST /x HTTP/1.1\r\nContent-Length : 1\r\n\r\n",
            "GET /x HTTP/1.1\r\nX: a\nContent-Length: 1\r\n\r\n",
            "GET /x HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",
            "GET /x HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
            "CONNECT a:443 HTTP/1.1\r\n\r\n",
            "GET /x HTTP/2.0\r\n\r\n",
            "\r\nGET /x HTTP/1.1\r\n\r\n",
        ]
        for head in unclear {
            let connection = Driver()
            #expect(connection.feed(head + Self.document) == ["forward " + head + Self.document], "\(head.debugDescription)")
            #expect(connection.mode == .passingOn)
            connection.responseEnded()
            #expect(connection.feed(Self.document) == ["forward " + Self.document], "for the life of the connection")
        }
    }

    @Test func heldBytesAreBounded() {
        let connection = Driver()
        #expect(connection.feed(Self.other).count == 1)
        let ahead = String(repeating: Self.document, count: RequestHeadBytes.maxHeldBytes / Self.document.utf8.count)
        #expect(connection.feed(ahead) == [])
        #expect(connection.feed(Self.document + Self.document) == ["forward " + ahead + Self.document + Self.document])
        #expect(connection.mode == .passingOn)
    }

    @Test func closingDropsWhatFollows() {
        let connection = Driver()
        let close = "GET /rivers/app/rivers.json HTTP/1.0\r\n\r\n"
        #expect(connection.feed(close + Self.document) == ["answer doc:app close"])
        #expect(connection.mode == .closing)
        #expect(connection.feed(Self.other) == [])
    }

    @Test func aClientThatDoesNotReadItsAnswersIsNotReadEither() {
        let connection = Driver()
        connection.writabilityChanged(false)
        #expect(connection.feed(Self.document + Self.document) == [])
        #expect(!connection.readRequested(), "a read while answers are queued")
        #expect(!connection.takeWantedRead())
        connection.writabilityChanged(true)
        #expect(connection.feed() == ["answer doc:app", "answer doc:app"])
        #expect(connection.takeWantedRead() && !connection.takeWantedRead(), "the held read, once")
        #expect(connection.readRequested())
        // Reads go on while a forwarded request awaits its answer: a client that closes is seen.
        #expect(connection.feed(Self.other).count == 1)
        connection.writabilityChanged(false)
        #expect(connection.feed(Self.document) == [])
        #expect(connection.readRequested())
    }

    /// Differential: request heads with a body, damaged at random. Whenever a length is read here,
    /// NIO's decoder reads one request from the head and exactly that many body bytes, and nothing
    /// of what follows (a byte here or there would let a body pass for a request, or the reverse).
    @Test func aLengthReadHereIsTheOneTheDecoderReads() throws {
        let bases = [
            "POST /api/v1/apps/a/screens HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Type: application/json\r\n\r\n",
            "PUT /api/v1/apps/a/draft.json HTTP/1.0\r\ncontent-length:\t5 \r\nConnection: keep-alive\r\n\r\n",
            "GET /api/v1/apps HTTP/1.1\r\nAuthorization: Bearer x\r\nAccept: */*\r\n\r\n",
            "DELETE /api/v1/apps/a/screens/s HTTP/1.1\r\nContent-Length: 0\r\nIf-Match: \"3\"\r\n\r\n",
        ].map { Array($0.utf8) }
        let alphabet: [UInt8] = [13, 10, 32, 9, 58, 0, 44, 43, 45, 48, 53, 57, 0x7F, 0xE9, 65, 97]
        var compared = 0
        for round in 0..<6_000 {
            let bytes = RequestHeadBytes.damaged(bases[round % bases.count], with: alphabet)
            guard let headLength = RequestHeadBytes.headLength(ByteBuffer(bytes: bytes), searchingFrom: 0) else { continue }
            let head = Array(bytes[..<headLength])
            guard case .length(let length) = head.withUnsafeBytes({ RequestHeadBytes.body($0) }), length < 100 else { continue }
            compared += 1
            let shown = String(decoding: head, as: UTF8.self).debugDescription
            // The head, its body, and a request after it that must stay unread.
            let next = Array("GET /next HTTP/1.1\r\n\r\n".utf8)
            let decoder = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
            do {
                try decoder.writeInbound(ByteBuffer(bytes: head + [UInt8](repeating: 120, count: length)))
            } catch {
                continue  // refused: the connection closes, nothing is read out of step
            }
            guard case .head(let first) = try decoder.readInbound(as: HTTPServerRequestPart.self) else {
                Issue.record("no head: \(shown)")
                continue
            }
            var body = 0
            var ended = false
            while let part = try decoder.readInbound(as: HTTPServerRequestPart.self) {
                switch part {
                case .body(let buffer): body += buffer.readableBytes
                case .end: ended = true
                case .head: Issue.record("a second head: \(shown)")
                }
            }
            #expect(ended && body == length, "the decoder read \(body) body bytes (ended: \(ended)), here \(length): \(shown)")
            // What follows is a request of its own to the decoder too (on a connection kept open:
            // after one that closes, nothing more is read).
            guard first.isKeepAlive else { continue }
            do {
                try decoder.writeInbound(ByteBuffer(bytes: next))
                guard case .head(let head) = try decoder.readInbound(as: HTTPServerRequestPart.self) else {
                    Issue.record("the next request was not read as one: \(shown)")
                    continue
                }
                #expect(head.uri == "/next", "\(shown)")
            } catch {
                Issue.record("the next request was refused (\(error)): \(shown)")
            }
        }
        #expect(compared > 500, "too few damaged heads were still readable to compare")
    }

    /// Differential: requests with chunked bodies, damaged at random in their heads and bodies,
    /// each followed by another request. Whenever a body is read here to an end, NIO's decoder,
    /// given the same bytes one at a time, ends that request after the very same byte (or refuses
    /// the bytes, and the connection closes).
    @Test func whereAChunkedBodyEndsHereTheDecoderEndsItToo() throws {
        let heads = [
            "POST /api/v1/apps/a/publish HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
            "PUT /api/v1/apps/a/draft.json HTTP/1.1\r\ntransfer-encoding:\tCHUNKED \r\nContent-Type: application/json\r\n\r\n",
        ]
        let bodies = ["0\r\n\r\n", "5\r\nhello\r\n0\r\n\r\n", "a\r\n0123456789\r\n01\r\n;\r\n0\r\n\r\n", "3\r\n\r\n0\r\n0\r\n\r\n"]
        let alphabet: [UInt8] = [13, 10, 32, 9, 59, 48, 49, 53, 97, 65, 70, 120, 58, 44, 0, 0x7F]
        let next = Array("GET /next HTTP/1.1\r\n\r\n".utf8)
        var compared = 0
        for round in 0..<6_000 {
            let base = Array((heads[round % heads.count] + bodies[(round / heads.count) % bodies.count]).utf8)
            let bytes = RequestHeadBytes.damaged(base, with: alphabet) + next
            guard let headLength = RequestHeadBytes.headLength(ByteBuffer(bytes: bytes), searchingFrom: 0),
                bytes[..<headLength].withUnsafeBytes({ RequestHeadBytes.body($0) }) == .chunked
            else { continue }
            var framing = ChunkedBodyFraming()
            guard case .ended(let bodyLength) = bytes[headLength...].withUnsafeBytes({ framing.read($0) }) else { continue }
            compared += 1
            let shown = String(decoding: bytes, as: UTF8.self).debugDescription
            let decoder = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
            var decoderEnd: Int?
            do {
                for (offset, byte) in bytes.enumerated() where decoderEnd == nil {
                    try decoder.writeInbound(ByteBuffer(bytes: [byte]))
                    while let part = try decoder.readInbound(as: HTTPServerRequestPart.self) {
                        if case .end = part { decoderEnd = offset + 1 }
                    }
                }
            } catch {
                continue  // refused: the connection closes, nothing can be read out of step
            }
            #expect(decoderEnd == headLength + bodyLength, "the decoder ended the request at \(decoderEnd.map(String.init) ?? "no byte"), here at \(headLength + bodyLength): \(shown)")
        }
        #expect(compared > 600, "too few damaged requests were still read here to compare: \(compared)")
    }
}

extension RequestHeadBytes {
    /// `bytes` with one to three of `alphabet` inserted, put in place of others, or removed, at
    /// random places (the differential tests of the two head readers against NIO's decoder).
    static func damaged(_ bytes: [UInt8], with alphabet: [UInt8]) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...3) {
            let at = Int.random(in: 0..<bytes.count)
            switch Int.random(in: 0..<3) {
            case 0: bytes.insert(alphabet.randomElement()!, at: at)
            case 1: bytes[at] = alphabet.randomElement()!
            default: bytes.remove(at: at)
            }
        }
        return bytes
    }
}
