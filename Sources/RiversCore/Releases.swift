/// Releases (issue 27): channel names, app versions, and the rules that say which app versions
/// get which document. Pure: the store keeps them, the public URLs resolve them from memory.

/// A channel's name: `production` (what the app's main URL serves) or one the team adds.
public enum ChannelName {
    public static let production = "production"

    /// Why `name` cannot name a channel, or nil: a lowercase letter, then up to 31 of lowercase
    /// letters, digits, `_` and `-` (it is a path segment of a public URL).
    public static func problem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, (97...122).contains(first) else {
            return "must start with a lowercase letter (like staging or qa)"
        }
        guard bytes.count <= 32 else { return "is at most 32 characters" }
        guard bytes.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 95 || $0 == 45 }) else {
            return "may hold only lowercase letters, digits, _ and -"
        }
        return nil
    }
}

/// The stores Zapp names in its per-app-version URLs.
public enum AppStore: String, CaseIterable, Sendable {
    case appleStore = "apple_store"
    case googlePlay = "google_play"
    case samsungAppStore = "samsung_app_store"

    public static let names = allCases.map(\.rawValue).joined(separator: ", ")
}

/// An app's version as its store knows it: up to four dot-separated whole numbers. Compared part
/// by part, missing parts being 0 (5.2 = 5.2.0).
public struct AppVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let parts: [Int]

    /// A version written exactly: `6`, `5.2`, `10.0.3`, `1.2.3.4` (each part at most 6 digits).
    public init?(_ text: some StringProtocol) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(pieces.count) else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard (1...6).contains(piece.utf8.count), piece.utf8.allSatisfy({ (48...57).contains($0) }), let n = Int(piece) else { return nil }
            parts.append(n)
        }
        self.parts = parts
    }

    private init(parts: [Int]) { self.parts = parts }

    /// The version at the start of what an app sends (`6.0.1-beta`, `7.2 (431)` read as 6.0.1 and
    /// 7.2); nil when it does not start with a number.
    public static func leading(_ text: some StringProtocol) -> AppVersion? {
        var parts: [Int] = [], digits = 0, current = 0
        for byte in text.utf8 {
            if (48...57).contains(byte) {
                guard digits < 6 else { break }
                current = current * 10 + Int(byte - 48)
                digits += 1
            } else if byte == 46, digits > 0, parts.count < 3 {
                parts.append(current)
                (current, digits) = (0, 0)
            } else {
                break
            }
        }
        if digits > 0 { parts.append(current) }
        return parts.isEmpty ? nil : AppVersion(parts: parts)
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }

    public static func < (a: AppVersion, b: AppVersion) -> Bool {
        for i in 0..<max(a.parts.count, b.parts.count) {
            let x = i < a.parts.count ? a.parts[i] : 0, y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    public static func == (a: AppVersion, b: AppVersion) -> Bool { !(a < b) && !(b < a) }

    public func hash(into hasher: inout Hasher) {
        var trimmed = parts
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }
}

/// What a rule sends its app versions to.
public enum ReleaseTarget: Hashable, Sendable {
    case channel(String)
    /// A version pinned by number, whatever the channels do.
    case version(Int)
}

/// One release rule: apps of a store (any store when nil) whose version is at least `from` and
/// below `below` (either end open when nil) get `target`.
public struct ReleaseRule: Hashable, Sendable {
    public var store: AppStore?
    public var from: AppVersion?
    public var below: AppVersion?
    public var target: ReleaseTarget

    public init(store: AppStore? = nil, from: AppVersion? = nil, below: AppVersion? = nil, target: ReleaseTarget) {
        self.store = store
        self.from = from
        self.below = below
        self.target = target
    }

    /// Whether an app of `store` at `version` is one of this rule's. A version that cannot be
    /// read matches only rules without a range.
    public func matches(store: AppStore, version: AppVersion?) -> Bool {
        if let s = self.store, s != store { return false }
        if from == nil && below == nil { return true }
        guard let version else { return false }
        if let from, version < from { return false }
        if let below, !(version < below) { return false }
        return true
    }

    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "store": store.map { .string($0.rawValue) } ?? .null,
            "from_version": from.map { .string($0.description) } ?? .null,
            "below_version": below.map { .string($0.description) } ?? .null,
        ]
        switch target {
        case .channel(let name): o["channel"] = .string(name)
        case .version(let n): o["version"] = .number(Double(n))
        }
        return .object(o)
    }

    /// Says which apps it matches, in words (for warnings and the editor).
    public var who: String {
        let apps = store.map { "\($0.rawValue) apps" } ?? "apps of any store"
        switch (from, below) {
        case (nil, nil): return apps
        case (let f?, nil): return "\(apps) from \(f)"
        case (nil, let b?): return "\(apps) below \(b)"
        case (let f?, let b?): return "\(apps) from \(f) below \(b)"
        }
    }

    /// Reads one rule; nil (with problems at their pointers) when it is not one.
    public static func read(_ value: JSONValue, at pointer: String, problems: Problems) -> ReleaseRule? {
        guard let r = ObjectReader(value, at: pointer, problems: problems) else { return nil }
        r.rejectUnknownKeys(["store", "from_version", "below_version", "channel", "version"])
        var ok = true
        var store: AppStore?
        if let text = r.string("store", maxLength: 100) {
            store = AppStore(rawValue: text)
            if store == nil {
                problems.add(r.at("store"), "must be one of \(AppStore.names) (or null for any store)")
                ok = false
            }
        }
        func version(_ key: String) -> AppVersion? {
            guard let text = r.string(key, maxLength: 100) else { return nil }
            guard let v = AppVersion(text) else {
                problems.add(r.at(key), "must be a version like 5.2 or 6.0.1 (up to four whole numbers)")
                ok = false
                return nil
            }
            return v
        }
        let from = version("from_version"), below = version("below_version")
        if let from, let below, !(from < below) {
            problems.add(r.at("below_version"), "must be above from_version (\(from)): no app version would match")
            ok = false
        }
        let channel = r.string("channel", nonEmpty: true, maxLength: 100)
        let number = r.integer("version", minimum: 1, maximum: Limits.maxVersionsPerApp)
        var target: ReleaseTarget?
        switch (channel, number) {
        case (let name?, nil):
            if let problem = ChannelName.problem(name) { problems.add(r.at("channel"), problem) } else { target = .channel(name) }
        case (nil, let n?): target = .version(n)
        case (_?, _?): problems.add(r.at("version"), "a rule sends apps to a channel or to a version, not both")
        case (nil, nil):
            if !r.has("channel") && !r.has("version") { problems.add(pointer, "needs a channel or a version to send its apps to") }
        }
        guard ok, let target else { return nil }
        return ReleaseRule(store: store, from: from, below: below, target: target)
    }
}

public enum ReleaseRules {
    /// What an app of `store` at `version` gets: the first rule that matches it (and its index),
    /// else production.
    public static func resolve(_ rules: [ReleaseRule], store: AppStore, version: AppVersion?) -> (rule: Int?, target: ReleaseTarget) {
        for (i, rule) in rules.enumerated() where rule.matches(store: store, version: version) { return (i, rule.target) }
        return (nil, .channel(ChannelName.production))
    }

    /// Reads `{"rules": [...]}`'s list; problems at `/rules/i/...`.
    public static func read(_ list: [JSONValue], at pointer: String, problems: Problems) -> [ReleaseRule] {
        if list.count > Limits.maxReleaseRulesPerApp {
            problems.add(pointer, "holds at most \(Limits.maxReleaseRulesPerApp) rules (got \(list.count))")
            return []
        }
        return list.enumerated().compactMap { i, value in ReleaseRule.read(value, at: "\(pointer)/\(i)", problems: problems) }
    }

    /// Rules that overlap an earlier one (first match wins, so the earlier takes the versions both
    /// name) and rules no app version can reach: warnings at the later rule.
    public static func warnings(_ rules: [ReleaseRule], at pointer: String = "/rules") -> [FieldError] {
        var found: [FieldError] = []
        for (j, later) in rules.enumerated() {
            for (i, earlier) in rules.prefix(j).enumerated() {
                guard earlier.store == nil || later.store == nil || earlier.store == later.store else { continue }
                let covers = (earlier.store == nil || earlier.store == later.store)
                    && lowerNoHigher(earlier.from, than: later.from) && upperNoLower(earlier.below, than: later.below)
                if covers {
                    found.append(FieldError("\(pointer)/\(j)", "never applies: rule \(i + 1) (\(earlier.who)) comes first and takes every app it names"))
                    break
                }
                if overlap(earlier, later) {
                    found.append(FieldError("\(pointer)/\(j)", "overlaps rule \(i + 1) (\(earlier.who)): the apps both name get rule \(i + 1)'s target"))
                    break
                }
            }
        }
        return found
    }

    /// Whether a lower bound `a` admits everything `b` does (nil is open).
    static func lowerNoHigher(_ a: AppVersion?, than b: AppVersion?) -> Bool {
        guard let a else { return true }
        guard let b else { return false }
        return !(b < a)
    }

    static func upperNoLower(_ a: AppVersion?, than b: AppVersion?) -> Bool {
        guard let a else { return true }
        guard let b else { return false }
        return !(a < b)
    }

    static func overlap(_ a: ReleaseRule, _ b: ReleaseRule) -> Bool {
        // [from, below) ranges meet when each starts below the other's end.
        func startsBelow(_ from: AppVersion?, end below: AppVersion?) -> Bool {
            guard let below else { return true }
            guard let from else { return true }
            return from < below
        }
        return startsBelow(a.from, end: b.below) && startsBelow(b.from, end: a.below)
    }
}
