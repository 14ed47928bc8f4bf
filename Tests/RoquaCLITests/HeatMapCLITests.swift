import Foundation
import GRDB
import RoquaTestSupport
import Testing

/// `roqua map --heat`: the lifetime map as one PNG, offline — and gone where the history was forgotten.
@Suite struct HeatMapCLITests {
    let roqua = ProductsDirectory.product("roqua")

    /// Width and height of a PNG, from its header.
    static func size(_ file: String) throws -> (Int, Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let word = { (at: Int) in bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    @Test func theCommuteAsAHeatMapAndAForgottenDay() throws {
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-heat"), roqua: roqua)
        let boundaries = ["--boundaries", try Bundled.path()]
        let out = bench.directory.file("heat.png")
        let empty = try bench.run(["map", "--heat", "--out", out] + boundaries)
        #expect(empty.status != 0 && empty.stderr.contains("no fixes kept"), "\(empty.stderr)")
        _ = try bench.ok(["track", "import", Repository.path("scripts/examples/commute.csv")] + boundaries)

        let whole = try bench.ok(["map", "--heat", "--out", out, "--width", "800"] + boundaries)
        #expect(whole.contains("heat of every kept fix") && whole.contains("tile(s) lit"), "\(whole)")
        let (w, h) = try Self.size(out)
        #expect(w <= 800 && w > 400 && h > 100, "\(w)×\(h)")

        // Galata, where work is: lit on the 6th, lit by no fix once the working days are forgotten.
        let galata = ["map", "--heat", "--out", out, "--bbox", "41.020,28.965,41.035,28.985", "--width", "400"] + boundaries
        #expect(try bench.ok(galata).contains(" 1 tile(s) lit") || (try bench.ok(galata)).contains(" 2 tile(s) lit"))
        let sixth = try bench.ok(galata + ["--from", "2024-05-06", "--to", "2024-05-06"])
        #expect(!sixth.contains(" 0 tile(s) lit"), "\(sixth)")
        _ = try bench.ok(["forget", "--from", "2024-05-06", "--to", "2024-05-08", "--yes"] + boundaries)
        #expect(try bench.ok(galata).contains(" 0 tile(s) lit"))
        #expect(try bench.ok(["map", "--heat", "--out", out] + boundaries).contains("tile(s) lit"))

        for (arguments, message) in [
            (["--bbox", "41,29,40,30"], "south < north"), (["--bbox", "41,29"], "south,west,north,east"),
            (["--from", "2024-05-06"], "--from and --to go together"), (["--unit", "TR"], "no --unit"),
        ] {
            let refused = try bench.run(["map", "--heat", "--out", out] + arguments + boundaries)
            #expect(refused.status != 0 && refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
    }

    /// A big import counts its map on a thread of its own, a small one in line: both, and a
    /// rebuild, keep the same map of the same fixes.
    @Test func oneBigImportSmallPartsAndARebuildDrawOneMap() throws {
        let csv = PhoneHistory.csv(seed: 57, days: 120)
        let lines = csv.split(separator: "\n").dropFirst().map(String.init)
        #expect(lines.count > 2 * 16_384, "\(lines.count) fixes: too few to hand over to the counting thread")
        let boundaries = ["--boundaries", try Bundled.path()]
        let whole = HistoryCLITests.Bench(directory: try TempDirectory("roqua-heat-whole"), roqua: roqua)
        let parts = HistoryCLITests.Bench(directory: try TempDirectory("roqua-heat-parts"), roqua: roqua)
        let file = whole.directory.file("history.csv")
        try csv.write(toFile: file, atomically: false, encoding: .utf8)
        _ = try whole.ok(["track", "import", file] + boundaries)
        for (index, start) in stride(from: 0, to: lines.count, by: 9_000).enumerated() {
            let part = parts.directory.file("part-\(index).csv")
            let chunk = ["lat,lon,timestamp,accuracy"] + lines[start..<min(start + 9_000, lines.count)]
            try (chunk.joined(separator: "\n") + "\n").write(toFile: part, atomically: false, encoding: .utf8)
            _ = try parts.ok(["track", "import", part] + boundaries)
        }
        func posters(_ bench: HistoryCLITests.Bench) throws -> [Data] {
            try [300, 1500].map { width in
                let out = bench.directory.file("heat-\(width).png")
                _ = try bench.ok(["map", "--heat", "--out", out, "--width", "\(width)"] + boundaries)
                return try Data(contentsOf: URL(fileURLWithPath: out))
            }
        }
        let expected = try posters(whole)
        #expect(try posters(parts) == expected, "imported in parts, the map differs")
        _ = try parts.ok(["rebuild"] + boundaries)
        #expect(try posters(parts) == expected, "rebuilt, the map differs")
    }

    /// A stored map tile that cannot be read (damaged on disk, written by something else) stops
    /// an import that adds to it, naming the rule broken, and the import leaves nothing behind:
    /// the rows of the final flush are read and rewritten on every core, and an error in any of
    /// them reaches the import.
    @Test func aDamagedMapTileStopsTheImportThatAddsToItAndChangesNothing() throws {
        let bench = HistoryCLITests.Bench(directory: try TempDirectory("roqua-heat-damaged"), roqua: roqua)
        let boundaries = ["--boundaries", try Bundled.path()]
        _ = try bench.ok(["track", "import", Repository.path("scripts/examples/commute.csv")] + boundaries)
        // The same commute a year later: new fixes on the same tiles.
        let later = bench.directory.file("later.csv")
        let text = try String(contentsOfFile: Repository.path("scripts/examples/commute.csv"), encoding: .utf8)
        try text.replacingOccurrences(of: "2024-05-", with: "2025-05-").write(toFile: later, atomically: false, encoding: .utf8)
        let queue = try DatabaseQueue(path: bench.store)
        let (rows, damaged) = try queue.write { db in
            // One row in the middle of the key order: the others around it are sound.
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM map_tiles") ?? 0
            try db.execute(
                sql: """
                    UPDATE map_tiles SET counts = x'52540209'
                    WHERE (z, x, y, kind) IN (SELECT z, x, y, kind FROM map_tiles ORDER BY z DESC LIMIT 1 OFFSET 3)
                    """)
            return (count, db.changesCount)
        }
        #expect(rows > 20 && damaged == 1)
        try queue.close()
        let before = try bench.ok(["history", "--json"])
        let refused = try bench.run(["track", "import", later] + boundaries)
        #expect(refused.status != 0, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("later.csv") && refused.stderr.contains("tile 1")
                && refused.stderr.contains("is damaged (a segment shorter than its header)"), "\(refused.stderr)")
        #expect(try bench.ok(["history", "--json"]) == before)
        // What the message says: a rebuild counts the map again, and the import then goes in.
        _ = try bench.ok(["rebuild"] + boundaries)
        _ = try bench.ok(["track", "import", later] + boundaries)
        #expect(try bench.ok(["history", "--json"]) != before)
    }
}
