import Foundation
import RoquaTestSupport
import Testing

/// Every Roqua program words an error the same way: `error: …` on standard error (the tour-group
/// programs are checked in their own package), with ArgumentParser's statuses.
@Suite struct ErrorStyleTests {
    @Test func roquaAndRoquaServeSayError() throws {
        let roqua = ProductsDirectory.product("roqua")
        let usage = try CommandRunner.run(roqua, ["resolve", "41,0054 28,9768", "--boundaries", try Bundled.path()])
        #expect(usage.status == 64 && usage.stderr.hasPrefix("error: cannot read \"41,0054 28,9768\""), "\(usage.stderr)")
        #expect(usage.stderr.contains("Usage: roqua resolve"))
        let invalid = try CommandRunner.run(roqua, ["resolve", "91", "0", "--boundaries", try Bundled.path()])
        #expect(
            invalid.status == 1 && invalid.stderr == "error: invalid coordinate 91.0, 0.0: latitude outside -90…90\n", "\(invalid.stderr)")
        let failure = try CommandRunner.run(
            roqua,
            [
                "map", "--unit", "Istanbull", "--out", "/dev/null", "--boundaries", try Bundled.path(),
                "--store", "/nonexistent/regions.sqlite",
            ])
        #expect(failure.status == 1 && failure.stderr.hasPrefix("error: "), "\(failure.stderr)")
        #expect(!failure.stderr.contains("Error: "))
        let serve = try CommandRunner.run(ProductsDirectory.product("roqua-serve"), ["--port", "99999"])
        #expect(serve.status != 0 && serve.stderr.hasPrefix("error: "), "\(serve.stderr)")
        // Help and the version still go to standard output with status 0.
        let version = try CommandRunner.run(roqua, ["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty && version.stderr.isEmpty)
    }

    /// Errors a command reports before it ends (a batch's bad rows, each problem of a definitions
    /// file, a track file that fails among others) carry the same prefix as the one it ends with.
    @Test func reportedErrorsSayErrorToo() throws {
        let roqua = ProductsDirectory.product("roqua")
        let directory = try TempDirectory()
        try "lat,lon\n41.0,29.0\nabc,29.0\n".write(toFile: directory.file("p.csv"), atomically: true, encoding: .utf8)
        let batch = try CommandRunner.run(roqua, ["resolve", "--input", directory.file("p.csv"), "--boundaries", try Bundled.path()])
        #expect(
            batch.status == 2
                && batch.stderr == "error: \(directory.file("p.csv")): row 3: latitude \"abc\" is not a number\n"
                    + "error: 1 of 2 rows failed (see above)\n",
            "\(batch.stderr)")
        try #"{"version": 1, "achievements": [{"id": "x", "calculator": "milestone"}]}"#
            .write(toFile: directory.file("bad.json"), atomically: true, encoding: .utf8)
        let validate = try CommandRunner.run(roqua, ["achievements", "validate", directory.file("bad.json")])
        let lines = validate.stderr.split(separator: "\n")
        #expect(validate.status == 1 && lines.count == 2 && lines.allSatisfy { $0.hasPrefix("error: ") }, "\(validate.stderr)")
        try "not a track".write(toFile: directory.file("notes.gpx"), atomically: true, encoding: .utf8)
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let tracks = try CommandRunner.run(
            roqua,
            [
                "track", "import", directory.file("notes.gpx"), directory.file("trip.csv"),
                "--store", directory.file("regions.sqlite"), "--boundaries", try Bundled.path(),
            ])
        #expect(
            tracks.status == 1 && tracks.stderr.hasPrefix("error: \(directory.file("notes.gpx")): ")
                && !tracks.stderr.contains("error: error:"),
            "\(tracks.stderr)")
    }
}
