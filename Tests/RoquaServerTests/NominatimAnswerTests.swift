import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaServeInput
import RoquaTestSupport
import Testing

@testable import RoquaServer

/// `NominatimAnswer` writes itself into the encoder's buffer on `/reverse`'s hot path; its
/// `encode(to:)` is the reference. Both must give the same bytes for every format and option.
@Suite struct NominatimAnswerTests {
    static func text(_ answer: NominatimAnswer, direct: Bool) throws -> String {
        String(decoding: try OrderedJSONEncoder(direct: direct).encode(answer), as: UTF8.self)
    }

    @Test func writtenDirectlyAsThroughTheEncodersContainers() throws {
        let formatter = NominatimFormatter(catalog: try UnitCatalog(database: Bundled.database()))
        let index = try Bundled.index()
        let resolver = try Resolver(index: index)
        var generator = SeededGenerator(state: 53)
        var points: [(Double, Double)] = [
            (40.9879, 29.0281), (52.52, 13.405), (0, -30), (41.0224, 28.6757), (-33.9249, 18.4241),
            (52.43, 13.23), (45.75, 14.4), (64.1466, -21.9426),
        ]
        for _ in 0..<60 {
            points.append((Double.random(in: -60...75, using: &generator), Double.random(in: -180...180, using: &generator)))
        }
        var compared = 0, kinds = Set<String>()
        for (lat, lon) in points {
            for options in [
                "format=json", "format=jsonv2&accept-language=en", "format=geojson&zoom=8", "format=geocodejson",
                "format=geocodejson&addressdetails=0&zoom=5", "format=jsonv2&zoom=3&accept-language=tr",
                "format=geojson&addressdetails=0",
            ] {
                let request = try NominatimRequest(QueryParameters("lat=\(lat)&lon=\(lon)&\(options)"), acceptLanguage: nil)
                var resolution = try resolver.resolve(request.coordinate)
                if request.deepestLevel == .district { resolution = try index.withLocality(resolution) }
                let answer = formatter.document(resolution, request)
                kinds.insert(String(describing: answer).prefix(while: { $0 != "(" }).description)
                #expect(try Self.text(answer, direct: true) == Self.text(answer, direct: false), "\(lat),\(lon) \(options)")
                compared += 1
            }
        }
        #expect(compared == points.count * 7)
        #expect(kinds == ["place", "geoJSON", "geocodeJSON", "unableToGeocode"], "\(kinds)")
    }

    /// Names that need escaping, and keys that are data, come out alike too.
    @Test func escapedTextAndDataKeysAlike() throws {
        var address = OrderedFields()
        address.append("village", "Quote \" back \\ tab\t")
        address.append("key \"quoted\"", "\u{1}")
        let summary = NominatimAnswer.Summary(
            placeID: 7, licence: "L/\"icence\"", rank: 8, addressType: "state", name: "N\nname",
            displayName: "D, İ, Ü", address: address, latitude: "-0.5000000", longitude: "179.9999999")
        let answers: [NominatimAnswer] = [
            .place(.init(summary: summary, categoryKey: "category", boundingBox: ["1", "2", "3", "4"])),
            .geoJSON(.init(summary: summary, bbox: [-180, -0.5, 1e-05, 40.0])),
            .geocodeJSON(.init(summary: summary, query: "1.5,2.0", type: "state", details: address, admin: OrderedFields())),
            .geocodeJSON(.init(summary: summary, query: "1.5,2.0", type: "state", details: nil, admin: nil)),
            .unableToGeocode,
        ]
        for answer in answers {
            let direct = try Self.text(answer, direct: true)
            #expect(direct == (try Self.text(answer, direct: false)))
            #expect((try? JSONSerialization.jsonObject(with: Data(direct.utf8))) != nil, "\(direct)")
        }
        #expect(throws: EncodingError.self) {
            _ = try OrderedJSONEncoder().encode(NominatimAnswer.geoJSON(.init(summary: summary, bbox: [.nan, 0, 0, 0])))
        }
    }
}
