import Testing

@testable import RiversCore

/// Issue 26: the screens a publish keeps by row version, and the document made from them.
@Suite("Published screens, kept by row version")
struct PublishedScreensTests {
    /// Screens that read as stored ones do (the sample's connected screen names data sources,
    /// which only the publish check is asked about).
    let screens: [Screen] = {
        var other = PublishSample.home()
        other.id = PublishSample.otherId
        other.name = "Other"
        other.home = false
        // Free-form members the document carries and the check never reads, at every level.
        other.extra = ["blob": .array(Array(repeating: .number(0), count: 50)), "note": "kept"]
        if !other.uiComponents.isEmpty {
            other.uiComponents[0].extra = ["tint": "#fff"]
            other.uiComponents[0].data?.extra = ["page_size": .number(20)]
            other.uiComponents[0].header.extra = ["subtitle": "more"]
        }
        return [PublishSample.home(), other, PublishSample.settings()]
    }()
    var options: Screen.ReadOptions {
        var options = Screen.ReadOptions()
        options.pluginScreenTypes = PublishSample.pluginTypes
        options.navigationTypes = nil
        options.hookPlugins = nil
        return options
    }

    func rows(_ screens: [Screen], version: Int = 1, known: Set<String> = []) -> [PublishedScreens.Row] {
        screens.map { screen in
            let key = "\(screen.id):\(version)"
            return PublishedScreens.Row(key: key, text: known.contains(key) ? nil : screen.json.serialized())
        }
    }

    @Test func theDocumentIsTheWholeWritersAndOnlyChangedRowsAreRead() async throws {
        var published = PublishedScreens(stamp: "plugins-1")
        let first = rows(screens)
        let read = try await published.read(first, options: options, screenPlugins: [:]).get()
        // The document is what the one writer makes of the screens read whole, extras included.
        let full = await StoredScreens.read(first.map { $0.text! }, options: options).map { try! $0.get() }
        #expect(full[1].extra["note"] == "kept" && full[1].uiComponents[0].data?.extra["page_size"] == .number(20))
        let whole = RiversDocument.bytes(screens: full, screenPlugins: [:])
        #expect(published.document(keys: first.map(\.key)) == whole)
        #expect(String(decoding: whole, as: UTF8.self).contains("\"subtitle\":\"more\""))
        // What is kept and returned has no extras left at any depth (the check reads none).
        #expect(read == full.map { $0.droppingExtras() })
        #expect(read[1].extra.isEmpty && read[1].uiComponents[0].extra.isEmpty && read[1].uiComponents[0].data?.extra.isEmpty == true
            && read[1].uiComponents[0].header.extra.isEmpty)
        #expect(Set(published.keys) == Set(first.map(\.key)))

        // The second screen saved again (a new row version); the others are not read at all.
        var changed = screens
        changed[1].name = "Episode"
        var second = rows(changed, known: Set(published.keys))
        second[1] = PublishedScreens.Row(key: "\(changed[1].id):2", text: changed[1].json.serialized())
        #expect(second.filter { $0.text == nil }.count == 2)
        let again = try await published.read(second, options: options, screenPlugins: [:]).get()
        #expect(again.map(\.name) == read.map(\.name).enumerated().map { $0.offset == 1 ? "Episode" : $0.element })
        var changedWhole = full
        changedWhole[1].name = "Episode"
        #expect(published.document(keys: second.map(\.key)) == RiversDocument.bytes(screens: changedWhole, screenPlugins: [:]))
        #expect(!published.keys.contains("\(screens[1].id):1"), "a row version no longer current is dropped")

        // A row removed: gone from the entries and the document.
        let fewer = Array(second.prefix(2))
        let two = try await published.read(fewer, options: options, screenPlugins: [:]).get()
        #expect(two.count == 2 && published.keys.count == 2)

        // A row said to be kept that is not (another process's cache, say) is a failure, not a gap.
        let missing = [PublishedScreens.Row(key: "\(screens[2].id):9", text: nil)]
        let result = await published.read(missing, options: options, screenPlugins: [:])
        #expect(throws: ValidationFailure.self) { try result.get() }
    }
}
