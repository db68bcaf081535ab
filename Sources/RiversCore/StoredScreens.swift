/// Reads stored screen bodies back into screens, spread over the machine's cores: publishing an
/// app reads every screen, and each is independent of the others. Child tasks, not threads of its
/// own: the caller's executor decides, and nothing blocks.
public enum StoredScreens {
    public static func read(_ bodies: [[UInt8]], options: Screen.ReadOptions) async -> [Result<Screen, ValidationFailure>] {
        let chunks = min(max(1, bodies.count / 16), 8)
        if chunks == 1 { return bodies.map { decode($0, options: options) } }
        return await withTaskGroup(of: [(Int, Result<Screen, ValidationFailure>)].self) { group in
            for chunk in 0..<chunks {
                group.addTask {
                    stride(from: chunk, to: bodies.count, by: chunks).map { ($0, decode(bodies[$0], options: options)) }
                }
            }
            var results = [Result<Screen, ValidationFailure>](repeating: .failure(ValidationFailure([])), count: bodies.count)
            for await part in group {
                for (index, result) in part { results[index] = result }
            }
            return results
        }
    }

    static func decode(_ bytes: [UInt8], options: Screen.ReadOptions) -> Result<Screen, ValidationFailure> {
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
