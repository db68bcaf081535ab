import Testing

@testable import RiversCore

@Suite("Document writer")
struct DocumentWriterTests {
    // The writer sorts fixed keys by hand: its bytes must be the canonical serialisation (sorted
    // keys, the same number and string forms) of what they say.
    @Test("the writer's bytes are canonical JSON: read back and written again, the same bytes")
    func sameBytes() throws {
        var screens = PublishSample.app()
        // Every branch: connected with a target, a plugin screen with and without components,
        // groups, components without data, data with `connected`, free-form styles and rules.
        var group = Component(id: "g", componentType: "group", uiComponents: [
            Component(id: "g1", componentType: "list", cellStyles: ["LIST_2"], itemLimit: 3,
                      data: ComponentData(source: "x", type: "T", target: PublishSample.showId, connected: true)),
            Component(id: "g2", componentType: "banner", layout: "B_1", styles: ["tint": "#fff", "zz": [1, "a\"b\n"]]),
        ])
        group.header = SectionDecoration(visible: true, style: "HEADER_1")
        screens[0].uiComponents.append(group)
        // Free-form styles sorting before, between and after the members the writer adds, and a
        // footer with members of its own.
        var interleaved = Component(id: "i", componentType: "list", cellStyles: ["LIST_1"], layout: "L_9", styles: [
            "a": 1, "cell_body_component_type": "list", "d": true, "f": "x", "fz": nil, "g": [1], "i": ["j": 2], "zz": "last",
        ])
        interleaved.footer = SectionDecoration(visible: true, style: nil, extra: ["legacy": "kept", "z": 1])
        screens[0].uiComponents.append(interleaved)
        screens[0].rules = ["refresh": "pull", "refresh_rate": 30]
        screens[0].advertising = ["banner_ad_unit_id": "u/1", "display_interstitial_once": true]
        var connected = screens[1]
        connected.uiComponents.append(Component(id: "c9", componentType: "grid", data: ComponentData(target: PublishSample.homeId)))
        screens[1] = connected
        let plugins = ["settings_contact_us_legacy": ScreenPluginInfo(canHaveComponents: false), "with_components": ScreenPluginInfo(canHaveComponents: true)]
        var pluginWithComponents = screens[2]
        pluginWithComponents.id = PublishSample.otherId
        pluginWithComponents.type = "with_components"
        pluginWithComponents.data = ["source": "s", "connected": true, "parent": "p"]
        pluginWithComponents.uiComponents = [Component(id: "p1", componentType: "list")]
        screens.append(pluginWithComponents)

        let written = RiversDocument.bytes(screens: screens, screenPlugins: plugins)
        let reference = RiversDocument.make(screens: screens, screenPlugins: plugins).serialized()
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: reference, as: UTF8.self))
        #expect(RiversDocument.bytes(screens: [], screenPlugins: [:]) == Array("[]".utf8))

        // What each component's styles say: its free-form styles and the members its own fields
        // write (`componentStyles`, the rule as a dictionary), at every depth.
        let document = try JSONValue.parse(written).arrayValue ?? []
        var compared = 0
        func compare(_ components: [Component], _ published: [JSONValue], screen: Screen) {
            guard components.count == published.count else { return }
            for (component, json) in zip(components, published) {
                #expect(json["styles"] == .object(RiversDocument.componentStyles(component, screen: screen)), "\(component.id)")
                compared += 1
                compare(component.uiComponents, json["ui_components"]?.arrayValue ?? [], screen: screen)
            }
        }
        for (screen, json) in zip(screens, document) {
            compare(screen.uiComponents, json["ui_components"]?.arrayValue ?? [], screen: screen)
        }
        #expect(compared >= 8, "components compared: \(compared)")
    }
}
