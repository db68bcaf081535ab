import Foundation
import NIOCore
import RiversCore
import RiversStore

// How the API shows what the store returns: the response shapes, public URLs and paging live
// here, in the HTTP module, not next to the SQL.

extension Record {
    /// The resource with its bookkeeping.
    var json: JSONValue { Self.json(body, revision: revision, createdAt: createdAt, updatedAt: updatedAt) }

    static func json(_ body: JSONValue, revision: Int, createdAt: Date, updatedAt: Date) -> JSONValue {
        var o = body.objectValue ?? [:]
        o["revision"] = .number(Double(revision))
        o["created_at"] = .string(Timestamp.format(createdAt))
        o["updated_at"] = .string(Timestamp.format(updatedAt))
        return .object(o)
    }
}

extension RecordText {
    /// A record's body written as the text a table would keep (its bookkeeping apart).
    init(_ record: Record) {
        self.init(body: ByteBuffer(bytes: record.body.serialized()), revision: record.revision, createdAt: record.createdAt, updatedAt: record.updatedAt)
    }

    /// A record just created, as text, with its id.
    static func created(_ record: Record) -> (resource: RecordText, id: String) {
        (RecordText(record), record.body["id"]?.stringValue ?? "")
    }

    /// What `Record.json` shows, written around the stored text without parsing it: the body's
    /// members as the database keeps them, then `created_at`, `revision` and `updated_at`.
    var json: ByteBuffer {
        let stored = body.readableBytesView
        guard stored.count >= 2, stored.first == UInt8(ascii: "{"), stored.last == UInt8(ascii: "}") else {
            // Never seen (the tables keep objects), but a parse is always right.
            let parsed = (try? JSONValue.parse(stored)) ?? [:]
            return ByteBuffer(bytes: Record.json(parsed, revision: revision, createdAt: createdAt, updatedAt: updatedAt).serialized())
        }
        var bookkeeping: [UInt8] = stored.count > 2 ? Array(", ".utf8) : []
        bookkeeping.append(contentsOf: "\"created_at\": ".utf8)
        JSONValue.writeString(Timestamp.format(createdAt), to: &bookkeeping)
        bookkeeping.append(contentsOf: ", \"revision\": ".utf8)
        JSONValue.writeNumber(Double(revision), to: &bookkeeping)
        bookkeeping.append(contentsOf: ", \"updated_at\": ".utf8)
        JSONValue.writeString(Timestamp.format(updatedAt), to: &bookkeeping)
        bookkeeping.append(UInt8(ascii: "}"))
        var out = ByteBuffer()
        out.reserveCapacity(stored.count + bookkeeping.count)
        out.writeBytes(stored.dropLast())
        out.writeBytes(bookkeeping)
        return out
    }
}

extension App {
    var json: JSONValue {
        ["id": .string(id), "slug": .string(slug), "name": .string(name), "created_at": .string(Timestamp.format(createdAt))]
    }

    /// An app as the API shows it: with the stable URL of its published document, and the
    /// caller's role in it when there is one.
    func json(baseURL: String, role: Role?) -> JSONValue {
        var o = json.objectValue ?? [:]
        o["public_url"] = .string("\(baseURL)/rivers/\(slug)/rivers.json")
        if let role { o["role"] = .string(role.rawValue) }
        return .object(o)
    }
}

/// The paging envelope of every list: `items`, `total`, `limit`, `offset`, `next_offset`.
func pageJSON(_ items: [JSONValue], total: Int, limit: Int, offset: Int) -> JSONValue {
    let next = offset + items.count < total ? JSONValue.number(Double(offset + items.count)) : .null
    return [
        "items": .array(items), "total": .number(Double(total)), "limit": .number(Double(limit)),
        "offset": .number(Double(offset)), "next_offset": next,
    ]
}

extension TextPage {
    /// The page envelope written around the items' stored texts (nothing parsed).
    var json: ByteBuffer {
        var out = ByteBuffer()
        out.writeString("{\"items\": [")
        for (i, item) in items.enumerated() {
            if i > 0 { out.writeString(", ") }
            var text = item.json
            out.writeBuffer(&text)
        }
        let next = offset + items.count < total ? String(offset + items.count) : "null"
        out.writeString("], \"total\": \(total), \"limit\": \(limit), \"offset\": \(offset), \"next_offset\": \(next)}")
        return out
    }
}

extension Page where Item == Record {
    var json: JSONValue { pageJSON(items.map(\.json), total: total, limit: limit, offset: offset) }
}

extension Page where Item == StoredPlugin {
    var json: JSONValue { pageJSON(items.map(\.json), total: total, limit: limit, offset: offset) }
}

/// How an answer names the people who did something: as stored, with their emails, to the app's
/// admins (who see its members' emails); to everyone else as the live stream names them, without
/// the email (`AppEvent.publicName`). Tokens and the schedule are named as they are.
enum PeopleShown: Sendable {
    case withEmails, namesOnly

    func name(_ stored: String) -> String { self == .withEmails ? stored : AppEvent.publicName(stored) }
}

extension AppContext {
    /// The app's admins and instance admins see people's emails; other members and tokens do not.
    var people: PeopleShown { role == .admin || principal?.isInstanceAdmin == true ? .withEmails : .namesOnly }
}

extension PublishedVersion {
    /// What the API shows of a version (without its bytes), with its public URL.
    func json(slug: String, baseURL: String, people: PeopleShown) -> JSONValue {
        [
            "number": .number(Double(number)), "sha256": .string(sha256),
            "size": .number(Double(size)), "gzip_size": .number(Double(gzipSize)),
            "published_by": .string(people.name(publishedBy)), "note": .string(note),
            "rollback_of": rollbackOf.map { .number(Double($0)) } ?? .null,
            "created_at": .string(Timestamp.format(createdAt)),
            "url": .string("\(baseURL)/rivers/\(slug)/v\(number)/rivers.json"),
        ]
    }
}

extension ResourceUse {
    /// One entry of a 409's `used_by`.
    var json: JSONValue {
        var o: [String: JSONValue] = ["kind": .string(kind.rawValue), "id": .string(id), "name": .string(name)]
        switch via {
        case .unspecified: break
        case .link(let how): o["via"] = .string(how)
        case .ways(let ways): o["via"] = .array(ways.map(JSONValue.string))
        }
        if !cellStyles.isEmpty { o["cell_styles"] = .array(cellStyles.map(JSONValue.string)) }
        return .object(o)
    }
}

// The API's shapes of what the store returns about people, tokens, links, the audit log and
// plugins: written here, not next to the SQL.

extension User {
    var json: JSONValue {
        ["id": .string(id), "email": .string(email), "name": .string(name), "admin": .bool(isAdmin),
         "has_password": .bool(hasPassword), "created_at": .string(Timestamp.format(createdAt))]
    }
}

extension TokenInfo {
    var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "role": .string(role.rawValue), "created_by": .string(createdBy),
            "created_at": .string(Timestamp.format(createdAt)),
        ]
        o["expires_at"] = expiresAt.map { .string(Timestamp.format($0)) } ?? .null
        o["last_used_at"] = lastUsedAt.map { .string(Timestamp.format($0)) } ?? .null
        return .object(o)
    }
}

extension OneTimeLink {
    var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "kind": .string(kind.rawValue), "email": .string(email), "created_by": .string(createdBy),
            "created_at": .string(Timestamp.format(createdAt)), "expires_at": .string(Timestamp.format(expiresAt)),
        ]
        if let app { o["app"] = ["id": .string(app.id), "slug": .string(app.slug), "name": .string(app.name)] }
        if let role { o["role"] = .string(role.rawValue) }
        o["used_at"] = usedAt.map { .string(Timestamp.format($0)) } ?? .null
        return .object(o)
    }
}

extension AuditEntry {
    var json: JSONValue {
        var o: [String: JSONValue] = [
            "id": .number(Double(id)), "at": .string(Timestamp.format(at)), "actor": .string(actor), "actor_kind": .string(actorKind),
            "kind": .string(kind), "resource_id": .string(resourceId), "action": .string(action), "summary": .string(summary),
            "request_id": .string(requestId), "address": .string(address),
        ]
        o["revision_before"] = revisionBefore.map { .number(Double($0)) } ?? .null
        o["revision_after"] = revisionAfter.map { .number(Double($0)) } ?? .null
        return .object(o)
    }
}

extension StoredPlugin {
    /// The plugin as the API shows it: what its current manifest says of it, the versions it has,
    /// the manifest itself, and its bookkeeping.
    var json: JSONValue {
        Record.json([
            "identifier": .string(identifier), "name": .string(manifest.name), "type": .string(manifest.type),
            "screen": .bool(manifest.isScreen), "ui_component": .bool(manifest.isUIComponent),
            "can_have_components": .bool(manifest.canHaveComponents), "current_version": .string(currentVersion),
            "versions": .array(versions.map { ["manifest_version": .string($0.manifestVersion), "created_at": .string(Timestamp.format($0.createdAt))] }),
            "manifest": manifest.raw,
        ], revision: revision, createdAt: createdAt, updatedAt: updatedAt)
    }
}
