import Foundation
import RoquaTestSupport
import Testing

/// PROJ and libzip are loaded by the commands that reproject or open an archive, not linked into
/// every start: without them every other command still runs, and the one that needs them fails
/// saying what to install, changing nothing. Their files are hidden behind /dev/null in a mount
/// namespace (a linked `roqua` cannot even start there); skipped, saying so, where the kernel does
/// not allow one.
@Suite struct OptionalLibraryTests {
    let roqua = ProductsDirectory.product("roqua")

    /// Runs `script` with every installed copy of the libraries named `prefix` (as `ldconfig`
    /// lists them) unreadable; nil when no mount namespace can be made here.
    func withoutLibrary(_ prefix: String, _ script: String) throws -> CommandResult? {
        guard (try? CommandRunner.run("/usr/bin/unshare", ["-m", "true"]))?.status == 0 else {
            print("skipped: no mount namespace here (unshare -m refused)")
            return nil
        }
        return try CommandRunner.run(
            "/usr/bin/unshare",
            [
                "-m", "/bin/sh", "-c",
                """
                set -e
                for library in $(ldconfig -p | awk '/\(prefix)[.]so/ { print $NF }'); do mount --bind /dev/null "$(readlink -f "$library")"; done
                "\(roqua)" --version
                \(script)
                """,
            ])
    }

    @Test func withoutPROJOnlyReprojectingFailsSayingWhatToInstall() throws {
        let s = try AddLayerCLITests.Setup()
        #expect(try s.run([]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: s.out))
        guard
            let result = try withoutLibrary(
                "libproj",
                """
                XDG_DATA_HOME="\(s.directory.file("xdg"))" "\(roqua)" import --from "\(s.base)" --out "\(s.out)" --add "\(s.wards)" \\
                    --level district --code JCODE --name WARD_JA --crs EPSG:3857
                """)
        else { return }
        let version = try CommandRunner.run(roqua, ["--version"]).stdout
        #expect(!version.isEmpty && result.stdout == version, "every command starts without PROJ: \(result.stderr)")
        #expect(
            result.status != 0 && result.stderr.contains("PROJ library (libproj.so.25) is not installed: apt-get install libproj25"),
            "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.out)) == before)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: s.directory.file("xdg/roqua/layers"))) ?? []).isEmpty)
    }

    @Test func withoutLibzipOnlyArchivesFailSayingWhatToInstall() throws {
        let directory = try TempDirectory()
        let store = directory.file("regions.sqlite")
        try FileManager.default.copyItem(atPath: TrackImportCLITests.fixtures + "/strava-export.zip", toPath: directory.file("strava.zip"))
        try Trip.csv.write(toFile: directory.file("trip.csv"), atomically: true, encoding: .utf8)
        let common = "--store \"\(store)\" --boundaries \"\(try Bundled.path())\""
        guard
            let result = try withoutLibrary(
                "libzip",
                """
                "\(roqua)" track import "\(directory.file("trip.csv"))" \(common)
                "\(roqua)" track import "\(directory.file("strava.zip"))" \(common)
                """)
        else { return }
        #expect(result.stdout.contains("trip.csv (csv):"), "a plain track imports without libzip: \(result.stderr)")
        #expect(
            result.status != 0
                && result.stderr.contains(
                    "strava.zip: cannot read as a ZIP archive: the libzip library (libzip.so.4) is not installed: apt-get install libzip4"),
            "\(result.stderr)")
        // The same regions as a store that only ever imported the plain track.
        let control = directory.file("control.sqlite")
        #expect(
            try CommandRunner.run(
                roqua,
                [
                    "track", "import", directory.file("trip.csv"), "--store", control,
                    "--boundaries", try Bundled.path(),
                ]
            ).status == 0)
        let regions = try CommandRunner.run(roqua, ["regions", "--store", store]).stdout
        let expected = try CommandRunner.run(roqua, ["regions", "--store", control]).stdout
        #expect(!regions.isEmpty && regions == expected, "the archive added nothing: \(regions)")
    }
}
