import Foundation
import RoquaTestSupport
import Testing

/// The geocoder's fuzz corpora and crash regressions (Tests/Fuzz), replayed by `roqua-fuzz`.
@Suite struct FuzzReplayTests {
    @Test func everySavedInputEndsWithoutACrash() throws {
        let outcomes = try FuzzReplay.run(program: "roqua-fuzz", folder: Repository.path("Tests/Fuzz"))
        #expect(outcomes.count >= 20)
        for outcome in outcomes {
            #expect(outcome.survived, "\(outcome.target): \(outcome.result.stdout) \(outcome.result.stderr)")
        }
    }
}
