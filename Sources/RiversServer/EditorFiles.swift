import Hummingbird
import Logging

/// The editor's static files, for every path outside the API, the published documents and the
/// health checks (so those never touch the file system).
///
/// Paths are checked before a file is looked up: one that does not decode, or decodes to a NUL or
/// another control character (which would cut the file name short, so that `index.html%00.js` read
/// `index.html` as JavaScript), a backslash, or an empty segment (`//js` would otherwise redirect
/// to the protocol-relative `//js/`) names no file. Every answer carries headers that keep the
/// editor from being framed or having its files sniffed as another type.
struct EditorFilesMiddleware: RouterMiddleware {
    typealias Context = RiversContext
    let files: FileMiddleware<RiversContext, LocalFileSystem>

    /// The editor loads its own scripts, styles and images only, and talks only to this server.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    init(directory: String, logger: Logger) {
        files = FileMiddleware(directory, searchForIndexHtml: true, logger: logger)
    }

    func handle(_ request: Request, context: RiversContext, next: (Request, RiversContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/api/") || path.hasPrefix("/rivers/") || path == "/health" || path.hasPrefix("/health/") {
            return try await next(request, context)
        }
        guard Self.isPlainPath(path) else {
            throw Problem(.notFound, type: "no-route", title: "Not found", detail: "there is no file at this address")
        }
        var response = try await files.handle(request, context: context, next: next)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.frameOptions] = "DENY"
        response.headers[.referrerPolicy] = "same-origin"
        return response
    }

    /// A path that names a file as it is written: it decodes to UTF-8 without control characters
    /// or backslashes, and has no empty segment but a final one (`/js/`).
    static func isPlainPath(_ path: String) -> Bool {
        guard path.hasPrefix("/"), let decoded = path.removingPercentEncoding else { return false }
        if decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" }) { return false }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: false).dropFirst().dropLast()
        return !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
    }
}
