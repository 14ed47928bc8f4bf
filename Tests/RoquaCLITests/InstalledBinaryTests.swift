import Foundation
import RoquaTestSupport
import Testing

/// The binary stands on its own: copied with its data into a prefix (`bin/roqua`,
/// `share/roqua/`), with no variable pointing anywhere and the source tree out of its reach, it
/// imports the boundaries, resolves, imports a track with achievements and prints statistics.
@Suite(.tags(.slow)) struct InstalledBinarySlowTests {
    @Test func aCopiedBinaryFindsItsDataBesideItself() throws {
        let root = try TempDirectory("roqua-prefix")
        let prefix = root.file("prefix"), home = root.file("home")
        for directory in [prefix + "/bin", prefix + "/share/roqua", home] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try CommandRunner.copyProgram(ProductsDirectory.product("roqua"), to: prefix + "/bin/roqua")
        for file in try FileManager.default.contentsOfDirectory(atPath: Repository.data) {
            try FileManager.default.copyItem(atPath: Repository.data + "/" + file, toPath: prefix + "/share/roqua/" + file)
        }
        let environment = ["HOME": home, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"]
        func roqua(_ arguments: [String]) throws -> CommandResult {
            let result = try CommandRunner.run(prefix + "/bin/roqua", arguments, environment: environment)
            #expect(result.status == 0, "roqua \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
        let imported = try roqua(["import"])
        #expect(imported.stdout.contains("973 districts"), "\(imported.stdout)")
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/roqua/boundaries.sqlite"))
        #expect(try roqua(["resolve", "40.9879", "29.0281"]).stdout == "Türkiye › İstanbul › Kadıköy\n")
        try Trip.csv.write(toFile: root.file("trip.csv"), atomically: true, encoding: .utf8)
        #expect(try roqua(["track", "import", root.file("trip.csv")]).stdout.contains("unlocked: First Steps"))
        #expect(try roqua(["achievements"]).stdout.contains("★ First Steps"))
        #expect(try roqua(["stats"]).stdout.contains("İstanbul 8/39 districts"))
    }

    @Test func withoutItsDataTheBinarySaysWhereItLooked() throws {
        let root = try TempDirectory("roqua-prefix")
        try FileManager.default.createDirectory(atPath: root.file("bin"), withIntermediateDirectories: true)
        try CommandRunner.copyProgram(ProductsDirectory.product("roqua"), to: root.file("bin/roqua"))
        let result = try CommandRunner.run(
            root.file("bin/roqua"), ["import", "--out", root.file("b.sqlite")],
            environment: ["HOME": root.path, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("ROQUA_DATA") && result.stderr.contains("share/roqua"), "\(result.stderr)")
    }
}
