import Foundation
import RoquaIO
import RoquaRegions
import RoquaServeInput
import Synchronization

/// What the page's fog needs for the part of the map it shows: the visited regions' circles in
/// the view, thinned to what can be seen at its zoom, so a store of a million regions sends a few
/// hundred kilobytes instead of 300 MB of GeoJSON.
///
/// Thinning works in Web Mercator pixels at the zoom asked for (256 · 2^zoom across the world, as
/// Leaflet draws): a circle is kept unless one already kept lies in the same cell of a grid of
/// `grid` pixels with a radius in the same power of two (the page draws a circle at least 1 px
/// wide, so at the starting half-pixel grid a dropped circle is hidden by the one kept, moved by
/// at most 0.71 px). When more than `maxCircles` would still be sent, the grid doubles until they
/// fit, and the answer says so (`grid`).
package struct FogLayer: OrderedJSON, Sendable {
    /// A circle as sent: centre and radius in metres.
    package struct Circle: Sendable, Equatable {
        package var longitude: Double
        package var latitude: Double
        package var radius: Int
    }

    /// The view: zoom 0…24 and a box in degrees, west ≤ east (longitudes run past ±180 in a view
    /// across the antimeridian, as Leaflet gives them).
    package struct View: Sendable {
        package var zoom: Int
        package var west: Double, south: Double, east: Double, north: Double

        func contains(_ circle: Circle) -> Bool {
            // A circle reaching into the box counts: the box grown by the radius (in latitude degrees;
            // longitude degrees are wider, by 1/cos φ, so grow those as at the box's widest latitude).
            let margin = Double(circle.radius) / 111_320
            guard circle.latitude >= south - margin, circle.latitude <= north + margin else { return false }
            if east - west >= 360 { return true }
            let widest = max(abs(south), abs(north))
            let lonMargin = widest >= 89 ? 360 : margin / cos(widest * .pi / 180)
            let from = west - lonMargin, span = east - west + 2 * lonMargin
            if span >= 360 { return true }
            let offset = (circle.longitude - from).truncatingRemainder(dividingBy: 360)
            return (offset < 0 ? offset + 360 : offset) <= span
        }
    }

    /// Circles sent at most.
    package static let maxCircles = 60_000

    /// The layer: circles, the regions in the view they stand for, and the grid they were thinned at.
    package var circles: [Circle]
    package var regionsInView: Int
    package var grid: Double

    /// Thins `all` (in id order) for `view`; the first circle of each cell stays, so the answer
    /// does not depend on anything but the store and the view.
    package init(_ all: [Circle], view: View, maxCircles: Int = FogLayer.maxCircles) {
        let scale = 256 * pow(2, Double(view.zoom))
        var inView: [(circle: Circle, x: Double, y: Double, size: Int)] = []
        for circle in all where view.contains(circle) {
            let tiles = Tile.position(latitude: circle.latitude, longitude: circle.longitude, zoom: view.zoom)
            // Metres per pixel at this latitude and zoom (the page's own conversion, near enough).
            let φ = min(max(circle.latitude, -85.051_128_78), 85.051_128_78) * .pi / 180
            let pixels = Double(circle.radius) / (40_075_016.686 * cos(φ) / scale)
            inView.append((circle, tiles.x * 256, tiles.y * 256, pixels <= 1 ? 0 : Int(log2(pixels)) + 1))
        }
        regionsInView = inView.count
        var grid = 0.5
        while true {
            var seen = Set<SIMD3<Int64>>()
            var kept: [Circle] = []
            for item in inView
            where seen.insert(
                SIMD3(
                    Int64((item.x / grid).rounded(.down)), Int64((item.y / grid).rounded(.down)),
                    Int64(item.size))
            ).inserted {
                kept.append(item.circle)
                if kept.count > maxCircles { break }
            }
            if kept.count <= maxCircles {
                circles = kept
                self.grid = grid
                return
            }
            grid *= 2
        }
    }

    /// `{"grid":G,"regions_in_view":N,"circles":[[lon,lat,radius],…]}`, coordinates to 1e-5°.
    package func encode(to encoder: any Encoder) throws {
        var layer = encoder.container(keyedBy: JSONKey.self)
        try layer.encode(grid, forKey: "grid")
        try layer.encode(regionsInView, forKey: "regions_in_view")
        var list = layer.nestedUnkeyedContainer(forKey: "circles")
        for circle in circles {
            var triple = list.nestedUnkeyedContainer()
            try triple.encode(JSONNumber(text: Self.degrees(circle.longitude)))
            try triple.encode(JSONNumber(text: Self.degrees(circle.latitude)))
            try triple.encode(circle.radius)
        }
    }

    private static func degrees(_ value: Double) -> String {
        let scaled = (value * 100_000).rounded()
        let whole = Int64(scaled)
        let sign = whole < 0 ? "-" : ""
        let magnitude = whole.magnitude
        let fraction = String(magnitude % 100_000)
        return sign + String(magnitude / 100_000) + "." + String(repeating: "0", count: 5 - fraction.count) + fraction
    }
}

extension FogLayer.View {
    /// Reads `zoom` and `bbox=west,south,east,north` (Leaflet's `toBBoxString()`); longitudes
    /// beyond ±180 (a view across the antimeridian) are taken modulo 360.
    /// - Throws: `APIError.badRequest` naming the parameter.
    init(_ query: QueryParameters) throws(APIError) {
        guard let text = query["zoom"], let zoom = Int(text), (0...24).contains(zoom) else {
            throw .badRequest("zoom must be an integer 0…24")
        }
        let parts = (query["bbox"] ?? "").split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
        guard parts.count == 4, parts.allSatisfy(\.isFinite), parts[1] <= parts[3], parts[0] <= parts[2],
            (-90...90).contains(parts[1]), (-90...90).contains(parts[3])
        else {
            throw .badRequest("bbox must be west,south,east,north in degrees (south ≤ north, west ≤ east)")
        }
        self.init(zoom: zoom, west: parts[0], south: parts[1], east: parts[2], north: parts[3])
    }
}

/// The circles of every region (`RegionStore.circles()`), read once per change of the store (its
/// change mark): the page asks for the fog at each pan and zoom.
final class FogCircles: Sendable {
    private let cached = Mutex<(mark: String, circles: [FogLayer.Circle])?>(nil)

    func circles(_ store: RegionStore) throws -> [FogLayer.Circle] {
        let mark = try store.changeMark()
        if let hit = cached.withLock({ $0 }), hit.mark == mark { return hit.circles }
        let circles = try store.circles().map { FogLayer.Circle(longitude: $0.longitude, latitude: $0.latitude, radius: $0.radius) }
        cached.withLock { $0 = (mark, circles) }
        return circles
    }
}
