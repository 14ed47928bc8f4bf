import Foundation
import RoquaBoundaries
import RoquaTestKit
import Testing

/// Both tour-group programs say their version, and their errors, as every Roqua program does.
@Suite struct RoquaProgramsTests {
    @Test(arguments: ["roqua-chat", "roqua-chat-server"])
    func printsTheVersion(program: String) throws {
        let result = try CommandRunner.run(ProductsDirectory.product(program), ["--version"])
        #expect(result.status == 0 && result.stdout == Roqua.version + "\n", "\(program): \(result.stdout) \(result.stderr)")
    }

    /// `error: …` on standard error (never ArgumentParser's `Error: `), with ArgumentParser's statuses
    /// and usage; help stays on standard output with status 0.
    @Test(arguments: [
        ("roqua-chat", ["--home", "/proc/no/such/home", "group", "create", "X"]),
        ("roqua-chat-server", ["admin", "--db", "/proc/no/such/chat.sqlite", "role", "+905551112233", "guide"]),
    ])
    func errorsStartWithLowerCaseError(program: String, failing: [String]) throws {
        let binary = ProductsDirectory.product(program)
        let thrown = try CommandRunner.run(binary, failing)
        #expect(
            thrown.status == 1 && thrown.stderr.hasPrefix("error: ") && thrown.stderr.contains("/proc/no/such/")
                && !thrown.stderr.contains("Error:") && thrown.stdout.isEmpty, "\(program): \(thrown.stderr)")
        let usage = try CommandRunner.run(binary, failing + ["--no-such-option"])
        #expect(
            usage.status == 64 && usage.stderr.hasPrefix("error: Unknown option '--no-such-option'")
                && usage.stderr.contains("Usage: "), "\(program): \(usage.stderr)")
        let help = try CommandRunner.run(binary, ["--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: ") && help.stderr.isEmpty, "\(program): \(help.stderr)")
    }
}
