import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import RiversStore
import Testing

@testable import RiversServer

/// Issue 13: the request heads `PublicDocumentByteHandler` answers from the bytes received, before
/// HTTP decoding. Only one plain form is read there; every other head is left to NIO's decoder.
@Suite("Public documents: the request heads answered before decoding")
struct PublicDocumentRequestTests {
    func read(_ head: String) -> PublicDocumentRequest? {
        read(Array(head.utf8))
    }

    func read(_ bytes: [UInt8]) -> PublicDocumentRequest? {
        bytes.withUnsafeBytes { PublicDocumentRequest(head: $0) }
    }

    /// The request and its negotiation fields' values as text.
    func readWithValues(_ head: String) -> (request: PublicDocumentRequest, acceptEncoding: String?, ifNoneMatch: String?)? {
        Array(head.utf8).withUnsafeBytes { head in
            PublicDocumentRequest(head: head).map { ($0, $0.acceptEncoding?.string(in: head), $0.ifNoneMatch?.string(in: head)) }
        }
    }

    @Test func thePlainFormIsRead() throws {
        let get = try #require(readWithValues("GET /rivers/my-app/rivers.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, br\r\n\r\n"))
        #expect(!get.request.isHead && get.request.slug == "my-app" && get.request.number == nil && !get.request.isHTTP10 && get.request.keepAlive)
        #expect(get.acceptEncoding == "gzip, br" && get.ifNoneMatch == nil)
        let head = try #require(readWithValues("HEAD /rivers/a/v12/rivers.json?x=1 HTTP/1.0\r\nconnection: Keep-Alive\r\nIF-NONE-MATCH: \t\"e\" \t\r\n\r\n"))
        #expect(head.request.isHead && head.request.slug == "a" && head.request.number == 12 && head.request.isHTTP10 && head.request.keepAlive)
        #expect(head.acceptEncoding == nil && head.ifNoneMatch == "\"e\"", "names in any case; blanks around a value are not part of it")
        // Several fields of one name are one list; an empty value is kept as empty.
        let lists = try #require(readWithValues("GET /rivers/a/rivers.json HTTP/1.1\r\nAccept-Encoding: gzip\r\nX: 1\r\naccept-encoding: br\r\nIf-None-Match:\r\n\r\n"))
        #expect(lists.acceptEncoding == "gzip, br" && lists.ifNoneMatch == "")
        // Field values may carry obs-text (a user agent in Latin-1, say).
        #expect(read(Array("GET /rivers/a/rivers.json HTTP/1.1\r\nUser-Agent: caf".utf8) + [0xE9] + Array("\r\n\r\n".utf8)) != nil)
    }

    @Test("the token bytes of field names are RFC 9110's tchar, every one of the 256 byte values")
    func tokenBytes() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(PublicDocumentRequest.isTokenByte(byte) == tchar.contains(byte), "byte \(byte)")
        }
        // `has` finds a text only where it is whole.
        let bytes = Array("GET /rivers/a/rivers.json".utf8)
        bytes.withUnsafeBytes { raw in
            #expect(PublicDocumentRequest.has(raw, at: 0, "GET ") && PublicDocumentRequest.has(raw, at: 13, "/rivers.json"))
            #expect(!PublicDocumentRequest.has(raw, at: 14, "/rivers.json") && !PublicDocumentRequest.has(raw, at: 1, "GET "))
            #expect(!PublicDocumentRequest.has(raw, at: 24, "ns") && PublicDocumentRequest.has(raw, at: 25, ""))
        }
    }

    @Test("a value is read eight bytes at a time: a word holds a control character or DEL exactly when one of its bytes does")
    func wordsWithControlCharacters() {
        for filler: UInt8 in [UInt8(ascii: "a"), 0x20, 0x7E, 0x80, 0xFF] {
            for position in 0..<8 {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = byte
                    let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    #expect(HeadFieldLine.wordHasControl(word) == (byte < 0x20 || byte == 0x7F), "byte \(byte) at \(position) among \(filler)")
                }
            }
        }
    }

    @Test func aLongTargetIsReadWholeAndRefusedForAnyByteThatCannotBeInIt() throws {
        let slug = "a-rather-long-slug-of-an-app-0123456789"
        let target = Array("/rivers/\(slug)/v12/rivers.json?x=1".utf8)
        func head(_ target: [UInt8]) -> [UInt8] { Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: x\r\n\r\n".utf8) }
        let intact = try #require(head(target).withUnsafeBytes { PublicDocumentRequest(head: $0) })
        #expect(intact.slug == slug && intact.number == 12)
        for position in target.indices {
            for bad: UInt8 in [0, 0x09, 0x0D, 0x20, 0x7F, 0x80, 0xC3, 0xFF] {
                var damaged = target
                damaged[position] = bad
                #expect(head(damaged).withUnsafeBytes { PublicDocumentRequest(head: $0) } == nil, "byte \(bad) at \(position)")
            }
        }
    }

    @Test func aLongValueIsReadWholeAndRefusedForAnyControlCharacterInIt() throws {
        let value = Array("MyApp/4.2 (iPhone; iOS 17.4; Scale/3.00) CFNetwork/1494.0.7 Darwin/23.4.0".utf8)
        func head(_ value: [UInt8]) -> [UInt8] {
            Array("GET /rivers/a/rivers.json HTTP/1.1\r\nUser-Agent: ".utf8) + value + Array("\r\nIf-None-Match: \"x\"\r\n\r\n".utf8)
        }
        for position in value.indices {
            for bad: UInt8 in [0, 1, 0x0A, 0x0B, 0x0D, 0x1F, 0x7F] {
                var damaged = value
                damaged[position] = bad
                #expect(read(head(damaged)) == nil, "byte \(bad) at \(position)")
            }
            for allowed: UInt8 in [0x09, 0x20, 0x80, 0xFF] {
                var changed = value
                changed[position] = allowed
                #expect(read(head(changed)) != nil, "byte \(allowed) at \(position)")
            }
        }
        // Blanks after a long value are not part of it.
        let etag = "\"" + String(repeating: "5e", count: 32) + "-gzip\""
        let read = try #require(readWithValues("GET /rivers/a/rivers.json HTTP/1.1\r\nIf-None-Match:  \(etag) \t \r\n\r\n"))
        #expect(read.ifNoneMatch == etag)
    }

    @Test("a version's segment is v and a number as written once: no leading zero or sign, at most 9 digits")
    func versionSegmentsHaveOneSpelling() {
        for (text, number) in [("v1", 1), ("v12", 12), ("v999999999", 999_999_999)] {
            #expect(PublicDocumentPath.versionNumber(text) == number)
            #expect(PublicDocumentPath.parse("/rivers/a/\(text)/rivers.json")?.number == number)
        }
        for text in ["v01", "v0", "v+1", "v-1", "v", "v1x", "1", "v1234567890", "V1", "v１"] {
            #expect(PublicDocumentPath.versionNumber(text) == nil, "\(text)")
            #expect(PublicDocumentPath.parse("/rivers/a/\(text)/rivers.json") == nil, "\(text)")
        }
    }

    @Test("Accept-Encoding: gzip's own member decides, else *'s; any weight of zero refuses (RFC 9110)")
    func gzipIsAcceptedAsTheFieldSays() {
        let accepted = ["gzip", "GZIP", "x-gzip", "deflate, gzip", "gzip;q=0.5", "gzip; q=1", "gzip;q=0.001", "*", "br, *;q=0.1", "gzip, *;q=0", "*;q=0, gzip"]
        let refused = [
            "", "br", "identity", "deflate, br", "gzip;q=0", "gzip;q=0.0", "gzip;q=0.000", "gzip;Q=0", "gzip ; q = 0", "*, gzip;q=0",
            "gzip;q=0, *", "*;q=0", "gzipx", "br;q=1, identity",
        ]
        for header in accepted { #expect(PublicDocumentController.acceptsGzip(header), "\(header)") }
        for header in refused { #expect(!PublicDocumentController.acceptsGzip(header), "\(header)") }
        #expect(!PublicDocumentController.acceptsGzip(nil as String?))
    }

    @Test("the answer decided from a head's bytes is the one the routes decide from its fields, for every kind of value")
    func answersFromBytesAreTheRoutesAnswers() throws {
        let document = ServedDocument(PublishedVersion(
            appId: "0b5c6f5e-0000-4000-8000-000000000001", number: 1, sha256: String(repeating: "ab", count: 32),
            document: Array(#"{"screens":[]}"#.utf8), gzip: [0x1f, 0x8b, 8, 0, 0, 0, 0, 0], publishedBy: "", note: "", rollbackOf: nil, createdAt: Date()))
        let tags = [
            nil, document.etag, document.gzipETag, "W/\(document.gzipETag)", "*", "\"other\"", "\"other\", \(document.etag)",
            "\(document.etag.dropLast())\"", "", "W/\"other\"",
        ]
        let encodings = [
            nil, "gzip", "gzip, deflate, br", "gzip, deflate", "br", "GZIP", "gzip;q=0", "gzip;Q=0.000", "*, gzip;q=0", "deflate, gzip", "*", "", "identity",
        ]
        var notModified = 0, gzipped = 0
        for tag in tags {
            for encoding in encodings {
                for repeated in [false, true] {
                    for isHead in [false, true] {
                        // Repeated: each field sent twice, which is one list of both.
                        var fields = ""
                        for _ in 0..<(repeated ? 2 : 1) {
                            if let tag { fields += "If-None-Match: \(tag)\r\n" }
                            if let encoding { fields += "Accept-Encoding: \(encoding)\r\n" }
                        }
                        let text = "\(isHead ? "HEAD" : "GET") /rivers/a/v1/rivers.json HTTP/1.1\r\n\(fields)\r\n"
                        try Array(text.utf8).withUnsafeBytes { head in
                            let request = try #require(PublicDocumentRequest(head: head), "\(text.debugDescription)")
                            let fromBytes = DocumentAnswer(document, request: request, head: head)
                            let fromFields = DocumentAnswer(
                                document, isHead: isHead, acceptEncoding: request.acceptEncoding?.string(in: head),
                                ifNoneMatch: request.ifNoneMatch?.string(in: head), current: false)
                            #expect(fromBytes.notModified == fromFields.notModified && fromBytes.headBlock == fromFields.headBlock, "\(text.debugDescription)")
                            #expect(fromBytes.sendsBody == fromFields.sendsBody && fromBytes.sendsBody == (!isHead && !fromBytes.notModified))
                            #expect(fromBytes.body(of: document)?.readableBytes == fromFields.body(of: document)?.readableBytes)
                            if fromBytes.notModified { notModified += 1 }
                            if fromBytes.column == 1 { gzipped += 1 }
                        }
                    }
                }
            }
        }
        // Both outcomes were reached (the comparison is not of two answers that never change).
        #expect(notModified > 0 && notModified < tags.count * encodings.count * 4)
        #expect(gzipped > 0 && gzipped < tags.count * encodings.count * 4)
    }

    @Test func keepAliveFollowsTheVersionAndConnection() throws {
        func keepAlive(_ version: String, _ fields: String = "") throws -> Bool {
            try #require(read("GET /rivers/a/rivers.json \(version)\r\n\(fields)\r\n")).keepAlive
        }
        #expect(try keepAlive("HTTP/1.1"))
        #expect(try !keepAlive("HTTP/1.1", "Connection: close\r\n"))
        #expect(try !keepAlive("HTTP/1.0"))
        #expect(try keepAlive("HTTP/1.0", "Connection: keep-alive\r\n"))
        // Both at once are left to the decoder (which lets the version decide).
        for version in ["HTTP/1.0", "HTTP/1.1"] {
            #expect(read("GET /rivers/a/rivers.json \(version)\r\nConnection: keep-alive, close\r\n\r\n") == nil)
            #expect(read("GET /rivers/a/rivers.json \(version)\r\nConnection: close\r\nConnection: keep-alive\r\n\r\n") == nil)
        }
    }

    @Test func everyOtherFormIsLeftToTheDecoder() {
        let document = "/rivers/a/rivers.json"
        for head in [
            // Other methods, paths, versions and request-line shapes.
            "POST \(document) HTTP/1.1\r\n\r\n", "get \(document) HTTP/1.1\r\n\r\n", "GET  \(document) HTTP/1.1\r\n\r\n",
            "GET /api/v1/apps HTTP/1.1\r\n\r\n", "GET /rivers/my%2Dapp/rivers.json HTTP/1.1\r\n\r\n",
            "GET \(document) HTTP/2.0\r\n\r\n", "GET \(document) HTTP/1.1 \r\n\r\n", "GET \(document)\r\n\r\n",
            "GET http://x\(document) HTTP/1.1\r\n\r\n", "GET \(document) HTTP/1.1\n\r\n",
            // Fields that give the request a body or ask for more than a document.
            "GET \(document) HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "GET \(document) HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n",
            "GET \(document) HTTP/1.1\r\nExpect: 100-continue\r\n\r\n", "GET \(document) HTTP/1.1\r\nUpgrade: websocket\r\n\r\n",
            "GET \(document) HTTP/1.1\r\nConnection: Upgrade\r\n\r\n", "GET \(document) HTTP/1.1\r\nConnection: keep-alive, TE\r\n\r\n",
            "GET \(document) HTTP/1.1\r\nConnection: close\t\r\n\r\n",
            // Malformed fields: bare LF, a space before the colon, no name, no colon, folded lines.
            "GET \(document) HTTP/1.1\r\nHost: x\n\r\n", "GET \(document) HTTP/1.1\r\nHost : x\r\n\r\n",
            "GET \(document) HTTP/1.1\r\n: x\r\n\r\n", "GET \(document) HTTP/1.1\r\nHost\r\n\r\n",
            "GET \(document) HTTP/1.1\r\nX: a\r\n b\r\n\r\n", "GET \(document) HTTP/1.1\r\nX: a\rb\r\n\r\n",
            // Control characters in a value.
            "GET \(document) HTTP/1.1\r\nX: a\u{0}b\r\n\r\n", "GET \(document) HTTP/1.1\r\nX: a\u{1}b\r\n\r\n",
            "GET \(document) HTTP/1.1\r\nX: a\u{7F}\r\n\r\n",
            // Not one head through its blank line.
            "GET \(document) HTTP/1.1\r\nHost: x\r\n", "GET \(document) HTTP/1.1\r\n\r\nGET", "",
        ] {
            #expect(read(head) == nil, "\(head.debugDescription)")
        }
        // A target with bytes outside visible ASCII.
        #expect(read(Array("GET /rivers/caf".utf8) + [0xE9] + Array("/rivers.json HTTP/1.1\r\n\r\n".utf8)) == nil)
    }

    @Test func theEndOfAHeadIsFoundAcrossReads() {
        // Against a plain search, for heads of CR, LF and other bytes, fed in pieces.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &generator)).map { _ in ([13, 10, 65] as [UInt8]).randomElement(using: &generator)! }
            let expected = (0..<max(0, bytes.count - 3)).first { bytes[$0..<($0 + 4)].elementsEqual([13, 10, 13, 10]) }.map { $0 + 4 }
            var buffer = ByteBuffer()
            var searched = 0
            var found: Int?
            for byte in bytes {
                buffer.writeInteger(byte)
                if let length = RequestHeadBytes.headLength(buffer, searchingFrom: searched) {
                    found = length
                    break
                }
                searched = max(0, buffer.readableBytes - 3)
            }
            #expect(found == expected, "\(bytes)")
            #expect(RequestHeadBytes.headLength(ByteBuffer(bytes: bytes), searchingFrom: 0) == expected, "\(bytes)")
        }
    }

    /// Differential: heads damaged at random (bytes that matter to HTTP's grammar inserted,
    /// replaced or removed). Whenever one is read here, NIO's decoder, which reads it otherwise,
    /// reads it too, without error and without a body, as the same method, document, version,
    /// keep-alive and negotiation fields.
    @Test func whatIsReadHereTheDecoderReadsTheSame() throws {
        let bases = [
            "GET /rivers/my-app/rivers.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, br\r\nIf-None-Match: \"a\", W/\"b\"\r\n\r\n",
            "HEAD /rivers/a/v3/rivers.json?q=1 HTTP/1.0\r\nConnection: keep-alive\r\naccept-encoding: gzip\r\nUser-Agent: x y\r\n\r\n",
            "GET /rivers/b/rivers.json HTTP/1.1\r\nConnection: close\r\nX: 1\r\nAccept-Encoding:\tgzip \r\n\r\n",
            "GET /rivers/c/v12/rivers.json HTTP/1.0\r\nConnection: Keep-Alive ,close\r\nIf-None-Match: *\r\nIf-None-Match: W/\"x\"\r\n\r\n",
        ].map { Array($0.utf8) }
        let alphabet: [UInt8] = [13, 10, 32, 9, 58, 0, 44, 34, 47, 63, 37, 0x7F, 0xE9, 65, 97, 49]
        var readHere = 0
        for round in 0..<6_000 {
            let bytes = RequestHeadBytes.damaged(bases[round % bases.count], with: alphabet)
            guard let length = RequestHeadBytes.headLength(ByteBuffer(bytes: bytes), searchingFrom: 0) else { continue }
            let head = Array(bytes[..<length])
            guard let ours = read(head) else { continue }
            readHere += 1
            let decoder = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
            let shown = String(decoding: head, as: UTF8.self).debugDescription
            do {
                try decoder.writeInbound(ByteBuffer(bytes: head))
            } catch {
                Issue.record("read here, refused by the decoder (\(error)): \(shown)")
                continue
            }
            guard case .head(let theirs) = try decoder.readInbound(as: HTTPServerRequestPart.self),
                case .end = try decoder.readInbound(as: HTTPServerRequestPart.self)
            else {
                Issue.record("the decoder did not read one bodiless request: \(shown)")
                continue
            }
            let path = PublicDocumentPath.parse(theirs.uri)
            #expect(theirs.method == (ours.isHead ? .HEAD : .GET), "\(shown)")
            #expect(path?.slug == ours.slug && path?.number == ours.number, "\(shown)")
            #expect(theirs.version == (ours.isHTTP10 ? .http1_0 : .http1_1), "\(shown)")
            #expect(theirs.isKeepAlive == ours.keepAlive, "\(shown)")
            // Blanks after a value are not part of it (RFC 9110 §5.5); NIO keeps them.
            func list(_ name: String) -> String? {
                let values = theirs.headers[name].map { String($0.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) }
                return values.isEmpty ? nil : values.joined(separator: ", ")
            }
            head.withUnsafeBytes { head in
                #expect(list("accept-encoding") == ours.acceptEncoding?.string(in: head), "\(shown)")
                #expect(list("if-none-match") == ours.ifNoneMatch?.string(in: head), "\(shown)")
            }
        }
        #expect(readHere > 500, "too few damaged heads were still readable to compare")
    }

    // MARK: The handler, on an embedded channel (no socket)

    /// The handler alone in a channel, serving an app with one published version, in memory (no
    /// database: the document is made here). `make` also returns the connection's guard, which
    /// tells the handler when a response to a request it handed on has ended.
    func withChannel(_ body: (_ make: () -> (EmbeddedChannel, ConnectionGuard), _ slug: String, _ document: ServedDocument) throws -> Void) rethrows {
        let slug = "my-app"
        let document = ServedDocument(PublishedVersion(
            appId: "0b5c6f5e-0000-4000-8000-000000000001", number: 1, sha256: String(repeating: "ab", count: 32),
            document: Array(#"{"screens":[]}"#.utf8), gzip: [0x1f, 0x8b, 8, 0, 0, 0, 0, 0], publishedBy: "", note: "", rollbackOf: nil, createdAt: Date()))
        try body({
            let connectionGuard = ConnectionGuard(limits: ConnectionLimits(), counter: ConnectionCounter())
            let handler = PublicDocumentByteHandler(connectionGuard: connectionGuard) { name, number, _ in
                name == slug && (number == nil || number == 1) ? document : nil
            }
            return (EmbeddedChannel(handler: handler), connectionGuard)
        }, slug, document)
    }

    /// Everything written to the socket so far.
    func written(_ channel: EmbeddedChannel) throws -> String {
        var out = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { out += String(buffer: buffer) }
        return out
    }

    @Test func aSlugNoAppHasIsA404WrittenStraightToTheSocket() throws {
        try withChannel { _, slug, document in
            let handler = PublicDocumentByteHandler(
                connectionGuard: ConnectionGuard(limits: ConnectionLimits(), counter: ConnectionCounter()),
                lookup: { name, _, _ in name == slug ? document : nil }, isUnknown: { $0 == "gone" })
            let channel = EmbeddedChannel(handler: handler)
            try channel.writeInbound(ByteBuffer(string: "GET /rivers/gone/v2/rivers.json HTTP/1.1\r\nHost: x\r\n\r\nHEAD /rivers/gone/rivers.json HTTP/1.1\r\n\r\n"))
            let answers = try written(channel)
            let body = String(decoding: Problem.notFound("gone has no version 2").json.serialized(), as: UTF8.self)
            #expect(answers.hasPrefix("HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\nContent-Length: \(body.utf8.count)\r\n"), "\(answers)")
            let parts = answers.components(separatedBy: "\r\n\r\n")
            // The GET's body, then the HEAD's head: the current URL's problem announced, no body sent.
            let headBody = Problem.notFound("nothing is published for gone").json.serialized()
            #expect(parts.count == 3 && parts[1].hasPrefix(body + "HTTP/1.1 404 Not Found\r\n"), "\(parts)")
            #expect(parts[1].contains("\r\nContent-Length: \(headBody.count)\r\n") && parts[2].isEmpty, "\(parts)")
            // Nothing was left to the decoder; a slug the index knows (or cannot tell) still is.
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
            try channel.writeInbound(ByteBuffer(string: "GET /rivers/other/rivers.json HTTP/1.1\r\n\r\n"))
            #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
        }
    }

    /// The 404 is cut from a template made once; it must be the routes' problem, byte for byte,
    /// whatever the slug holds (a visible ASCII slug may hold a quote or a backslash).
    @Test func anUnknownSlugsAnswerIsTheRoutesProblem() {
        let long = String(repeating: "a", count: pathParameterMaxBytes + 1)
        for (slug, number, detail) in [
            ("gone", nil, "nothing is published for gone"), ("gone", 7, "gone has no version 7"),
            (#"q"uote\back"#, nil, #"nothing is published for q"uote\back"#), (long, nil, "nothing is found at this address"),
        ] as [(String, Int?, String)] {
            let answer = UnknownSlugAnswer(slug: slug, number: number)
            let body = Problem.notFound(detail).json.serialized()
            #expect(Array(buffer: answer.body) == body, "\(slug)")
            let head = "HTTP/1.1 404 Not Found\r\nContent-Type: application/problem+json\r\nContent-Length: \(body.count)\r\n"
                + UnknownSlugAnswer.fixedFieldLines
            #expect(String(decoding: answer.head, as: UTF8.self) == head, "\(slug)")
        }
    }

    @Test func answersAreWrittenStraightToTheSocket() throws {
        try withChannel { make, slug, document in
            let (channel, _) = make()
            let body = String(buffer: document.body)
            // One head over two reads, then two heads in one read.
            try channel.writeInbound(ByteBuffer(string: "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\nHo"))
            #expect(try written(channel).isEmpty, "answered before the head was whole")
            try channel.writeInbound(ByteBuffer(string: "st: x\r\n\r\n"))
            let first = try written(channel)
            #expect(first.hasPrefix("HTTP/1.1 200 OK\r\nETag: \(document.etag)\r\n"), "\(first.prefix(300))")
            #expect(first.contains("\r\nContent-Length: \(document.body.readableBytes)\r\n") && first.contains("\r\nX-Request-Id: "))
            #expect(first.hasSuffix("\r\n\r\n" + body) && !first.contains("Connection:"))
            try channel.writeInbound(ByteBuffer(string:
                "HEAD /rivers/\(slug)/rivers.json HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n"
                + "GET /rivers/\(slug)/v1/rivers.json HTTP/1.1\r\nIf-None-Match: \(document.etag)\r\n\r\n"))
            let two = try written(channel)
            let heads = two.components(separatedBy: "\r\n\r\n")
            #expect(heads.count == 3 && heads[2].isEmpty, "two heads and no body: \(two)")
            #expect(heads[0].hasPrefix("HTTP/1.1 200 OK\r\nETag: \(document.gzipETag)\r\n") && heads[0].contains("Content-Encoding: gzip"))
            #expect(heads[1].hasPrefix("HTTP/1.1 304 Not Modified\r\n") && heads[1].contains("immutable") && !heads[1].contains("Content-Length"))
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil, "nothing was passed on")
            // HTTP/1.0 without keep-alive: answered, then closed; what follows is not read.
            try channel.writeInbound(ByteBuffer(string: "GET /rivers/\(slug)/rivers.json HTTP/1.0\r\n\r\nGET /api/v1/apps HTTP/1.1\r\n\r\n"))
            let last = try written(channel)
            #expect(last.hasSuffix("\r\nConnection: close\r\n\r\n" + body), "\(last.prefix(600))")
            #expect(!channel.isActive, "the connection was not closed")
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        }
    }

    @Test func aRequestHandedOnGoesAloneAndTheNextWaitsForItsAnswer() throws {
        try withChannel { make, slug, _ in
            let (channel, connectionGuard) = make()
            try channel.writeInbound(ByteBuffer(string: "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"))
            #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK"))
            // An unknown app is not this handler's to answer (the 404 is the framework's): it goes
            // on alone. The document asked for after it waits for that answer, then is answered here.
            let unknown = "GET /rivers/no-\(slug)/rivers.json HTTP/1.1\r\n\r\n"
            try channel.writeInbound(ByteBuffer(string: unknown + "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\nGET /rivers/\(slug)/rivers"))
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == unknown)
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
            #expect(try written(channel).isEmpty, "answered ahead of the response to the request handed on")
            connectionGuard.onResponseEnd?()
            #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK"), "not answered once the response ended")
            try channel.writeInbound(ByteBuffer(string: ".json HTTP/1.1\r\n\r\n"))
            #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK"), "the head that ended in a later read")
            // An API call with a body over three reads: head and body go on, then nothing until its answer.
            let post = "POST /api/v1/apps/a/screens HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123"
            try channel.writeInbound(ByteBuffer(string: post))
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == post)
            try channel.writeInbound(ByteBuffer(string: "45"))
            try channel.writeInbound(ByteBuffer(string: "6789GET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"))
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "45")
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "6789")
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil && written(channel).isEmpty)
            connectionGuard.onResponseEnd?()
            #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK"))
            // A chunked body in its plainest form: head and body go on, the next request waits.
            let chunkedHead = "POST /api/v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            try channel.writeInbound(ByteBuffer(string: chunkedHead + "3\r\nabc\r\n0\r\n\r\nGET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"))
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == chunkedHead)
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "3\r\nabc\r\n0\r\n\r\n")
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil && written(channel).isEmpty)
            connectionGuard.onResponseEnd?()
            #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK"))
            // A chunk extension: the body's extent is the decoder's to read, and so is the rest of
            // the connection.
            let chunked = chunkedHead + "0;x=y\r\n\r\nGET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"
            try channel.writeInbound(ByteBuffer(string: chunked))
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == chunkedHead)
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == String(chunked.dropFirst(chunkedHead.count)))
            connectionGuard.onResponseEnd?()
            let later = "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"
            try channel.writeInbound(ByteBuffer(string: later))
            #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == later)
            #expect(try written(channel).isEmpty)
            // A head that has not ended within 8 KB goes on as it is; so does a whole one over 8 KB.
            let long = "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\nX: " + String(repeating: "x", count: RequestHeadBytes.maxHeadBytes)
            for head in [long, long + "\r\n\r\n"] {
                let (other, _) = make()
                try other.writeInbound(ByteBuffer(string: head))
                #expect(try other.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == head)
                #expect(try written(other).isEmpty)
            }
        }
    }

    @Test func aClientThatDoesNotReadItsAnswersIsNotReadEither() throws {
        try withChannel { make, slug, _ in
            let (channel, _) = make()
            let reads = ReadCounter()
            try channel.pipeline.syncOperations.addHandler(reads, position: .first)
            let request = "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"
            // The socket is full: nothing is answered, and reads asked for are held.
            channel.isWritable = false
            try channel.writeInbound(ByteBuffer(string: request + request))
            channel.read()
            #expect(try written(channel).isEmpty, "answered while the socket was full")
            #expect(reads.count == 0)
            // It drains: both are answered, then the held read is done.
            channel.isWritable = true
            channel.pipeline.fireChannelWritabilityChanged()
            #expect(try written(channel).components(separatedBy: "HTTP/1.1 200 OK\r\n").count == 3)
            #expect(reads.count == 1)
            channel.read()
            #expect(reads.count == 2, "reads go through again")
        }
    }

    /// Answering alone, the handler asks for the next read itself: it reaches the socket without
    /// going through the handlers behind it. While a request handed on awaits its answer, reads
    /// are theirs to ask for again.
    @Test func answeringAloneTheHandlerAsksForTheNextReadItself() throws {
        try withChannel { make, slug, _ in
            let (channel, connectionGuard) = make()
            let atSocket = ReadCounter(), behind = ReadCounter()
            try channel.pipeline.syncOperations.addHandler(atSocket, position: .first)
            try channel.pipeline.syncOperations.addHandler(behind, position: .last)
            try channel.writeInbound(ByteBuffer(string: "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"))
            #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(atSocket.count == 1 && behind.count == 0, "the read asked for by the handler itself")
            // An API call goes on; the read after it is left to the handlers behind.
            try channel.writeInbound(ByteBuffer(string: "GET /api/v1/apps HTTP/1.1\r\n\r\n"))
            #expect(try channel.readInbound(as: ByteBuffer.self) != nil)
            #expect(atSocket.count == 1)
            channel.read()
            #expect(atSocket.count == 2 && behind.count == 1, "a read from behind goes through")
            // Its answer ends: the next cached answer asks for its read itself again.
            connectionGuard.onResponseEnd?()
            try channel.writeInbound(ByteBuffer(string: "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\n\r\n"))
            #expect(try written(channel).hasPrefix("HTTP/1.1 200 OK\r\n"), "answered once the forwarded response ended")
            #expect(atSocket.count == 3 && behind.count == 1)
        }
    }

    /// Once the socket has taken an answer's head, the next head is written into the same storage.
    @Test func theHeadOfTheNextAnswerReusesTheStorageOfTheLast() throws {
        try withChannel { make, slug, document in
            let (channel, _) = make()
            let request = ByteBuffer(string: "GET /rivers/\(slug)/rivers.json HTTP/1.1\r\nIf-None-Match: \(document.etag)\r\n\r\n")
            try channel.writeInbound(request)
            let head = try #require(try channel.readOutbound(as: ByteBuffer.self))
            let (first, capacity) = (head.storageAddress, head.capacity)
            _ = consume head
            // Storage of that size taken meanwhile: a head that was let go and allocated again
            // would not find its old address free.
            let busy = (0..<4).map { _ in ByteBufferAllocator().buffer(capacity: capacity) }
            try channel.writeInbound(request)
            let second = try #require(try channel.readOutbound(as: ByteBuffer.self))
            #expect(second.storageAddress == first, "a new buffer for a head whose storage nothing held")
            withExtendedLifetime(busy) {}
            #expect(String(buffer: second).hasPrefix("HTTP/1.1 304 Not Modified\r\n") && String(buffer: second).hasSuffix("\r\n\r\n"))
            // Two answers in one read: the second head cannot share the first's storage while it waits.
            try channel.writeInbound(ByteBuffer(string: String(buffer: request) + String(buffer: request)))
            let a = try #require(try channel.readOutbound(as: ByteBuffer.self)), b = try #require(try channel.readOutbound(as: ByteBuffer.self))
            #expect(a.storageAddress != b.storageAddress)
            #expect(String(buffer: a).hasPrefix("HTTP/1.1 304") && String(buffer: b).hasPrefix("HTTP/1.1 304"))
            #expect(String(buffer: a) != String(buffer: b), "each head has its own request id")
        }
    }

    @Test func requestIdsAre32HexadecimalDigitsAndNeverTheSame() {
        var buffer = ByteBuffer()
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 64) { out in
            var writer = HeadWriter(out)
            PublicRequestID.write(into: &writer)
            PublicRequestID.write(into: &writer)
            return writer.count
        }
        let text = String(buffer: buffer)
        #expect(text.count == 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }, "\(text)")
        let (first, second) = (text.prefix(32), text.suffix(32))
        #expect(first.prefix(16) == second.prefix(16), "one prefix for the process")
        let (a, b) = (UInt64(first.suffix(16), radix: 16), UInt64(second.suffix(16), radix: 16))
        // Then a counter (other tests running at once may take ids in between).
        if let a, let b { #expect((1...10_000).contains(b &- a), "\(a) then \(b)") } else { Issue.record("not hexadecimal: \(text)") }
        #expect(PublicRequestID.digit(0x0123_4567_89ab_cdef, 0) == UInt8(ascii: "0") && PublicRequestID.digit(0x0123_4567_89ab_cdef, 15) == UInt8(ascii: "f"))
    }
}

extension ByteBuffer {
    /// Where its storage starts: the same for two buffers that share storage.
    var storageAddress: UInt { withVeryUnsafeBytes { UInt(bitPattern: $0.baseAddress) } }
}

/// Counts the reads that reach the socket.
final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    var count = 0

    func read(context: ChannelHandlerContext) {
        count += 1
        context.read()
    }
}
