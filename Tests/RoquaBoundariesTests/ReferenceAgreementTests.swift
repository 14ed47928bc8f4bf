import Foundation
import RoquaBoundaries
import RoquaTestSupport
import Testing

/// 10,000 random points answered by shapely/GEOS over the full boundary polygons of the same DB
/// (scripts/data/reference_points.py); the resolver must agree on every one.
@Suite struct ReferenceAgreementTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/reference-10k.csv").path

    @Test func agreesWithShapelyOnTenThousandRandomPoints() throws {
        let lines = try String(contentsOfFile: Self.fixture, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "lat,lon,country,province,district,approximate")
        let rows = lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(rows.count == 10_000)
        let resolver = try Resolver(index: Bundled.index())
        var disagreements: [String] = []
        for row in rows {
            let answer = try resolver.resolve(latitude: try #require(Double(row[0])), longitude: try #require(Double(row[1])))
            let got = [answer.country?.code ?? "", answer.province?.code ?? "", answer.district?.code ?? "", String(answer.approximate)]
            if got != Array(row[2...5]) {
                disagreements.append(
                    "\(row[0]),\(row[1]): expected \(row[2...5].joined(separator: "/")), got \(got.joined(separator: "/"))")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, first: \(disagreements.prefix(5))")
    }
}
