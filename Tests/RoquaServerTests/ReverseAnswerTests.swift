import Foundation
import Testing

/// What clients read from every `/reverse` answer without checking: the `boundingbox` and the
/// locality under the address key of its size.
@Suite struct ReverseAnswerTests {
    func address(_ object: [String: Any]) -> [String: String] { object["address"] as? [String: String] ?? [:] }

    static let points: [(Double, Double)] = [
        (40.9879, 29.0281), (39.9251, 32.8369), (41.0224, 28.6757), (37.8746, 32.4932), (-33.9249, 18.4241),
        (52.5200, 13.4050), (52.4300, 13.2300), (35.6895, 139.6917), (-22.9068, -43.1729), (40.7128, -74.0060),
        (64.1466, -21.9426), (-41.2865, 174.7762), (1.3521, 103.8198), (30.0444, 31.2357), (-77.8460, 166.6760),
    ]

    /// geopy and Ruby's geocoder read `boundingbox` unchecked: in json and jsonv2 at every zoom,
    /// four numbers as strings (south, north, west, east) around the point asked.
    @Test(arguments: ["json", "jsonv2"]) func everyAnswerHasABoxAroundThePoint(format: String) async throws {
        let server = try await SharedServer.get()
        var answered = 0
        for (lat, lon) in Self.points {
            for zoom in [3, 6, 10, 18] {
                let object = try await server.get("/reverse?lat=\(lat)&lon=\(lon)&format=\(format)&zoom=\(zoom)").object()
                guard object["error"] == nil else { continue }
                answered += 1
                let box = (object["boundingbox"] as? [String])?.compactMap(Double.init) ?? []
                #expect(box.count == 4, "\(lat),\(lon) zoom \(zoom): \(object)")
                guard box.count == 4 else { continue }
                #expect(
                    box[0] <= lat + 1e-6 && lat - 1e-6 <= box[1] && box[2] <= lon + 1e-6 && lon - 1e-6 <= box[3],
                    "\(lat),\(lon) zoom \(zoom): \(box)")
            }
        }
        #expect(answered >= 4 * (Self.points.count - 1), "\(answered) answers")
    }

    /// A name is said once: Esenyurt the district is Esenyurt the city (the town of the address,
    /// no repeated name in the display); Berlin the province is also the city, which the address
    /// names as Nominatim does; Zehlendorf, a locality of Berlin, leads the display name.
    @Test func aLocalityNamedLikeItsUnitIsNamedOnce() async throws {
        let server = try await SharedServer.get()
        let esenyurt = try await server.get("/reverse?lat=41.0224&lon=28.6757&format=jsonv2").object()
        #expect(esenyurt["display_name"] as? String == "Esenyurt, İstanbul, Türkiye", "\(esenyurt)")
        #expect(
            address(esenyurt) == [
                "town": "Esenyurt", "province": "İstanbul", "ISO3166-2-lvl4": "TR-34",
                "country": "Türkiye", "country_code": "tr",
            ])
        let berlin = try await server.get("/reverse?lat=52.52&lon=13.405&format=json&accept-language=en").object()
        #expect(berlin["display_name"] as? String == "Berlin, Germany", "\(berlin)")
        #expect(address(berlin)["city"] == "Berlin" && address(berlin)["state"] == "Berlin", "\(berlin)")
        let zehlendorf = try await server.get("/reverse?lat=52.43&lon=13.23&format=json&accept-language=en").object()
        #expect(zehlendorf["display_name"] as? String == "Zehlendorf, Berlin, Germany", "\(zehlendorf)")
        #expect(
            address(zehlendorf).contains { ["city", "town", "village"].contains($0.key) && $0.value == "Zehlendorf" },
            "\(zehlendorf)")
    }
}
