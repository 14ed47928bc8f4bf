import Foundation
import RoquaTestKit
import Testing

/// The tour-group fuzz corpora and crash regressions (chat/Tests/Fuzz), replayed by `roqua-chat-fuzz`.
@Suite struct ChatFuzzReplayTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz").path

    @Test func everySavedInputEndsWithoutACrash() throws {
        let outcomes = try FuzzReplay.run(program: "roqua-chat-fuzz", folder: Self.folder)
        #expect(outcomes.map(\.target) == ["group-log", "peer-wire", "phone", "push-body"])
        for outcome in outcomes {
            #expect(outcome.survived, "\(outcome.target): \(outcome.result.stdout) \(outcome.result.stderr)")
        }
    }
}
