import Foundation
import GRDB
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// The resolver on the real bundled data.
@Suite struct ResolverTests {
    let resolver: Resolver

    init() throws {
        resolver = try Resolver(index: Bundled.index())
    }

    @Test func seedExampleIsKadikoy() throws {
        let answer = try resolver.resolve(latitude: 40.9879, longitude: 29.0281)
        #expect(answer.country?.code == "TR")
        #expect(answer.country?.name == "Türkiye")
        #expect(answer.province?.code == "TR-34")
        #expect(answer.province?.name == "İstanbul")
        #expect(answer.district?.name == "Kadıköy")
        #expect(!answer.approximate)
        #expect(
            answer.json(language: .local) == """
                {"lat":40.9879,"lon":29.0281,"country":{"code":"TR","name":"Türkiye"},"province":{"code":"TR-34","name":"İstanbul"},\
                "district":{"code":"TUR034023","name":"Kadıköy"},"approximate":false}
                """)
        #expect(answer.text(language: .local) == "Türkiye › İstanbul › Kadıköy")
        #expect(answer.text(language: .en) == "Türkiye › Istanbul › Kadıköy")
    }

    @Test func knownLandmarks() throws {
        let cases: [(Double, Double, String)] = [
            (41.0430, 29.0070, "Beşiktaş"), (41.0602, 28.9877, "Şişli"), (41.0086, 28.9802, "Fatih"),
            (41.0255, 29.0156, "Üsküdar"), (40.9923, 29.1244, "Ataşehir"), (41.0475, 28.9335, "Eyüpsultan"),
            (39.9208, 32.8541, "Çankaya"), (38.4237, 27.1428, "Konak"),
        ]
        for (lat, lon, district) in cases {
            #expect(try resolver.resolve(latitude: lat, longitude: lon).district?.name == district, "\(lat), \(lon)")
        }
    }

    @Test func aPointInsideEachIstanbulDistrictGetsThatDistrict() throws {
        let context = GEOSContext()
        let districts = try Bundled.database().read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT d.code, d.geometry FROM boundaries d JOIN boundaries p ON d.parent_id = p.id WHERE p.code = 'TR-34'
                    """)
        }
        var answers = Set<String>()
        for row in districts {
            let inside = try context.geometry(wkb: row["geometry"]).pointOnSurface()
            let answer = try resolver.resolve(latitude: inside.y, longitude: inside.x)
            #expect(answer.district?.code == row["code"])
            #expect(answer.province?.code == "TR-34")
            #expect(!answer.approximate)
            if let code = answer.district?.code { answers.insert(code) }
        }
        #expect(answers.count == 39)
    }

    @Test func coastalPointsAreAnsweredApproximately() throws {
        // A pier on Kadıköy's shore and the sea just off Büyükada: outside every polygon, near one.
        let pier = try resolver.resolve(latitude: 40.9925, longitude: 29.0195)
        #expect(pier.district?.name == "Kadıköy")
        #expect(pier.approximate)
        #expect(try #require(pier.distanceMeters) <= 1000)
        let offBuyukada = try resolver.resolve(latitude: 40.8590, longitude: 29.1345)
        #expect(offBuyukada.district?.name == "Adalar")
        #expect(offBuyukada.approximate)
        let onBuyukada = try resolver.resolve(latitude: 40.8602, longitude: 29.1283)
        #expect(onBuyukada.district?.name == "Adalar")
    }

    @Test func openSeaHasNoAnswerAndFallbackCanBeTurnedOff() throws {
        let sea = try resolver.resolve(latitude: 0, longitude: -30)
        #expect(sea.country == nil && sea.province == nil && sea.district == nil)
        #expect(!sea.approximate)
        let strict = try Resolver(index: Bundled.index(), fallbackMeters: 0)
        let pier = try strict.resolve(latitude: 40.9925, longitude: 29.0195)
        #expect(pier.district == nil)
    }

    @Test func deepestLevelDecidesEvenWhereTheCountryOutlineMisses() throws {
        // A district polygon point that Natural Earth's Türkiye outline does not hold.
        let context = GEOSContext()
        let turkiye = try Bundled.geometry("TR", in: context).prepared()
        let districts = try Bundled.database().read { db in
            try Data.fetchAll(db, sql: "SELECT geometry FROM pieces WHERE level = 2 ORDER BY id")
        }
        var checked = 0
        for wkb in districts where checked < 3 {
            let piece = try context.geometry(wkb: wkb)
            let p = try piece.pointOnSurface()
            if try !turkiye.covers(context.point(x: p.x, y: p.y)) {
                let answer = try resolver.resolve(latitude: p.y, longitude: p.x)
                #expect(answer.country?.code == "TR")
                #expect(answer.district != nil && !answer.approximate)
                checked += 1
            }
        }
        #expect(checked > 0, "expected some district area outside the NE outline")
    }

    @Test func antimeridianAndPoles() throws {
        #expect(try resolver.resolve(latitude: 67.5, longitude: 180).country?.code == "RU")
        #expect(try resolver.resolve(latitude: 67.5, longitude: -180).country?.code == "RU")
        #expect(try resolver.resolve(latitude: -16.8, longitude: 180).country?.code == "FJ")
        #expect(try resolver.resolve(latitude: -16.8, longitude: -180).country?.code == "FJ")
        #expect(try resolver.resolve(latitude: -90, longitude: 0).country?.code == "AQ")
        #expect(try resolver.resolve(latitude: -90, longitude: 180).country?.code == "AQ")
        let north = try resolver.resolve(latitude: 90, longitude: 0)
        #expect(north.country == nil)
    }

    @Test func pointOfViewChoices() throws {
        #expect(try resolver.resolve(latitude: 44.95, longitude: 34.10).country?.code == "UA")  // Simferopol
        #expect(try resolver.resolve(latitude: 35.19, longitude: 33.36).country?.code != nil)  // Nicosia
        #expect(try resolver.resolve(latitude: 35.34, longitude: 33.32).country?.code == "XN")  // Girne/Kyrenia
        #expect(try resolver.resolve(latitude: 42.66, longitude: 21.16).country?.code == "XK")  // Priştine
    }

    @Test(arguments: [
        (Double.nan, 0.0), (0, .nan), (.infinity, 0), (0, -.infinity), (90.0001, 0), (-91, 0), (0, 180.5), (0, -181),
    ])
    func invalidCoordinatesAreErrors(latitude: Double, longitude: Double) {
        #expect(throws: ResolveError.self) { try resolver.resolve(latitude: latitude, longitude: longitude) }
    }

    @Test func aBatchGivesTheSameAnswersInOrder() throws {
        let points =
            (0..<2000).map { i in
                Coordinate(latitude: 40.8 + Double(i % 50) * 0.01, longitude: 28.5 + Double(i / 50) * 0.03)
            } + [Coordinate(latitude: .nan, longitude: 0)]
        let batch = try BatchResolver(index: Bundled.index(), workers: 2)
        let answers = batch.resolve(points)
        #expect(answers.count == points.count)
        for (point, answer) in zip(points.dropLast(), answers) {
            #expect(try answer.get() == resolver.resolve(point))
        }
        #expect(throws: ResolveError.self) { try answers.last!.get() }
    }

    @Test(arguments: [1, 2, 3])
    func workersTakingRunsInTurnKeepInputOrder(_ workers: Int) throws {
        // 40 runs of 1,024 points: a coast walk (expensive nearest searches) then land and sea at
        // random (cheap), so the workers take different numbers of runs.
        var random = SeededGenerator(state: UInt64(41 + workers))
        let coast = (0..<12_000).map { Coordinate(latitude: 40.95 + Double($0) * 4e-6, longitude: 28.90 + Double($0) * 9e-6) }
        let scattered = (0..<28_960).map { _ in
            Coordinate(latitude: .random(in: 36...42, using: &random), longitude: .random(in: 26...45, using: &random))
        }
        let points = coast + scattered
        let single = try Resolver(index: Bundled.index())
        let placements = try BatchResolver(index: Bundled.index(), workers: workers).placements(points)
        #expect(placements.count == points.count)
        var approximate = 0
        for (point, answer) in zip(points, placements) {
            let expected = try single.placement(point)
            #expect(try answer.get() == expected, "\(point)")
            if expected.approximate { approximate += 1 }
        }
        #expect(approximate > 500, "the walk meets the fallback (\(approximate))")
    }

    @Test func aTrackRepeatsItsAnswersWithTheLocalityCache() throws {
        // A slow walk: most fixes fall into cells answered without geometry, and must agree with a fresh resolver.
        let walk = (0..<3000).map { Coordinate(latitude: 40.98 + Double($0) * 2e-5, longitude: 29.02 + Double($0) * 1.5e-5) }
        let first = try walk.map { try resolver.resolve($0) }
        for (i, point) in walk.enumerated() where i % 97 == 0 {
            let fresh = try Resolver(index: Bundled.index())
            #expect(try fresh.resolve(point) == first[i])
        }
        #expect(Set(first.compactMap { $0.district?.name }).count >= 2)
    }
}
