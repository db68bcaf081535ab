/// Reads stored screen bodies back into screens, spread over the machine's cores: publishing an
/// app reads every screen, and each is independent of the others. Child tasks, not threads of its
/// own: the caller's executor decides, and nothing blocks.
public enum StoredScreens {
    public static func read(_ bodies: [[UInt8]], options: Screen.ReadOptions) async -> [Result<Screen, ValidationFailure>] {
        await read(bodies, options: options) { screen, _ in screen }
    }

    /// Each screen read, passed with its text through `then` in the same task: what `then` keeps
    /// of it is all that outlives the reading of that one screen. Each text is let go once its
    /// screen is read (the caller hands them over: `consume`), so an app's texts are not all held
    /// until the last is read.
    public static func read<Kept: Sendable>(
        _ bodies: consuming [[UInt8]], options: Screen.ReadOptions, then keep: @escaping @Sendable (Screen, [UInt8]) -> Kept
    ) async -> [Result<Kept, ValidationFailure>] {
        let count = bodies.count
        let chunks = min(max(1, count / 16), 8)
        // Each chunk's texts in a box of its own, emptied as they are read: a task's closure
        // holds its box, not the texts, until the task ends.
        let boxes = (0..<chunks).map { _ in TextsToRead() }
        for i in 0..<count {
            boxes[i % chunks].items.append((i, bodies[i]))
            bodies[i] = []
        }
        _ = consume bodies
        if chunks == 1 { return boxes[0].readAll(options: options, keep).map(\.1) }
        return await withTaskGroup(of: [(Int, Result<Kept, ValidationFailure>)].self) { group in
            for box in boxes {
                group.addTask { box.readAll(options: options, keep) }
            }
            var results = [Result<Kept, ValidationFailure>](repeating: .failure(ValidationFailure([])), count: count)
            for await part in group {
                for (index, result) in part { results[index] = result }
            }
            return results
        }
    }

    /// Texts one task reads, by their index in the whole; only that task touches them.
    private final class TextsToRead: @unchecked Sendable {
        var items: [(Int, [UInt8])] = []

        func readAll<Kept>(options: Screen.ReadOptions, _ keep: (Screen, [UInt8]) -> Kept) -> [(Int, Result<Kept, ValidationFailure>)] {
            var results: [(Int, Result<Kept, ValidationFailure>)] = []
            results.reserveCapacity(items.count)
            for n in items.indices {
                let (index, text) = items[n]
                items[n].1 = []
                results.append((index, decode(text, options: options).map { keep($0, text) }))
            }
            items = []
            return results
        }
    }

    /// A stored text as a screen: straight into the typed screen when the fast path vouches for
    /// it (`StoredScreenDecoder`), else parsed and read the full way, which says what is wrong.
    static func decode(_ bytes: [UInt8], options: Screen.ReadOptions) -> Result<Screen, ValidationFailure> {
        if let screen = StoredScreenDecoder.decode(bytes, options: options) { return .success(screen) }
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            return .failure(ValidationFailure([FieldError(error.pointer ?? "", error.description)]))
        }
        let problems = Problems()
        guard let screen = Screen.read(json, options: options, problems: problems) else { return .failure(problems.failure) }
        return .success(screen)
    }
}
