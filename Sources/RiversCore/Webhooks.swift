import Foundation

/// Webhooks (issue 27): the events, the retry schedule, and which endpoints may be called.
/// Pure: the store keeps webhooks and deliveries, the server sends them.
public enum WebhookEvent {
    public static let all = ["version.published", "channel.promoted", "channel.rolled_back", "schedule.fired", "app.archived"]
    /// Sent by the "send a test event" action only.
    public static let ping = "ping"
}

/// When a failed delivery is tried again: exponential backoff from `base`, at most an hour apart,
/// for 24 hours after the event; then it has failed for good (a redeliver starts it again).
public struct WebhookRetry: Sendable {
    public var base: Double
    public var cap: Double = 3600
    public var giveUpAfter: Double = 24 * 3600

    public init(base: Double = 5) { self.base = base }

    /// The wait after failed attempt `attempt` (1 for the first).
    public func delay(afterAttempt attempt: Int) -> Double {
        min(cap, base * pow(2, Double(min(max(attempt - 1, 0), 30))))
    }

    /// When to try again after failed attempt `attempt` of an event made at `created`; nil when
    /// that would be past 24 hours.
    public func nextAttempt(afterAttempt attempt: Int, created: Date, now: Date) -> Date? {
        let next = now.addingTimeInterval(delay(afterAttempt: attempt))
        return next.timeIntervalSince(created) > giveUpAfter ? nil : next
    }
}

/// Which URLs a webhook may call. An endpoint is https; plain http only to loopback, for
/// development, when the operator allows private networks. An address in a private, loopback,
/// link-local, shared or reserved range is refused unless the operator allows it
/// (`WEBHOOK_PRIVATE_NETWORKS=allow`), so that no app team can make the server call into the
/// network it runs in.
public enum WebhookTarget {
    /// Why `text` cannot be a webhook's URL, or nil.
    public static func problem(_ text: String, allowPrivate: Bool) -> String? {
        guard text.utf8.count <= 2000 else { return "is at most 2000 characters" }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "must be a whole URL, like https://hooks.example.com/rivers"
        }
        if url.user != nil || url.password != nil { return "must not hold a user name or password (send a secret in the path or check the signature)" }
        if url.fragment != nil { return "must not have a #fragment" }
        var name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        // `localhost.` is `localhost`: a name's final dot is the root's, and it resolves the same.
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        let loopback = isLoopbackName(name) || (IPAddress(name).map(\.isLoopback) ?? false)
        switch scheme {
        case "https": break
        case "http":
            guard loopback else { return "must be https (plain http is only for a receiver on this machine, in development)" }
        default: return "must be https"
        }
        if !allowPrivate {
            if isLoopbackName(name) { return "must not point at this machine" }
            if let ip = IPAddress(name) {
                if !ip.isPublic { return "must not point at a private or reserved address (\(name))" }
            } else {
                let lower = name.lowercased()
                if lower.hasSuffix(".local") || lower.hasSuffix(".internal") || lower.hasSuffix(".localhost") || !lower.contains(".") {
                    return "must name a public host (\(name) is a local name)"
                }
            }
        }
        return nil
    }

    static func isLoopbackName(_ host: String) -> Bool {
        let h = host.lowercased()
        return h == "localhost" || h.hasSuffix(".localhost")
    }
}

/// An IPv4 or IPv6 address read from text, and whether it is one anyone may reach on the internet.
public struct IPAddress: Sendable, Equatable {
    /// 4 bytes (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    /// IPv4 in every form a resolver reads as an address, not only dotted quads (`127.1`,
    /// `0177.0.0.1`, `0x7f.0.0.1`, `2130706433` are 127.0.0.1): a host so written is an address.
    public init?(_ text: String) {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 || (!text.isEmpty && text.utf8.count <= 40 && inet_aton(text, &v4) != 0) {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The address as text (`93.184.216.34`, `2001:db8::1`).
    public var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "" }
        return String(cString: buffer)
    }

    public var isLoopback: Bool {
        if bytes.count == 4 { return bytes[0] == 127 }
        if let v4 = embeddedIPv4 { return v4.isLoopback }
        return bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// An IPv4 address inside an IPv6 one (mapped `::ffff:a.b.c.d`, translated
    /// `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, compatible `::a.b.c.d`, 6to4
    /// `2002:aabb:ccdd::`).
    var embeddedIPv4: IPAddress? {
        guard bytes.count == 16 else { return nil }
        let head = Array(bytes[0..<12])
        let zeros = { (n: Int) in [UInt8](repeating: 0, count: n) }
        if head == zeros(10) + [0xff, 0xff] || head == zeros(8) + [0xff, 0xff, 0, 0] || head == [0, 0x64, 0xff, 0x9b] + zeros(8)
            || (head == zeros(12) && bytes[12...].contains(where: { $0 != 0 }) && bytes[12..<15] != [0, 0, 0])
        {
            return IPAddress(bytes: Array(bytes[12...]))
        }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return IPAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    /// Not private, loopback, link-local, shared (CGNAT), multicast, documentation or reserved.
    public var isPublic: Bool {
        if bytes.count == 4 {
            let (a, b) = (bytes[0], bytes[1])
            switch a {
            case 0, 10, 127: return false
            case 100 where (64...127).contains(b): return false
            case 169 where b == 254: return false
            case 172 where (16...31).contains(b): return false
            case 192 where b == 168: return false
            case 192 where b == 0 && (bytes[2] == 0 || bytes[2] == 2): return false
            case 192 where b == 88 && bytes[2] == 99: return false  // 6to4 relays (deprecated)
            case 198 where b == 18 || b == 19: return false
            case 198 where b == 51 && bytes[2] == 100: return false
            case 203 where b == 0 && bytes[2] == 113: return false
            case 224...255: return false
            default: return true
            }
        }
        if let v4 = embeddedIPv4 { return v4.isPublic }
        if bytes.allSatisfy({ $0 == 0 }) || isLoopback { return false }
        let first = bytes[0]
        // IANA's special-purpose IPv6 registry: none of these is a host on the internet.
        // ::/8 is reserved (the forms above that hold IPv4 are read as it), 64:ff9b:1::/48 local NAT64 among it.
        if first == 0 { return false }
        if first == 0x01 && bytes[1...7].allSatisfy({ $0 == 0 }) { return false }  // 100::/64 discard
        if first == 0x20 && bytes[1] == 0x01 && bytes[2] < 0x02 { return false }  // 2001::/23 protocol assignments (Teredo, ORCHID, ...)
        if first == 0x3f && bytes[1] == 0xff && bytes[2] & 0xf0 == 0 { return false }  // 3fff::/20 documentation
        if first == 0x5f && bytes[1] == 0x00 { return false }  // 5f00::/16 segment routing
        if first & 0xfe == 0xfc { return false }  // fc00::/7 unique local
        if first == 0xfe && bytes[1] & 0xc0 == 0x80 { return false }  // fe80::/10 link-local
        if first == 0xfe && bytes[1] & 0xc0 == 0xc0 { return false }  // fec0::/10 site-local (deprecated)
        if first == 0xff { return false }  // multicast
        if first == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0d && bytes[3] == 0xb8 { return false }  // documentation
        return true
    }
}
