import Foundation

// `make bench-publish`: the byte path's own cost per request, with no socket (see `PublicPathBenchmark`).
let requests = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200_000
print("   ns per request              reading and deciding   the handler (embedded channel)")
for figure in try await PublicPathBenchmark.run(requests: requests) {
    let label = figure.label.padding(toLength: 28, withPad: " ", startingAt: 0)
    print("   \(label) \(String(format: "%18.0f %24.0f", figure.decideNanoseconds, figure.handlerNanoseconds))")
}
print("   ns per publish, in the index of a process serving")
for apps in [1_000, 10_000, 100_000] {
    let nanoseconds = try await PublicPathBenchmark.indexChange(apps: apps)
    print("   \(String(apps).padding(toLength: 8, withPad: " ", startingAt: 0)) apps \(String(format: "%34.0f", nanoseconds))")
}
