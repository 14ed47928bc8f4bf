import Foundation
import RoquaBoundaries
import RoquaTestKit
import Testing

/// Both tour-group programs say their version as every Roqua program does.
@Suite struct ChatProgramsTests {
    @Test(arguments: ["roqua-chat", "roqua-chat-server"])
    func printsTheVersion(program: String) throws {
        let result = try CommandRunner.run(ProductsDirectory.product(program), ["--version"])
        #expect(result.status == 0 && result.stdout == Roqua.version + "\n", "\(program): \(result.stdout) \(result.stderr)")
    }
}
