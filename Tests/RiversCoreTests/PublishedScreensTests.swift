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
        let read = try await published.read(first, options: options).get()
        let whole = RiversDocument.bytes(screens: read, screenPlugins: [:])
        #expect(await published.document(keys: first.map(\.key), screenPlugins: [:]) == whole)
        #expect(Set(published.keys) == Set(first.map(\.key)))

        // The second screen saved again (a new row version); the others are not read at all.
        var changed = screens
        changed[1].name = "Episode"
        var second = rows(changed, known: Set(published.keys))
        second[1] = PublishedScreens.Row(key: "\(changed[1].id):2", text: changed[1].json.serialized())
        #expect(second.filter { $0.text == nil }.count == 2)
        let again = try await published.read(second, options: options).get()
        #expect(again.map(\.name) == read.map(\.name).enumerated().map { $0.offset == 1 ? "Episode" : $0.element })
        #expect(await published.document(keys: second.map(\.key), screenPlugins: [:]) == RiversDocument.bytes(screens: again, screenPlugins: [:]))
        #expect(!published.keys.contains("\(screens[1].id):1"), "a row version no longer current is dropped")

        // A row removed: gone from the entries and the document.
        let fewer = Array(second.prefix(2))
        let two = try await published.read(fewer, options: options).get()
        #expect(two.count == 2 && published.keys.count == 2)

        // A row said to be kept that is not (another process's cache, say) is a failure, not a gap.
        let missing = [PublishedScreens.Row(key: "\(screens[2].id):9", text: nil)]
        let result = await published.read(missing, options: options)
        #expect(throws: ValidationFailure.self) { try result.get() }
    }
}
