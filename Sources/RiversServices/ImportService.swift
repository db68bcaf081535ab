import Foundation
import RiversCore
import RiversStore

/// What an import made.
public struct ImportResult: Sendable {
    /// The screens created, in the document's order (their API form).
    public var screens: [Record]
    public var familiesCreated: [String]
    public var familiesExtended: [String]
    public var warnings: [FieldError]
}

/// Importing an existing rivers.json into an app: its screens (same ids, components in the same
/// order), their navigations and hooks, and the families they name. One transaction over a
/// `ContentStorage`: all or nothing.
public struct ImportService: Sendable {
    let storage: any ContentStorage

    public init(storage: any ContentStorage) { self.storage = storage }

    /// `replacing`: the document becomes the whole draft (a version restored into the editor):
    /// the app's screens are removed first, in the same transaction.
    public func importDocument(appId: String, json: JSONValue, replacing: Bool = false) async throws -> ImportResult {
        try await storage.withContent(appId: appId) { tx in
            var number = tx.nextScreenNumber
            // Children first is not needed: a screen's parent has no foreign key.
            if replacing { try await tx.deleteAllScreens() }
            let registry = try await tx.registry()
            let imported: ImportedApp
            do {
                imported = try RiversImport.read(json, options: registry.readOptions)
            } catch let failure as ValidationFailure {
                throw StoreError.invalid(failure.errors)
            }
            // The app's screen cap, before any screen is checked or written: a 1 MiB document
            // holds thousands of screens, and each costs checks and an insert (refused at the end,
            // that was seconds of work an editor could repeat at will).
            let existingScreens = try await tx.count(.screens)
            if existingScreens + imported.screens.count > Limits.maxScreensPerApp {
                throw StoreError.conflict(
                    "the document holds \(imported.screens.count) screens and the app has \(existingScreens): an app holds at most \(Limits.maxScreensPerApp)",
                    usedBy: [])
            }
            // Families: new ones are created; existing ones gain the cell styles the screens name.
            var created: [String] = [], extended: [String] = []
            var families: [String: Family] = [:]
            for family in imported.families {
                if let existing = try await tx.familyToCheck(id: family.id) {
                    var merged = existing
                    let known = Set(existing.cellStyles.map(\.id))
                    let missing = family.cellStyles.filter { !known.contains($0.id) }
                    if existing.cellStyles.count + missing.count > Limits.maxCellStylesPerFamily {
                        // Where the first screen naming the family is in the document.
                        let first = imported.screens.firstIndex { $0.family == family.id } ?? 0
                        throw StoreError.invalid([FieldError(
                            imported.single ? "" : "/\(first)",
                            "family \(family.id) holds \(existing.cellStyles.count) cell styles, and the screens name \(missing.count) more: a family holds at most \(Limits.maxCellStylesPerFamily)")])
                    }
                    if !missing.isEmpty {
                        merged.cellStyles += missing
                        _ = try await tx.update(merged)
                        extended.append(family.id)
                    }
                    families[family.id] = merged
                } else {
                    _ = try await tx.insert(family)
                    created.append(family.id)
                    families[family.id] = family
                }
            }
            // Screens: every problem of every screen at once, pointers into the document.
            var parents = try await tx.screenParents()
            var errors: [FieldError] = []
            // Pointers into the document: `/<index>/…`, or from the root for a single screen object.
            func at(_ i: Int) -> String { imported.single ? "" : "/\(i)" }
            for (i, screen) in imported.screens.enumerated() where parents[screen.id] != nil {
                errors.append(FieldError(at(i) + "/id", "this app has a screen \(screen.id) already"))
            }
            for screen in imported.screens { parents[screen.id] = .some(screen.parent) }
            var screens: [Screen] = []
            // Content opens screens by screen_type: a document's own is kept unless the app uses
            // it already; a missing one is generated.
            var takenTypes = try await tx.screenTypes()
            var rewritten: [FieldError] = []
            for (i, original) in imported.screens.enumerated() {
                // Plugin values in the form their plugins read (docs/spec/plugin-values.md), each
                // rewrite a warning.
                let (normalized, notes) = registry.normalizingValues(original)
                var screen = registry.preparingNew(normalized)
                rewritten += notes.map { FieldError(at(i) + $0.pointer, $0.message) }
                if screen.screenType.isEmpty || takenTypes.contains(screen.screenType) {
                    screen.screenType = ScreenTypeName.make(name: screen.name, number: number)
                    number += 1
                }
                takenTypes.insert(screen.screenType)
                // Generated values end in the app's counter: move it past a kept `name_N`, so a
                // screen created later never gets the same value.
                if let n = ScreenTypeName.number(of: screen.screenType), n >= number { number = n + 1 }
                var problems = References.checkCellStyles(screen.uiComponents, family: families[screen.family], familyId: screen.family)
                problems += References.checkScreenLinks(screen, parents: parents)
                problems += registry.check(screen)
                // Pointers where the value is in the document (a document keeps `parent` in `data`).
                let item = imported.single ? json : (json.arrayValue?[i] ?? .null)
                errors += problems.map { FieldError(at(i) + RiversImport.documentPointer($0.pointer, in: item), $0.message) }
                screens.append(screen)
            }
            if !errors.isEmpty { throw StoreError.invalid(errors) }
            var warnings = imported.warnings + rewritten
            // `home` stays as the document says; an app left without a home screen is told so.
            if try await !tx.hasHome(), !screens.isEmpty, !screens.contains(where: \.home) {
                warnings.append(FieldError("", "no screen of the document is the home screen, and the app has none: make one screen home before publishing"))
            }
            // Navigation plugins the document names and the app lacks: a placeholder registration each.
            for identifier in imported.placeholderPlugins {
                let manifest: PluginManifest
                do {
                    manifest = try PluginManifest.parse(RiversImport.placeholderManifest(identifier: identifier))
                } catch let failure as ValidationFailure {
                    throw StoreError.invalid(failure.errors)
                }
                try await tx.insertPlugin(identifier, currentVersion: manifest.manifestVersion)
                try await tx.insertVersion(manifest)
            }
            // Placeholders count as plugins: an app's caps hold after an import as after a registration.
            if let identifier = imported.placeholderPlugins.last {
                let plugins = try await tx.pluginCount()
                if plugins > Limits.maxPluginsPerApp { try AppCaps.refuseAtCap(plugins, limit: Limits.maxPluginsPerApp, "plugins") }
                try AppCaps.checkManifestBytes(try await tx.storedManifestBytes(identifier, version: RiversImport.placeholderVersion))
            }
            if let home = screens.first(where: \.home) { try await tx.clearHome(except: home.id) }
            // Parents first, so that each screen is written whole in one statement (one entry in
            // the audit log). Screens in a cycle of parents (the checks refuse those) would be
            // linked in a second pass.
            let (ordered, cyclic) = Self.parentsFirst(screens)
            let cyclicIds = Set(cyclic.map(\.id))
            var written: [String: Record] = [:]
            for screen in ordered + cyclic {
                written[screen.id] = try await tx.insertImported(screen, parent: cyclicIds.contains(screen.id) ? nil : screen.parent)
            }
            for screen in cyclic {
                if let parent = screen.parent { try await tx.setParent(of: screen.id, to: parent) }
            }
            let records = screens.compactMap { written[$0.id] }
            try await tx.setNextScreenNumber(number)
            try await tx.audit(
                kind: "app", resourceId: appId, action: replacing ? "replace-draft" : "import",
                summary: "\(records.count) screen(s), \(created.count) family(ies) created, \(extended.count) extended")
            // The app's caps hold after the import as after any other write (else it rolls back).
            try AppCaps.checkScreenBytes(try await tx.largestStoredBytes(screens: imported.screens.map(\.id)))
            let screenCount = try await tx.count(.screens)
            if screenCount > Limits.maxScreensPerApp { try AppCaps.refuseAtCap(screenCount, limit: Limits.maxScreensPerApp, "screens") }
            let familyCount = try await tx.count(.families)
            if familyCount > Limits.maxFamiliesPerApp { try AppCaps.refuseAtCap(familyCount, limit: Limits.maxFamiliesPerApp, "families") }
            try AppCaps.checkAppBytes(try await tx.storedAppBytes())
            return ImportResult(screens: records, familiesCreated: created, familiesExtended: extended, warnings: warnings)
        }
    }

    /// `screens` with every screen after its parent when the parent is among them; those in a
    /// cycle of parents come back apart, in document order.
    static func parentsFirst(_ screens: [Screen]) -> (ordered: [Screen], cyclic: [Screen]) {
        let ids = Set(screens.map(\.id))
        var children: [String: [Screen]] = [:]
        var ordered: [Screen] = []
        for screen in screens {
            if let parent = screen.parent, ids.contains(parent) { children[parent, default: []].append(screen) } else { ordered.append(screen) }
        }
        // Breadth first from the screens whose parent is not in the document: each once.
        var next = 0
        while next < ordered.count {
            ordered += children.removeValue(forKey: ordered[next].id) ?? []
            next += 1
        }
        let placed = Set(ordered.map(\.id))
        return (ordered, screens.filter { !placed.contains($0.id) })
    }
}
