/// The form a screen is stored in, written straight from the typed screen (issue 26: a write
/// makes no tree of the screen to serialize). It is the API's representation without `home`,
/// which lives in a column of its own, and without the bookkeeping the store adds (revision and
/// timestamps): the same bytes `Screen.json`, less `home`, serializes to. Keys are written in
/// sorted order by hand; free-form objects are sorted as `JSONValue.write` sorts them.
extension Screen {
    public func storedForm() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024 + uiComponents.count * 256)
        out.append(UInt8(ascii: "{"))
        // advertising, connected, data, [extra], family, general, home_offline, hooks, id, name,
        // navigations, parent, plugin_version, rules, screen_type, styles, supports_offline, type,
        // ui_components.
        typealias F = StoredForm
        RiversDocument.key("advertising", first: true, &out)
        JSONValue.object(advertising).write(to: &out)
        F.member("connected", flag: connected, &out)
        F.member("data", object: data, &out)
        if !extra.isEmpty { F.member("extra", object: extra, &out) }
        F.member("family", string: family, &out)
        F.member("general", object: general, &out)
        F.member("home_offline", flag: homeOffline, &out)
        RiversDocument.key("hooks", &out)
        hooks.toJSON().write(to: &out)
        F.member("id", string: id, &out)
        F.member("name", string: name, &out)
        RiversDocument.key("navigations", &out)
        out.append(UInt8(ascii: "["))
        for (i, navigation) in navigations.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            navigation.toJSON().write(to: &out)
        }
        out.append(UInt8(ascii: "]"))
        F.member("parent", optional: parent, &out)
        F.member("plugin_version", optional: pluginVersion, &out)
        F.member("rules", object: rules, &out)
        F.member("screen_type", string: screenType, &out)
        F.member("styles", object: styles, &out)
        F.member("supports_offline", flag: supportsOffline, &out)
        F.member("type", string: type, &out)
        RiversDocument.key("ui_components", &out)
        StoredForm.components(uiComponents, &out)
        out.append(UInt8(ascii: "}"))
        JSONWork.count?.serialized(out.count)
        return out
    }
}

/// The pieces of the stored form.
enum StoredForm {
    static func bool(_ value: Bool, _ out: inout [UInt8]) {
        out.append(contentsOf: value ? [116, 114, 117, 101] : [102, 97, 108, 115, 101])  // true, false
    }

    static func optionalString(_ value: String?, _ out: inout [UInt8]) {
        if let value { JSONValue.writeString(value, to: &out) } else { out.append(contentsOf: [110, 117, 108, 108]) }  // null
    }

    /// `,"name":value` for each kind of value.
    static func member(_ name: StaticString, flag: Bool, _ out: inout [UInt8]) {
        RiversDocument.key(name, &out)
        bool(flag, &out)
    }

    static func member(_ name: StaticString, string: String, _ out: inout [UInt8]) {
        RiversDocument.key(name, &out)
        JSONValue.writeString(string, to: &out)
    }

    static func member(_ name: StaticString, optional: String?, _ out: inout [UInt8]) {
        RiversDocument.key(name, &out)
        optionalString(optional, &out)
    }

    static func member(_ name: StaticString, object: [String: JSONValue], _ out: inout [UInt8]) {
        RiversDocument.key(name, &out)
        JSONValue.object(object).write(to: &out)
    }

    /// An object's first member, `name` and its free-form object, when that object is not empty
    /// (the API form leaves such members out); whether it was written.
    static func leadingObject(_ name: StaticString, _ members: [String: JSONValue], _ out: inout [UInt8]) -> Bool {
        guard !members.isEmpty else { return false }
        RiversDocument.key(name, first: true, &out)
        JSONValue.object(members).write(to: &out)
        return true
    }

    static func components(_ list: [Component], _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (i, component) in list.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            self.component(component, &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// What `Component.json` serializes to.
    static func component(_ c: Component, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        // [advertising], cell_styles, component_type, data, [extra], footer, header, id, layout,
        // rules, styles, ui_components.
        let advertised = leadingObject("advertising", c.advertising, &out)
        RiversDocument.key("cell_styles", first: !advertised, &out)
        out.append(UInt8(ascii: "["))
        for (i, style) in c.cellStyles.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONValue.writeString(style, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        RiversDocument.key("component_type", &out)
        JSONValue.writeString(c.componentType, to: &out)
        RiversDocument.key("data", &out)
        if let data = c.data { self.data(data, &out) } else { out.append(contentsOf: [110, 117, 108, 108]) }
        if !c.extra.isEmpty {
            RiversDocument.key("extra", &out)
            JSONValue.object(c.extra).write(to: &out)
        }
        RiversDocument.key("footer", &out)
        decoration(c.footer, &out)
        RiversDocument.key("header", &out)
        decoration(c.header, &out)
        RiversDocument.key("id", &out)
        JSONValue.writeString(c.id, to: &out)
        RiversDocument.key("layout", &out)
        optionalString(c.layout, &out)
        RiversDocument.key("rules", &out)
        RiversDocument.writeObject(c.rules, setting: c.itemLimit.map { [("item_limit", .number(Double($0)))] } ?? [], to: &out)
        RiversDocument.key("styles", &out)
        JSONValue.object(c.styles).write(to: &out)
        RiversDocument.key("ui_components", &out)
        components(c.uiComponents, &out)
        out.append(UInt8(ascii: "}"))
    }

    /// What `ComponentData.json` serializes to: connected, [extra], source, [target], type.
    static func data(_ d: ComponentData, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        if let connected = d.connected {
            RiversDocument.key("connected", first: true, &out)
            bool(connected, &out)
            first = false
        }
        if !d.extra.isEmpty {
            RiversDocument.key("extra", first: first, &out)
            JSONValue.object(d.extra).write(to: &out)
            first = false
        }
        RiversDocument.key("source", first: first, &out)
        JSONValue.writeString(d.source, to: &out)
        if let target = d.target {
            RiversDocument.key("target", &out)
            JSONValue.writeString(target, to: &out)
        }
        RiversDocument.key("type", &out)
        JSONValue.writeString(d.type, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// What `SectionDecoration.json()` serializes to: [extra], style, visible.
    static func decoration(_ d: SectionDecoration, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        let extra = leadingObject("extra", d.extra, &out)
        RiversDocument.key("style", first: !extra, &out)
        optionalString(d.style, &out)
        RiversDocument.key("visible", &out)
        bool(d.visible, &out)
        out.append(UInt8(ascii: "}"))
    }
}
