import Foundation

// `make bench-publish`: the byte path's own cost per request, with no socket (see `PublicPathBenchmark`).
let requests = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200_000
print("   ns per request              reading and deciding   the handler (embedded channel)")
for figure in try await PublicPathBenchmark.run(requests: requests) {
    let label = figure.label.padding(toLength: 28, withPad: " ", startingAt: 0)
    print("   \(label) \(String(format: "%18.0f %24.0f", figure.decideNanoseconds, figure.handlerNanoseconds))")
}
