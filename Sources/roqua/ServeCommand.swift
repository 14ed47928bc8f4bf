import ArgumentParser
import Foundation
import Glibc

/// `roqua serve` runs `roqua-serve`, the program beside this one: the HTTP stack lives there so
/// that the plain CLI builds quickly (see docs/serve.md).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "The exploration app in a browser and a Nominatim-compatible API, offline (runs roqua-serve).",
        discussion: """
            The server is a program of its own, roqua-serve, installed beside roqua (swift build -c release \
            --product roqua-serve, then scripts/install.sh). Every argument is passed on: see roqua-serve --help.
            """
    )

    @Argument(parsing: .allUnrecognized, help: "Arguments for roqua-serve.")
    var arguments: [String] = []

    /// `roqua-serve` in the directory of this executable.
    static var serverPath: String {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return binary.deletingLastPathComponent().appendingPathComponent("roqua-serve").path
    }

    func run() throws {
        let path = Self.serverPath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError(
                """
                roqua serve runs roqua-serve, which is not installed beside roqua (\(path)); build and install it with \
                `swift build -c release --product roqua-serve && scripts/install.sh`
                """)
        }
        fflush(nil)
        // The server takes this process's place: same pid, so signals sent to `roqua serve` reach it.
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        throw ValidationError("cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
