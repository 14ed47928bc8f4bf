import Foundation
import GRDB
import RoquaBoundaries
import RoquaExport
import RoquaTestSupport
import Testing

/// The PostGIS export of the bundled boundaries loaded into a real, throwaway PostGIS, and
/// `roqua_resolve` asked about 10,000 seeded points: every answer must be Roqua's exact answer
/// (the resolver without its nearest-boundary fallback, which the SQL leaves out).
@Suite(
    "PostGIS export agrees with Roqua", .tags(.slow),
    .enabled(
        if: PostgresServer.isInstalled && PostgresServer.hasPostGIS,
        "PostgreSQL with PostGIS is not installed (initdb/pg_ctl under /usr/lib/postgresql/*/bin or $ROQUA_PG_BIN, and postgis.control): apt-get install postgresql-15-postgis-3"
    ))
struct PostGISAgreementSlowTests {
    @Test("10,000 seeded points (world, Türkiye, near and on borders, ±180): roqua_resolve == Roqua")
    func tenThousandPoints() throws {
        let work = try TempDirectory("roqua-postgis")
        let database = try Bundled.database()
        let script = work.file("boundaries.sql")
        let summary = try BoundaryExporter.export(database: database, format: .postgis, output: script)
        let server = try PostgresServer.start(label: "roqua-postgis")
        defer { server.stop() }
        try server.createDatabase("roqua")
        try server.psql(database: "roqua", ["-f", script])
        let counts = try server.psql(
            database: "roqua", ["-c", "SELECT (SELECT COUNT(*) FROM roqua_boundaries) || '|' || (SELECT COUNT(*) FROM roqua_pieces)"])
        #expect(counts.trimmingCharacters(in: .whitespacesAndNewlines) == "\(summary.boundaries)|\(summary.pieces)")

        let points = try AgreementPoints.make(database: database, count: 10_000)
        #expect(points.count == 10_000)
        let resolver = try Resolver(index: Bundled.index(), fallbackMeters: 0)
        let expected = try points.map { point in
            let answer = try resolver.resolve(latitude: point.lat, longitude: point.lon)
            return [answer.country?.code ?? "", answer.province?.code ?? "", answer.district?.code ?? ""].joined(separator: "|")
        }
        let csv = work.file("points.csv")
        // Swift prints the shortest text that reads back as the same double, so PostgreSQL gets the exact point.
        try points.enumerated().map { "\($0.offset),\($0.element.lon),\($0.element.lat)" }.joined(separator: "\n")
            .write(toFile: csv, atomically: true, encoding: .utf8)
        try server.psql(
            database: "roqua",
            [
                "-c", "CREATE TABLE points (id integer PRIMARY KEY, lon double precision, lat double precision)",
                "-c", "\\copy points FROM '\(csv)' WITH (FORMAT csv)",
            ])
        let output = try server.psql(
            database: "roqua",
            [
                "-c",
                """
                SELECT p.id, r.country_code, r.province_code, r.district_code
                FROM points p, LATERAL roqua_resolve(p.lon, p.lat) r ORDER BY p.id
                """,
            ])
        var answers = [String?](repeating: nil, count: points.count)
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2, let id = Int(fields[0]), answers.indices.contains(id) else { continue }
            answers[id] = String(fields[1])
        }
        let mismatches = points.indices.filter { answers[$0] != expected[$0] }
        #expect(
            mismatches.isEmpty,
            """
            \(mismatches.count) of \(points.count) differ; first: \(mismatches.prefix(8).map {
                "\(points[$0].kind) (\(points[$0].lat), \(points[$0].lon)): Roqua \(expected[$0]), PostGIS \(answers[$0] ?? "none")"
            }.joined(separator: "; "))
            """)
        // The sample reaches what the rules are about: sea, each level, and Türkiye's districts.
        let districts = Set(expected.filter { $0.hasPrefix("TR|") }.map { $0.split(separator: "|").last.map(String.init) ?? "" })
        #expect(expected.filter { $0 == "||" }.count > 1000 && districts.count > 500)
    }
}

/// The seeded sample: uniform on the sphere, uniform in Türkiye's box, near boundary vertices
/// (Türkiye's districts weighted), exactly on vertices of Türkiye's districts (shared borders:
/// the smaller code wins), and on the ±180 meridian.
enum AgreementPoints {
    struct Point {
        var lat: Double
        var lon: Double
        var kind: String
    }

    static func make(database: BoundaryDatabase, count: Int) throws -> [Point] {
        var random = SeededGenerator(state: 17_0003)
        var points: [Point] = []
        for _ in 0..<3_000 {
            let z = Double.random(in: -1...1, using: &random)
            points.append(Point(lat: asin(z) * 180 / .pi, lon: .random(in: -180...180, using: &random), kind: "world"))
        }
        for _ in 0..<2_500 {
            points.append(
                Point(lat: .random(in: 35.8...42.2, using: &random), lon: .random(in: 25.6...44.9, using: &random), kind: "türkiye"))
        }
        for lat in stride(from: -85.0, through: 85.0, by: 10.0) {
            points.append(Point(lat: lat, lon: 180, kind: "meridian"))
            points.append(Point(lat: lat, lon: -180, kind: "meridian"))
        }
        let (turkish, other) = try database.read { db in
            (
                try String.fetchAll(db, sql: "SELECT code FROM boundaries WHERE level = 2 AND country_code = 'TR' ORDER BY code"),
                try String.fetchAll(db, sql: "SELECT code FROM boundaries WHERE country_code <> 'TR' ORDER BY code")
            )
        }
        let context = GEOSContext()
        // Vertices of random boundaries, a few per boundary so that each is read once.
        var remaining = count - points.count
        while remaining > 0 {
            let codes = Double.random(in: 0..<1, using: &random) < 0.7 ? turkish : other
            let code = codes[Int.random(in: 0..<codes.count, using: &random)]
            let geometry = try database.read { db in
                try Data.fetchOne(db, sql: "SELECT geometry FROM boundaries WHERE code = ?", arguments: [code])
            }
            let rings = try context.geometry(wkb: try #require(geometry)).polygonRings().flatMap { $0 }
            for _ in 0..<min(remaining, 10) {
                let ring = rings[Int.random(in: 0..<rings.count, using: &random)]
                let vertex = Int.random(in: 0..<ring.count, using: &random)
                let (x, y) = (ring.xs[vertex], ring.ys[vertex])
                if codes == turkish, Int.random(in: 0..<4, using: &random) == 0 {
                    points.append(Point(lat: y, lon: x, kind: "vertex of \(code)"))
                } else {
                    let reach = [1e-6, 1e-4, 1e-3][Int.random(in: 0..<3, using: &random)]
                    points.append(
                        Point(
                            lat: max(-90, min(90, y + .random(in: -reach...reach, using: &random))),
                            lon: max(-180, min(180, x + .random(in: -reach...reach, using: &random))),
                            kind: "near \(code)"))
                }
                remaining -= 1
            }
        }
        return points
    }
}
