import Dispatch

/// Reads stored screen bodies back into screens, spread over the machine's cores: publishing an
/// app reads every screen, and each is independent of the others.
public enum StoredScreens {
    public static func read(_ bodies: [[UInt8]], options: Screen.ReadOptions) -> [Result<Screen, ValidationFailure>] {
        let chunks = min(max(1, bodies.count / 16), 8)
        let results = UnsafeResults(count: bodies.count)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            var i = chunk
            while i < bodies.count {
                results.set(i, decode(bodies[i], options: options))
                i += chunks
            }
        }
        return results.values.map { $0! }
    }

    static func decode(_ bytes: [UInt8], options: Screen.ReadOptions) -> Result<Screen, ValidationFailure> {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            return .failure(ValidationFailure([FieldError("", error.description)]))
        }
        let problems = Problems()
        guard let screen = Screen.read(json, options: options, problems: problems) else { return .failure(ValidationFailure(problems.errors)) }
        return .success(screen)
    }

    /// Slots written by disjoint indexes from concurrent iterations, read after they all finish.
    private final class UnsafeResults: @unchecked Sendable {
        var values: [Result<Screen, ValidationFailure>?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ value: Result<Screen, ValidationFailure>) {
            values.withUnsafeMutableBufferPointer { $0[index] = value }
        }
    }
}
