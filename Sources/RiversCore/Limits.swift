/// The work budget of one request. A hosted Rivers serves many customers, so every size, count and
/// number a request controls is bounded before any work is done on it; what is over budget gets a
/// problem that names the limit. The README lists these.
public enum Limits {
    /// JSON nesting: real documents nest about 12 deep.
    public static let maxJSONDepth = 64
    /// Characters in a name (screens, families, layouts, navigations).
    public static let maxNameLength = 200
    /// Characters in any other string, unless a narrower rule applies.
    public static let maxStringLength = 10_000
    /// Any length in points (insets, spacing, widths, heights).
    public static let maxLength: Double = 10_000
    /// A cell height in points (tall cells, such as a whole-screen hero, go past the width limit).
    public static let maxCellHeight: Double = 100_000
    /// Aspect ratios (width ÷ height) from 1:100 to 100:1.
    public static let aspectRatioRange: ClosedRange<Double> = 0.01...100
    /// Columns a cell style may split a line into.
    public static let maxColumns = 100
    /// Cell styles in one family.
    public static let maxCellStylesPerFamily = 200
    /// Components on one screen or layout, group children included.
    public static let maxComponentsPerScreen = 200
    /// Cell styles one component names.
    public static let maxCellStylesPerComponent = 20
    /// A component's `item_limit`.
    public static let maxItemLimit = 10_000
    /// Items (cells) one preview lays out, over all its components.
    public static let maxPreviewItems = 10_000
    /// Content nodes one preview draws, over all its cells (cells × the nodes of their styles'
    /// content): the answer's size follows from it.
    public static let maxPreviewContentNodes = 200_000
    /// Problems listed in one answer; `error_count` gives how many were found in all.
    public static let maxProblems = 100
    /// Any other whole number the API takes, and the magnitude of any free-form number.
    public static let maxInteger = 1_000_000_000

    // Per app: every collection an app keeps is capped, so that no app (and no token holder of
    // one) can make the server's work or memory for it grow without bound. Reading, drafting
    // and publishing an app parse its screens and families: their size is capped in bytes too.

    /// A screen as stored (its JSON text).
    public static let maxScreenBytes = 256 * 1024
    /// Screens and families of one app together, as stored: what a draft, a publish or the
    /// publish check reads and parses.
    public static let maxAppBytes = 2 * 1024 * 1024
    public static let maxScreensPerApp = 500
    public static let maxFamiliesPerApp = 100
    public static let maxLayoutsPerApp = 200
    /// A layout as stored (a screen's template: a screen's cap), and an app's layouts together:
    /// what the list of layouts answers with.
    public static let maxLayoutBytes = maxScreenBytes
    public static let maxLayoutsBytesPerApp = 2 * 1024 * 1024
    public static let maxPluginsPerApp = 200
    /// Registered manifest versions of one plugin.
    public static let maxVersionsPerPlugin = 200
    /// A plugin manifest as stored (real ones are under 20 KB), and every version of every plugin
    /// of an app together: the app's plugin registry parses them all.
    public static let maxManifestBytes = 128 * 1024
    public static let maxManifestBytesPerApp = 4 * 1024 * 1024
    public static let maxTokensPerApp = 500
    public static let maxPendingInvitationsPerApp = 200
    public static let maxMembersPerApp = 1_000
    /// Preview links of one app (expired ones count until swept, a day after expiry).
    public static let maxPreviewLinksPerApp = 100
    /// How long a preview link lives at most, and by default (seconds).
    public static let maxPreviewLinkLifetime: Double = 30 * 24 * 3600
    public static let defaultPreviewLinkLifetime: Double = 7 * 24 * 3600
    /// Published versions of one app (they are never deleted).
    public static let maxVersionsPerApp = 10_000
    /// Sessions of one account: signing in past it ends the one used longest ago.
    public static let maxSessionsPerAccount = 50
    /// Channels of one app (production included), release rules, schedules not yet fired.
    public static let maxChannelsPerApp = 20
    /// Former slugs that still redirect to one app (each for 90 days after the change): past it,
    /// a change to a new slug is refused.
    public static let maxFormerSlugsPerApp = 20
    public static let maxReleaseRulesPerApp = 100
    public static let maxPendingSchedulesPerApp = 100
    /// Schedules that fired or were cancelled kept per app (the latest by due time): making one
    /// drops the older (each stays in the audit log), so the list stays bounded however many an
    /// admin makes and cancels.
    public static let maxScheduleHistoryPerApp = 1_000
    /// How far ahead a promotion can be scheduled (seconds): a year.
    public static let maxScheduleLead: Double = 366 * 24 * 3600
    /// Webhooks of one app, and deliveries one webhook may have waiting (pings past it are refused).
    public static let maxWebhooksPerApp = 10
    public static let maxPendingDeliveriesPerWebhook = 1_000
    /// Days a finished delivery and its attempts stay in the log.
    public static let webhookLogDays = 30
}

extension Sequence where Element: StringProtocol {
    /// For messages: the first `limit` entries joined with `separator`, then how many more there
    /// are, so that no message repeats a collection of any size.
    public func listed(limit: Int = 10, separator: String = ", ") -> String {
        var shown: [String] = []
        var more = 0
        for element in self {
            if shown.count < limit { shown.append(String(element)) } else { more += 1 }
        }
        return shown.joined(separator: separator) + (more > 0 ? "\(separator)and \(more) more" : "")
    }
}
