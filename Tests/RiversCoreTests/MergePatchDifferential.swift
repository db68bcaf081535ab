import Foundation
import Testing

@testable import RiversCore

/// Checks a typed merge patch against reading the patch merged onto the resource's JSON (the
/// PATCH of before): every candidate value of every member on its own, then `count` patches of
/// one to `most` members made from them on a seeded generator. Each must give the same value (as
/// `comparable` shows it) and the same problems at the same pointers. Answers how many patches
/// the tree's reading accepted and refused, so that a test can require both to be well
/// represented (a generator that only made refusals would prove little).
func checkMergePatches<T: Equatable>(
    bases: [T], candidates: [String: [JSONValue]], seed: UInt64, count: Int, most: Int, describe: (T) -> String,
    typed: (JSONValue, T) -> (T?, [String]), tree: (JSONValue, T) -> (T?, [String]), comparable: (T?) -> T? = { $0 }
) -> (accepted: Int, refused: Int) {
    var generator = JSONParserFuzzTests.Seeded(state: seed)
    let keys = candidates.keys.sorted()
    var accepted = 0, refused = 0
    for base in bases {
        var patches: [JSONValue] = [[:]]
        for key in keys { for value in candidates[key]! { patches.append(.object([key: value])) } }
        for _ in 0..<count {
            var patch: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 1...most, using: &generator) {
                let key = keys.randomElement(using: &generator)!
                patch[key] = candidates[key]!.randomElement(using: &generator)!
            }
            patches.append(.object(patch))
        }
        for patch in patches {
            let (typedValue, typedProblems) = typed(patch, base)
            let (treeValue, treeProblems) = tree(patch, base)
            #expect(comparable(typedValue) == comparable(treeValue), "\(describe(base)) patched with \(patch.serializedString())")
            #expect(typedProblems == treeProblems, "\(describe(base)) patched with \(patch.serializedString())")
            if treeValue != nil { accepted += 1 } else { refused += 1 }
        }
    }
    return (accepted, refused)
}
