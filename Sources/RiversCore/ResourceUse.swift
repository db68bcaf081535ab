/// A screen or layout standing in the way of a change: what uses a family, cell style, screen or
/// plugin that a delete or update would take away. The HTTP module shows these in a 409's `used_by`.
public struct ResourceUse: Sendable, Hashable {
    public enum Kind: String, Sendable { case screen, layout }

    /// How it uses what is changed.
    public enum Via: Sendable, Hashable {
        /// Said by the change itself (a family delete).
        case unspecified
        /// A screen delete: the user has the screen as its `parent`, or links to it (`target`).
        case link(String)
        /// A plugin delete: each way the user depends on the plugin (`type`, `component`, `hook`, `navigation`).
        case ways([String])
    }

    public var kind: Kind
    public var id: String
    public var name: String
    public var via: Via
    /// A family update: the cell styles the update would drop that this user still names.
    public var cellStyles: [String]

    public init(kind: Kind, id: String, name: String, via: Via = .unspecified, cellStyles: [String] = []) {
        self.kind = kind
        self.id = id
        self.name = name
        self.via = via
        self.cellStyles = cellStyles
    }
}
