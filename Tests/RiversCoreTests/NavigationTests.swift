import Foundation
import Testing

@testable import RiversCore

/// The structures of `devportal_rootmenu_navigation_model.json.txt` and
/// `devportal_navbar_navigation_model_all_keys.json.txt`, re-typed as valid JSON.
@Suite("Navigations, nav items and hooks")
struct NavigationTests {
    static let home = "c320c5d9-d241-410b-81fb-c320c5d90661"
    static let shows = "c320c5d9-d241-410b-81fb-c320c5d90662"

    /// The root menu model as documented, with only its missing commas added.
    static let rootMenuAsDocumented = """
        {
            "id" : "uniqueID",
            "category": "menu",
            "rules": {},
            "nav_items" : [
                {
                    "id" : "uniqueID",
                    "title" : "Home Screen",
                    "type" : "label",
                    "data" : {
                        "target" : "c320c5d90661-d241-410b-81fb-c320c5d90661",
                        "connected": true,
                        "source": "URL",
                        "type": "APPLICASTER_ATOM_FEED"
                    },
                    "assets" : {},
                    "nav_items" : [],
                    "rules" : {},
                    "styles" : {}
                },
                {
                    "id" : "uniqueID",
                    "title" : "Home Screen",
                    "type" : "nested_menu",
                    "data" : {
                        "target" : "c320c5d90661-d241-410b-81fb-c320c5d90661",
                        "connected": true,
                        "source": "URL",
                        "type": "APPLICASTER_ATOM_FEED"
                    },
                    "assets" : {},
                    "nav_items" : [
                        {
                            "id" : "uniqueID",
                            "title" : "All Shows",
                            "type" : "label",
                            "data" : {
                                "target" : "c320c5d90661-d241-410b-81fb-c320c5d90662",
                                "connected": false,
                                "source": null,
                                "type": null
                            },
                            "assets" : {},
                            "nav_items" : [],
                            "rules" : {},
                            "styles" : {}
                        }
                    ],
                    "rules" : {},
                    "styles" : {}
                }
            ],
            "styles": {},
            "assets" : {}
        }
        """

    /// The same, made valid for us: a navigation_type, distinct ids (`item-1` for the navigation,
    /// `item-2`… for its items, in document order), UUID targets.
    static var rootMenu: String {
        rootMenuAsDocumented
            .replacingOccurrences(of: "\"category\": \"menu\",", with: "\"category\": \"menu\", \"navigation_type\": \"two_level_rn_menu\",")
            .replacingOccurrences(of: "c320c5d90661-d241-410b-81fb-c320c5d90661", with: home)
            .replacingOccurrences(of: "c320c5d90661-d241-410b-81fb-c320c5d90662", with: shows)
            .numberingIds()
    }

    /// The nav bar model with every key, one value picked where the documentation lists alternatives.
    static let navBar = """
        {
            "id": "bar-1",
            "name": "Top bar",
            "category": "nav_bar",
            "navigation_type": "navigation_bar",
            "rules": {},
            "nav_items": [
                {
                    "id": "item-1",
                    "title": "Screen with difined data source",
                    "type": "button",
                    "data": {"target": "\(home)", "connected": null, "source": null, "type": null},
                    "assets": {}, "nav_items": [], "rules": {}, "styles": {}
                },
                {
                    "id": "item-2",
                    "title": "Screen with difined data source",
                    "type": "button",
                    "data": {"target": "\(home)", "connected": true, "source": "URL", "type": "APPLICASTER_ATOM_FEED"},
                    "assets": {}, "nav_items": [], "rules": {}, "styles": {}
                },
                {
                    "id": "item-3",
                    "title": "URL",
                    "type": "button",
                    "data": {"target": null, "connected": null, "source": "https://www.example.com", "type": "WEB_URL"},
                    "assets": {}, "nav_items": [], "rules": {}, "styles": {}
                },
                {
                    "id": "item-4",
                    "title": "Other Types",
                    "type": "live_drawer",
                    "data": {"target": null, "connected": null, "source": null, "type": null},
                    "assets": {}, "nav_items": [], "rules": {}, "styles": {}
                }
            ],
            "styles": {
                "background_color": "#FF000000",
                "ios_font_family": "Helvetica",
                "presentation_style": "logo",
                "style": "center",
                "title_color": "#FFFFFFFF",
                "title_color_tablet": "#FFFFFFFF",
                "title_size": "17",
                "title_size_tablet": "20",
                "state": "on_top"
            },
            "assets": {
                "app_logo": "https://cdn.example.com/logo.png",
                "back_button": "https://cdn.example.com/back.png",
                "close_button": "https://cdn.example.com/close.png",
                "menu_button": "https://cdn.example.com/menu.png",
                "background": "https://cdn.example.com/bg.png",
                "background_tablet": "https://cdn.example.com/bg_tablet.png"
            }
        }
        """

    /// `navigation` with every nav item's `position` set from its place in its list, as published.
    static func numbered(_ navigation: JSONValue) -> JSONValue {
        guard var o = navigation.objectValue, let items = o["nav_items"]?.arrayValue else { return navigation }
        o["nav_items"] = .array(items.enumerated().map { i, item in
            guard var io = numbered(item).objectValue else { return item }
            io["position"] = .number(Double(i + 1))
            return .object(io)
        })
        return .object(o)
    }

    func navigation(_ text: String) throws -> (Navigation?, [FieldError]) {
        Navigation.parse(try PluginFixtures.parse(text), pointer: "/navigations/0")
    }

    @Test func documentedRootMenuIsRejectedForItsPlaceholders() throws {
        let (value, errors) = try navigation(Self.rootMenuAsDocumented)
        #expect(value == nil)
        let notUUID = { (s: String) in "must be a UUID (got \"\(s)\")" }
        #expect(errors == [
            FieldError("/navigations/0/navigation_type", "is required"),
            FieldError("/navigations/0/nav_items/0/data/target", notUUID("c320c5d90661-d241-410b-81fb-c320c5d90661")),
            FieldError("/navigations/0/nav_items/1/data/target", notUUID("c320c5d90661-d241-410b-81fb-c320c5d90661")),
            FieldError("/navigations/0/nav_items/1/nav_items/0/data/target", notUUID("c320c5d90661-d241-410b-81fb-c320c5d90662")),
        ])
    }

    @Test func duplicateNavItemIds() throws {
        let text = Self.rootMenu.replacingOccurrences(of: "\"item-4\"", with: "\"item-2\"")
        let (value, errors) = try navigation(text)
        #expect(value == nil)
        #expect(errors == [
            FieldError("/navigations/0/nav_items/1/nav_items/0/id", "duplicates the id of the nav item at /navigations/0/nav_items/0")
        ])
    }

    @Test func rootMenuParsesAndRoundTrips() throws {
        let (value, errors) = try navigation(Self.rootMenu)
        #expect(errors == [])
        let menu = try #require(value)
        #expect(menu.id == "item-1")
        #expect(menu.name == nil)
        #expect(menu.category == .menu)
        #expect(menu.navigationType == "two_level_rn_menu")
        #expect(menu.navItems.map(\.id) == ["item-2", "item-3"])
        #expect(menu.navItems[1].type == "nested_menu")
        #expect(menu.navItems[1].navItems.map(\.title) == ["All Shows"])
        #expect(menu.navItems[0].data == NavItemData(source: "URL", type: "APPLICASTER_ATOM_FEED", connected: true, target: Self.home))
        #expect(menu.navItems[1].navItems[0].data == NavItemData(connected: false, target: Self.shows))
        #expect(menu.allTargets == [Self.home, Self.shows])
        #expect(menu.navItems[1].allTargets == [Self.home, Self.shows])

        let json = menu.toJSON()
        #expect(json.objectValue.map { Set($0.keys) } == ["id", "name", "category", "navigation_type", "styles", "rules", "assets", "nav_items"])
        #expect(json["name"] == nil as JSONValue)
        #expect(json["nav_items"]?.arrayValue?[1]["nav_items"]?.arrayValue?[0] == [
            "id": "item-4", "title": "All Shows", "type": "label", "position": 1,
            "data": ["source": nil, "type": nil, "connected": false, "target": .string(Self.shows)],
            "assets": [:], "styles": [:], "rules": [:], "nav_items": [],
        ])
        // Written then read again: the same value, and the same bytes.
        let (again, againErrors) = Navigation.parse(json, pointer: "")
        #expect(againErrors == [])
        #expect(again == menu)
        #expect(again?.toJSON().serializedString() == json.serializedString())
        // Every key of the input survives the round trip (the input had no name key; it comes back
        // as null), and each nav item gains its position.
        let input = try PluginFixtures.parse(Self.rootMenu)
        #expect(json.mergePatched(with: ["name": nil]) == Self.numbered(input))
    }

    @Test func navBarWithAllKeysParsesAndRoundTrips() throws {
        let (value, errors) = try navigation(Self.navBar)
        #expect(errors == [])
        let bar = try #require(value)
        #expect(bar.category == .navBar)
        #expect(bar.name == "Top bar")
        #expect(bar.styles["presentation_style"] == "logo")
        #expect(bar.assets.count == 6)
        #expect(bar.navItems.map(\.type) == ["button", "button", "button", "live_drawer"])
        #expect(bar.navItems[2].data.isWebLink)
        #expect(bar.navItems[2].data == .web("https://www.example.com"))
        #expect(bar.navItems[0].data == .screen(Self.home))
        #expect(bar.allTargets == [Self.home])
        #expect(bar.navItems.flatMap(\.allTargets) == [Self.home, Self.home])

        let json = bar.toJSON()
        #expect(json == Self.numbered(try PluginFixtures.parse(Self.navBar)))
        #expect(Navigation.parse(json, pointer: "").value == bar)
    }

    @Test func navigationErrorsAreAllReported() throws {
        let json: JSONValue = [
            "id": 3, "name": 4, "category": "tabs", "navigation_type": "", "styles": [], "colour": "red",
            "nav_items": [
                ["id": "a", "type": "button", "data": ["type": "WEB_URL", "source": " ", "target": .string(Self.home), "connected": "true"]],
                ["id": "b", "title": "B", "type": "button", "data": ["feed": "x"], "nav_items": ["x": 1]],
                "c",
            ],
        ]
        let (value, errors) = Navigation.parse(json, pointer: "/n")
        #expect(value == nil)
        #expect(errors == [
            FieldError("/n/colour", "is not a known field"),
            FieldError("/n/id", "must be a string, not number"),
            FieldError("/n/name", "must be a string, not number"),
            FieldError("/n/category", "must be nav_bar or menu (got \"tabs\")"),
            FieldError("/n/navigation_type", "must not be empty"),
            FieldError("/n/styles", "must be an object, not array"),
            FieldError("/n/nav_items/0/title", "is required"),
            FieldError("/n/nav_items/0/data/connected", "must be true or false, not string"),
            FieldError("/n/nav_items/0/data/source", "a web link (type WEB_URL) needs a non-empty \"source\""),
            FieldError("/n/nav_items/0/data/target", "a web link (type WEB_URL) cannot also target a screen"),
            FieldError("/n/nav_items/1/data/feed", "is not a known field"),
            FieldError("/n/nav_items/1/nav_items", "must be an array, not object"),
            FieldError("/n/nav_items/2", "must be an object, not string"),
        ])
        #expect(Navigation.parse([], pointer: "/n").errors == [FieldError("/n", "must be an object, not array")])
        #expect(Navigation.parse(["id": "x", "navigation_type": "t"], pointer: "").errors == [FieldError("/category", "is required")])
    }

    @Test func navItemDefaultsAndNesting() throws {
        let (item, errors) = NavItem.parse(
            ["id": "x", "title": "", "type": "nested_menu", "nav_items": [["id": "y", "title": "Y", "type": "label", "data": ["target": .string(Self.shows)]]]],
            pointer: "")
        #expect(errors == [])
        #expect(item?.toJSON() == [
            "id": "x", "title": "", "type": "nested_menu", "position": 1, "data": ["source": nil, "type": nil, "connected": nil, "target": nil],
            "assets": [:], "styles": [:], "rules": [:],
            "nav_items": [[
                "id": "y", "title": "Y", "type": "label", "position": 1, "data": ["source": nil, "type": nil, "connected": nil, "target": .string(Self.shows)],
                "assets": [:], "styles": [:], "rules": [:], "nav_items": [],
            ]],
        ])
        #expect(item?.allTargets == [Self.shows])
        // Screen ids are read in either case and kept in lower case.
        let upper = NavItem.parse(["id": "x", "title": "t", "type": "button", "data": ["target": "C320C5D9-D241-410B-81FB-C320C5D90661"]], pointer: "")
        #expect(upper.value?.data.target == Self.home)
        #expect(upper.value?.toJSON()["data"]?["target"] == .string(Self.home))
        #expect(NavItem.parse(["id": "x", "title": "t", "type": "button", "data": ["target": "c320c5d9-d241-410b-81fb-c320c5d9066g"]], pointer: "/i").errors == [
            FieldError("/i/data/target", "must be a UUID (got \"c320c5d9-d241-410b-81fb-c320c5d9066g\")")
        ])
        #expect(NavItem.parse(["id": "x", "title": "t", "type": "button", "data": ["target": 5]], pointer: "/i").errors == [
            FieldError("/i/data/target", "must be a string, not number")
        ])
        #expect(NavItem.parse(["id": "x", "title": "t", "type": "button", "data": "x"], pointer: "/i").errors == [
            FieldError("/i/data", "must be an object, not string")
        ])
    }

    @Test func hooks() throws {
        let (screenHook, e1) = Hook.parse(["identifier": "ftue", "type": "general", "weight": 2, "screen_id": .string(Self.home)], pointer: "")
        #expect(e1 == [])
        #expect(screenHook == Hook(identifier: "ftue", type: "general", weight: 2, screenId: Self.home))
        #expect(screenHook?.toJSON() == ["identifier": "ftue", "type": "general", "weight": 2, "screen_id": .string(Self.home)])

        let (plain, e2) = Hook.parse(["identifier": "login", "type": "login"], pointer: "")
        #expect(e2 == [])
        #expect(plain?.toJSON() == ["identifier": "login", "type": "login", "weight": 0])
        #expect(Hook.parse(plain!.toJSON(), pointer: "").value == plain)

        #expect(Hook.parse(["type": 3, "weight": "1", "screen_id": "home", "name": "x"], pointer: "/hooks/preload_plugins/0").errors == [
            FieldError("/hooks/preload_plugins/0/name", "is not a known field"),
            FieldError("/hooks/preload_plugins/0/identifier", "is required"),
            FieldError("/hooks/preload_plugins/0/type", "must be a string, not number"),
            FieldError("/hooks/preload_plugins/0/weight", "must be a number, not string"),
            FieldError("/hooks/preload_plugins/0/screen_id", "must be a UUID (got \"home\")"),
        ])
        #expect(Hook.parse("x", pointer: "/h").errors == [FieldError("/h", "must be an object, not string")])
    }

    @Test func screenHooks() throws {
        let json: JSONValue = [
            "preload_plugins": [
                ["identifier": "ftue", "type": "general", "weight": 1, "screen_id": .string(Self.home)],
                ["identifier": "lock", "type": "general", "weight": 2, "screen_id": .string(Self.home)],
            ],
            "postload_plugins": [["identifier": "after", "type": "general", "weight": 1, "screen_id": .string(Self.shows)]],
        ]
        let (hooks, errors) = ScreenHooks.parse(json, pointer: "/hooks")
        #expect(errors == [])
        #expect(hooks?.preloadPlugins.map(\.identifier) == ["ftue", "lock"])
        #expect(hooks?.allTargets == [Self.home, Self.shows])
        #expect(hooks?.toJSON() == json)
        #expect(ScreenHooks.parse([:], pointer: "").value?.toJSON() == ["preload_plugins": [], "postload_plugins": []])
        #expect(ScreenHooks.parse(["preload": [], "postload_plugins": [["type": "x"]]], pointer: "/hooks").errors == [
            FieldError("/hooks/preload", "is not a known field"),
            FieldError("/hooks/postload_plugins/0/identifier", "is required"),
        ])
    }
}

extension String {
    /// Replaces each remaining `"uniqueID"` with `"item-1"`, `"item-2"`, … in order.
    fileprivate func numberingIds() -> String {
        var out = ""
        var rest = Substring(self)
        var n = 0
        while let r = rest.range(of: "\"uniqueID\"") {
            n += 1
            out += rest[..<r.lowerBound] + "\"item-\(n)\""
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    @Test("ids are generated when left out; positions follow the order, whatever was sent")
    func generatedIdsAndPositions() throws {
        let (value, errors) = Navigation.parse([
            "category": "menu", "navigation_type": "side_menu",
            "nav_items": [
                ["title": "A", "type": "button", "position": 7],
                ["title": "B", "type": "nested_menu", "nav_items": [["title": "C", "type": "label"], ["title": "D", "type": "label"]]],
            ],
        ], pointer: "/n")
        #expect(errors == [])
        let menu = try #require(value)
        #expect(UUIDText.normalize(menu.id) != nil)
        #expect(Set(menu.navItems.map(\.id) + menu.navItems[1].navItems.map(\.id)).count == 4, "every generated id differs")
        let json = menu.toJSON()
        #expect(json["nav_items"]?.arrayValue?.map { $0["position"] } == [1, 2])
        #expect(json["nav_items"]?.arrayValue?[1]["nav_items"]?.arrayValue?.map { $0["position"] } == [1, 2])
        // A position that is not a whole number from 1 is refused; an empty id still is.
        let bad = Navigation.parse([
            "category": "menu", "navigation_type": "side_menu",
            "nav_items": [["id": "", "title": "A", "type": "button", "position": 0]],
        ], pointer: "/n")
        #expect(bad.errors.map(\.pointer) == ["/n/nav_items/0/id", "/n/nav_items/0/position"])
        // What was stored before positions were written is numbered when read and written again.
        let old: JSONValue = ["id": "m", "category": "menu", "navigation_type": "side_menu", "nav_items": [
            ["id": "a", "title": "A", "type": "button", "nav_items": [["id": "b", "title": "B", "type": "button"]]],
            ["id": "c", "title": "C", "type": "button"],
        ]]
        let written = navigation(old).toJSON(document: true)
        #expect(written.at("nav_items", 0, "position") == 1)
        #expect(written.at("nav_items", 0, "nav_items", 0, "position") == 1)
        #expect(written.at("nav_items", 1, "position") == 2)
    }

    @Test("the built-in navigation types include what the QA reader looks for")
    func builtInNavigationTypes() {
        for type in ["quick_brick_side_menu", "top_menu_bar_tv", "applicaster_toolbar", "navigation_bar", "two_level_rn_menu"] {
            #expect(PluginRegistry.builtInNavigationTypes.contains(type))
        }
    }
}
