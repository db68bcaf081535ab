import Foundation
import Testing

@testable import RiversCore

/// The real manifests and documents in `Tests/Fixtures/zapp` (copied from the field; see its SOURCES.md).
enum PluginFixtures {
    struct NotFound: Error, CustomStringConvertible {
        var description: String
    }

    /// `Tests/Fixtures/zapp`: real documents and manifests, kept in the repository.
    static func directory(from file: String = #filePath) throws -> URL {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/zapp")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw NotFound(description: "fixtures folder \(folder.path) not found")
        }
        return folder.standardizedFileURL
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try directory().appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw NotFound(description: "fixture \(name) not found at \(url.path)")
        }
        return Array(data)
    }

    static func json(_ name: String) throws -> JSONValue {
        try JSONValue.parse(try bytes(name))
    }

    static func manifest(_ name: String) throws -> PluginManifest {
        try PluginManifest.parse(try json(name))
    }

    /// The manifest fixtures that must be accepted.
    static let acceptedManifests = [
        "manifest_qb_admob_inline_banner_ui_component_ios_qb.json",
        "manifest_android_parent_lock_screen_plugin.json",
        "manifest_qb_parent_lock_screen_ios_for_quickbrick.json",
        "manifest_zee5_home_screen_native_ios.json",
        "manifest_zf_first_time_user_experience_screen_ios_for_quickbrick.json",
        "manifest_zf_user_account_component_ui_component_ios.json",
        "devportal_zappifest_example_manifest.json",
        "devportal_snippet_screen-with-ui-components.json",
        "devportal_snippet_text-style-multiple-fields.json",
        "devportal_snippet_text-style-multiple-sections.json",
        "devportal_snippet_text-style-single-field.json",
    ]

    /// Parses JSON text written in a test.
    static func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Array(text.utf8))
    }

    /// A minimal valid manifest with the given extra top-level entries merged in (`null` removes a key).
    static func minimal(_ extra: JSONValue = .emptyObject) -> JSONValue {
        let base: JSONValue = [
            "author_name": "A", "author_email": "a@example.com", "manifest_version": "1.0.0", "name": "Test",
            "description": "A test plugin", "identifier": "test_plugin", "type": "general", "min_zapp_sdk": "1.0.0",
            "ui_builder_support": true,
        ]
        return base.mergePatched(with: extra)
    }

    /// The errors of a manifest that must be rejected, or an issue if it is accepted.
    static func errors(_ json: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) -> [FieldError] {
        do {
            let m = try PluginManifest.parse(json)
            Issue.record("expected the manifest to be rejected; it was accepted as \(m.identifier)", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.errors
        }
    }
}
