import Foundation
import NIOCore
import NIOPosix

/// The `Date` field of every answer (RFC 9110 §6.6.1, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`),
/// made once a second per thread: the public document paths write it on every request, so it
/// takes no lock (each event loop thread keeps its own).
enum HTTPDate {
    /// Used by one thread only (`ThreadSpecificVariable`).
    private final class Cached: @unchecked Sendable {
        var second = -1
        var text = ""
        var bytes: [UInt8] = []
    }
    private static let cache = ThreadSpecificVariable<Cached>()

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Now, as the field's value.
    static var now: String { current().text }

    /// `Date: …\r\n`, as bytes for a head written by hand.
    static var fieldBytes: [UInt8] { current().bytes }

    private static func current() -> Cached {
        var seconds = time(nil)
        let cached = cache.currentValue ?? {
            let fresh = Cached()
            cache.currentValue = fresh
            return fresh
        }()
        if cached.second != Int(seconds) {
            var parts = tm()
            gmtime_r(&seconds, &parts)
            cached.second = Int(seconds)
            cached.text = format(parts)
            cached.bytes = Array("Date: \(cached.text)\r\n".utf8)
        }
        return cached
    }

    static func format(_ t: tm) -> String {
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) \(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }
}
