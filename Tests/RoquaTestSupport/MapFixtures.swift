import Foundation
import GRDB
import RoquaBoundaries
import RoquaMaps
import RoquaRegions

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Visits with known answers over the real bundled boundaries: 8 İstanbul districts (Kadıköy
/// twice), one region in Ankara (outside İstanbul's map) and one in Athens.
package enum MapFixtures {
    package static let places: [(latitude: Double, longitude: Double, radius: Int)] = [
        (41.0086, 28.9802, 900), (41.0256, 28.9742, 700), (41.0602, 28.9877, 800), (41.0430, 29.0070, 600),  // Fatih Beyoğlu Şişli Beşiktaş
        // Üsküdar Kadıköy Ataşehir Bakırköy
        (41.0255, 29.0156, 1200), (40.9879, 29.0281, 1500), (40.9923, 29.1244, 1000), (40.9800, 28.8720, 1300),
        (40.9700, 29.0600, 800),  // Kadıköy again
        (39.9208, 32.8541, 700),  // Ankara, Çankaya
        (37.9838, 23.7275, 500),  // Athens
    ]
    package static let istanbulRegions = 9
    package static let visitedIstanbulDistricts: Set<String> = [
        "TUR034020", "TUR034013", "TUR034035", "TUR034010",
        "TUR034038", "TUR034023", "TUR034003", "TUR034007",
    ]
    package static let start = Date(timeIntervalSince1970: 1_714_550_400)  // 2024-05-01T08:00:00Z

    /// The fixture's regions, enriched with the bundled boundaries, one day apart.
    package static func regions() throws -> [VisitedRegion] {
        let enricher = try RegionEnricher(boundaries: Bundled.path())
        return try places.enumerated().map { i, p in
            try enricher.enriched(
                VisitedRegion(
                    latitude: p.latitude, longitude: p.longitude, radius: p.radius,
                    timestampStart: start.addingTimeInterval(Double(i) * 86_400), geohash: ""))
        }
    }

    /// A region store holding `regions()`, in `directory`.
    package static func store(in directory: TempDirectory) throws -> String {
        let path = directory.file("regions.sqlite")
        let store = try RegionStore(path: path)
        let regions = try regions()
        try store.write { db in
            for r in regions {
                try VisitedRegion(
                    latitude: r.latitude, longitude: r.longitude, radius: r.radius, timestampStart: r.timestampStart,
                    province: r.province, district: r.district, country: r.country, countryCode: r.countryCode,
                    provinceCode: r.provinceCode, districtCode: r.districtCode, geohash: "", lastVisit: r.lastVisit
                ).insert(db)
            }
        }
        return path
    }

    package static func renderer() throws -> MapRenderer { try MapRenderer(database: Bundled.database()) }
}

/// An element of a parsed SVG: its name, attributes and the ids of the groups around it.
package struct SVGElement {
    package var name: String
    package var attributes: [String: String]
    package var groups: [String]
    package var classes: Set<String> { Set((attributes["class"] ?? "").split(separator: " ").map(String.init)) }
}

/// Parses SVG text with Foundation's XMLParser; nil when it is not well-formed XML.
package final class SVGDocument: NSObject, XMLParserDelegate {
    package private(set) var elements: [SVGElement] = []
    private var groups: [String] = []
    private var open: [String] = []

    package static func parse(_ text: String) -> SVGDocument? {
        let document = SVGDocument()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = document
        return parser.parse() ? document : nil
    }

    package func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elements.append(SVGElement(name: name, attributes: attributes, groups: groups))
        open.append(name)
        if name == "g" { groups.append(attributes["id"] ?? attributes["class"] ?? "") }
    }

    package func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if open.popLast() == "g" { groups.removeLast() }
    }

    /// Unit shapes: paths in the `units` group.
    package var units: [SVGElement] { elements.filter { $0.name == "path" && $0.groups.contains("units") } }
    package var fogCircles: [SVGElement] { elements.filter { $0.name == "circle" && $0.groups.contains("fog") } }
    package func unit(_ code: String) -> SVGElement? { units.first { $0.attributes["data-code"] == code } }
}

/// A pixel point on the half-pixel grid, in half pixels (exact).
package struct HalfPixel: Hashable {
    package var x: Int
    package var y: Int
    package init(_ x: Double, _ y: Double) {
        self.x = Int((x * 2).rounded())
        self.y = Int((y * 2).rounded())
    }
}

/// The rings of SVG path data made of `M x y l dx dy … z`, in absolute pixels.
package func pathRings(_ d: String) -> [[(x: Double, y: Double)]] {
    var rings: [[(x: Double, y: Double)]] = []
    var command: Character = "M"
    var numbers: [Double] = []
    var token = ""
    var x = 0.0, y = 0.0
    func flushNumber() {
        if !token.isEmpty, let value = Double(token) { numbers.append(value) }
        token = ""
    }
    func flushCommand() {
        flushNumber()
        var i = 0
        while i + 1 < numbers.count {
            if command == "M" {
                (x, y) = (numbers[i], numbers[i + 1])
                rings.append([(x, y)])
                command = "L"
            } else {
                if command == "l" { (x, y) = (x + numbers[i], y + numbers[i + 1]) } else { (x, y) = (numbers[i], numbers[i + 1]) }
                rings[rings.count - 1].append((x, y))
            }
            i += 2
        }
        numbers = []
    }
    for c in d {
        if c.isLetter {
            flushCommand()
            command = c
        } else if c == "-" {
            flushNumber()
            token = "-"
        } else if c == " " || c == "," {
            flushNumber()
        } else {
            token.append(c)
        }
    }
    flushCommand()
    return rings
}

/// Distance from a point to a ring's outline, pixels.
package func distance(from p: (x: Double, y: Double), toOutline ring: [(x: Double, y: Double)]) -> Double {
    var best = Double.infinity
    for i in 0..<ring.count {
        let a = ring[i], b = ring[(i + 1) % ring.count]
        let dx = b.x - a.x, dy = b.y - a.y
        let t = dx == 0 && dy == 0 ? 0 : max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy)))
        best = min(best, hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy)))
    }
    return best
}
