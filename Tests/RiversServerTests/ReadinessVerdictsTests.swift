import Testing

@testable import RiversServer

/// The database monitor's checks as readiness (pure state, no database).
@Suite("Readiness from the database checks")
struct ReadinessVerdictsTests {
    @Test func oneSlowAnswerIsNotAnOutageTwoAreAndAFailureIsAtOnce() {
        var verdicts = ReadinessVerdicts()
        #expect(verdicts.next(.answered) == true)
        // A single check with no answer within half a second: nothing recorded yet.
        #expect(verdicts.next(.timedOut) == nil)
        #expect(verdicts.next(.answered) == true, "it answered again: still ready")
        #expect(verdicts.next(.timedOut) == nil)
        #expect(verdicts.next(.timedOut) == false, "two in a row: not ready")
        #expect(verdicts.next(.timedOut) == false)
        #expect(verdicts.next(.answered) == true, "ready again at the first answer")
        // A refused or broken connection is not ready at once.
        #expect(verdicts.next(.failed) == false)
        #expect(verdicts.next(.timedOut) == nil, "a failure does not count towards time-outs in a row")
        #expect(verdicts.next(.failed) == false)
        #expect(verdicts.next(.answered) == true)
    }
}
