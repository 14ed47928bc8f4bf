import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The places of each country packed by `roqua import` (`LocalityPack`): read back as they were
/// written, with the answers the rows give, and refused with a reason when damaged.
@Suite struct LocalityPackTests {
    /// A small pack: three places, two across the antimeridian from each other, one name with a
    /// two-byte letter.
    private static let sample = LocalityPack([
        (.init(latitude: -16.45, longitude: 179.4, id: 745_044, population: 27_949, province: -1, district: -1), "İnland", "FJ-N", nil),
        (.init(latitude: -16.5, longitude: 179.9, id: 2, population: 0, province: -1, district: -1), "Labasa", nil, nil),
        (.init(latitude: -16.6, longitude: -179.9, id: 3, population: 800, province: -1, district: -1), "Wainikeli", "FJ-E", "X1"),
    ])

    private func decode(_ bytes: [UInt8]) throws -> LocalityPack {
        try bytes.withUnsafeBytes { try LocalityPack(decoding: $0) }
    }

    /// Why a blob is refused; nil when it is read.
    private func damage(_ bytes: [UInt8]) -> String? {
        do {
            _ = try decode(bytes)
            return nil
        } catch {
            return (error as? LocalityPack.Damage)?.reason ?? "\(error)"
        }
    }

    @Test func aPackReadsBackAsItWasWritten() throws {
        let pack = Self.sample
        #expect(try decode(pack.encoded()) == pack)
        #expect(pack.codes == ["FJ-N", "FJ-E", "X1"])
        #expect(pack.places.map(\.province) == [0, -1, 1])
        #expect(pack.places.map(\.district) == [-1, -1, 2])
        #expect(try decode(LocalityPack([]).encoded()) == LocalityPack([]))
        // Empty names and codes last (ends at the text's end: found by the fuzzer).
        let empty = LocalityPack([
            (.init(latitude: 1, longitude: 2, id: 1, population: 5, province: -1, district: -1), "A", "", nil),
            (.init(latitude: 1, longitude: 2.01, id: 2, population: 5, province: -1, district: -1), "", "", ""),
        ])
        #expect(try decode(empty.encoded()) == empty)
        // Places on both sides of the antimeridian make a grid a few cells wide (4 bytes a cell),
        // not the world's 1,440 columns.
        #expect(pack.encoded().count < 400)
    }

    /// Every header field, end, start and member is checked before use: each damage below is
    /// refused with its rule, and every cut of a pack is refused (none crashes).
    @Test func aDamagedPackIsRefusedWithTheRuleItBreaks() throws {
        let good = Self.sample.encoded()
        func patched(_ offset: Int, _ value: UInt32) -> [UInt8] {
            var bytes = good
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
            return bytes
        }
        let n = 3, header = 40
        let nameEnds = header + n * (8 + 8 + 8 + 4 + 4 + 4)
        let codeEnds = nameEnds + 4 * n
        let starts = codeEnds + 4 * 3
        let cells =
            Int(UInt32(littleEndian: good.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self) }))
            * Int(UInt32(littleEndian: good.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 32, as: UInt32.self) }))
        let members = starts + 4 * (cells + 1)
        let cases: [([UInt8], String)] = [
            (patched(0, 0x1234), "not a locality pack"),
            (patched(4, 5_000_000), "more than a country holds"),
            (patched(24, 5_000), "a grid of"),
            (patched(header + 4, 0x7FF8_0000), "place 745044 at nan"),  // the first latitude's high word
            (patched(header + 24 * n, 0x8000_0000), "with -2147483648 people"),
            (patched(header + 3 * 8 * n + 4 * n, 7), "names code 7 of 3"),
            (patched(nameEnds, 1), "names are not UTF-8 text"),  // inside "İ", a two-byte letter
            (patched(nameEnds + 4, 3), "names are not UTF-8 text"),  // going back
            (patched(codeEnds + 8, 99), "codes are not UTF-8 text"),
            (patched(starts, 1), "runs of members"),
            (patched(members, 9), "lists a place beyond the 3"),
            (good + [0], "bytes of text where the header says"),
        ]
        for (bytes, rule) in cases {
            let reason = damage(bytes)
            #expect(reason?.contains(rule) == true, "\(rule): \(reason ?? "accepted")")
        }
        for cut in 0..<good.count { #expect(damage(Array(good[..<cut])) != nil, "cut at \(cut)") }
    }

    /// The packs `roqua import` wrote give what the rows give, on 300,000 points (a million in
    /// scripts/bench/bench-locality.sh, through the CLI, in release): spread over
    /// the land of every continent and packed around the places themselves (where the rule's
    /// ties and reach edges are), in Türkiye's districts as abroad.
    @Test func thePacksAndTheRowsGiveTheSameLocalities() throws {
        let index = try Bundled.index()
        let resolver = try Resolver(index: index)
        let codes = index.unitIDs.map { index.reference($0).code }
        let packed = LocalityIndex(database: index.database, unitCodes: codes)
        let rows = LocalityIndex(database: index.database, unitCodes: codes, readsPacks: false)
        let places = try index.database.read { db in
            try Row.fetchAll(db, sql: "SELECT latitude, longitude, reach_m FROM localities WHERE part_of IS NULL")
                .map { (latitude: $0[0] as Double, longitude: $0[1] as Double, reach: $0[2] as Double) }
        }
        var generator = SeededGenerator(state: 55)
        var (asked, named) = (0, 0)
        for i in 0..<300_000 {
            let c: Coordinate
            if i % 2 == 0 {
                let place = places[Int.random(in: 0..<places.count, using: &generator)]
                let degrees = 1.2 * place.reach / 111_195
                c = Coordinate(
                    latitude: min(90, max(-90, place.latitude + Double.random(in: -degrees...degrees, using: &generator))),
                    longitude: min(180, max(-180, place.longitude + Double.random(in: -degrees...degrees, using: &generator))))
            } else {
                c = Coordinate(latitude: .random(in: -56...72, using: &generator), longitude: .random(in: -180...180, using: &generator))
            }
            let a = try resolver.resolve(c)
            guard let country = a.country?.code else { continue }
            asked += 1
            let fromPacks = try packed.locality(at: c, country: country, province: a.province?.code, district: a.district?.code)
            let fromRows = try rows.locality(at: c, country: country, province: a.province?.code, district: a.district?.code)
            if fromPacks != fromRows {
                Issue.record("\(c): \(String(describing: fromPacks)) from the packs, \(String(describing: fromRows)) from the rows")
                return
            }
            if fromPacks != nil { named += 1 }
        }
        #expect(asked > 180_000)
        #expect(named > 100_000)
        #expect(packed.countriesRead > 200)
    }

    /// A DB made before the packs still answers, from its rows; a damaged pack is an error
    /// naming the DB and the country, never a wrong answer.
    @Test func withoutPacksTheRowsAnswerAndADamagedPackIsAnError() throws {
        let directory = try TempDirectory()
        let copy = directory.file("boundaries.sqlite")
        try FileManager.default.copyItem(atPath: Bundled.path(), toPath: copy)
        let istanbul = Coordinate(latitude: 41.0106, longitude: 28.9786)
        func answer() throws -> Resolution {
            let index = try ResolverIndex(path: copy)
            return try index.withLocality(Resolver(index: index).resolve(istanbul))
        }
        func batchLocality() throws -> Locality? {
            let index = try ResolverIndex(path: copy)
            let a = try Resolver(index: index).resolve(istanbul)
            return try index.localities().locality(at: istanbul, country: "TR", province: a.province?.code, district: a.district?.code)
        }
        let expected = try batchLocality()
        #expect(expected != nil)
        #expect(expected == (try answer().locality))

        let queue = try DatabaseQueue(path: copy)
        try queue.write { db in try db.execute(sql: "UPDATE locality_packs SET data = substr(data, 1, 100) WHERE country_code = 'TR'") }
        #expect {
            try batchLocality()
        } throws: { error in
            "\(error)".contains(copy) && "\(error)".contains("the places of TR are damaged") && "\(error)".contains("roqua import")
        }
        try queue.write { db in try db.execute(sql: "DROP TABLE locality_packs") }
        try queue.close()
        #expect(try batchLocality() == expected)
    }
}
