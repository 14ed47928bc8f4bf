import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaMaps

typealias GridPoint = PathEncoder.GridPoint

/// Display simplification that keeps shared borders shared: each vertex is snapped to a grid of
/// `step` in the page's own projection (Web Mercator, its y in degrees of the equator's scale),
/// consecutive duplicates and points strictly between their two neighbours on a straight line are
/// dropped. Every decision depends only on a vertex and its neighbours, so two units' common
/// border comes out identical on both sides (no gaps, no slivers), with the same thinning as
/// `RoquaMaps`' path encoder for SVG pixels. A grid in plain degrees drew stairs at high
/// latitudes, where Mercator stretches a degree of latitude (×3.9 at Greenland's 75° N).
struct ShapeSimplifier {
    /// Grid step in degrees of longitude (and of Mercator y at the same scale).
    let step: Double
    /// Mercator's y is unbounded at the poles: Leaflet's map ends here.
    static let maximumLatitude = 85.0511287798

    /// The step for drawing a box on a screen about 1,500 pixels across: finer for İstanbul than for the world.
    init(fitting box: BoundingBox) {
        let span = max(box.width, Self.mercatorY(box.maxY) - Self.mercatorY(box.minY), 0.01)
        step = Self.niceStep(span / 1500)
    }

    init(step: Double) {
        self.step = step
    }

    /// A power of ten times 1, 2 or 5, so the coordinates print short.
    static func niceStep(_ value: Double) -> Double {
        let power = pow(10, floor(log10(value)))
        for factor in [1.0, 2, 5] where value <= factor * power { return factor * power }
        return 10 * power
    }

    /// The ring in grid units, closed implicitly, or nil when less than a triangle is left.
    func ring(_ ring: Ring) -> [GridPoint]? {
        var points: [GridPoint] = []
        points.reserveCapacity(ring.count)
        for i in 0..<ring.count {
            let p = GridPoint(x: Int((ring.xs[i] / step).rounded()), y: Int((Self.mercatorY(ring.ys[i]) / step).rounded()))
            if points.last != p { points.append(p) }
        }
        return PathEncoder.thinned(points)
    }

    /// GeoJSON `coordinates` of a MultiPolygon (holes kept only with their shell), or nil when
    /// nothing is left at this scale.
    func multiPolygonCoordinates(_ polygons: [[Ring]]) -> GridCoordinates? {
        var kept: [[[GridPoint]]] = []
        for polygon in polygons {
            guard let shell = polygon.first, let shellPoints = ring(shell) else { continue }
            kept.append([shellPoints] + polygon.dropFirst().compactMap(ring))
        }
        return kept.isEmpty ? nil : GridCoordinates(polygons: kept, simplifier: self)
    }

    /// MultiPolygon `coordinates` of the grid cell at the centre of `box`: a unit too small for
    /// this scale (a city state on the world map) still shows, and can be hovered, as a dot.
    func marker(_ box: BoundingBox) -> GridCoordinates {
        let x = Int(((box.minX + box.maxX) / 2 / step).rounded(.down))
        let y = Int((Self.mercatorY((box.minY + box.maxY) / 2) / step).rounded(.down))
        let cell = [GridPoint(x: x, y: y), GridPoint(x: x + 1, y: y), GridPoint(x: x + 1, y: y + 1), GridPoint(x: x, y: y + 1)]
        return GridCoordinates(polygons: [[cell]], simplifier: self)
    }

    /// Grid units in degrees, printed with only the decimals the step has.
    func number(_ units: Int) -> String {
        TextValues.fixed(Double(units) * step, decimals: decimals)
    }

    /// A grid row as latitude: off the grid in degrees, so one decimal more than the step (a
    /// tenth of a grid cell at the equator, a sixth at 80°: well under a pixel either way).
    func latitude(_ units: Int) -> String {
        TextValues.fixed(Self.latitude(mercatorY: Double(units) * step), decimals: decimals + 1)
    }

    private var decimals: Int { max(0, Int(-floor(log10(step)))) }

    /// Web Mercator's y of a latitude, in degrees (equal to the longitude's scale at the equator).
    static func mercatorY(_ latitude: Double) -> Double {
        let φ = min(maximumLatitude, max(-maximumLatitude, latitude)) * .pi / 180
        return log(tan(.pi / 4 + φ / 2)) * 180 / .pi
    }

    static func latitude(mercatorY y: Double) -> Double {
        (2 * atan(exp(y * .pi / 180)) - .pi / 2) * 180 / .pi
    }
}

/// A MultiPolygon's GeoJSON `coordinates` on a `ShapeSimplifier`'s grid: each ring closed (its
/// first point again at the end), longitude with the step's decimals, latitude with one more.
struct GridCoordinates: Encodable {
    var polygons: [[[GridPoint]]]
    let simplifier: ShapeSimplifier

    func encode(to encoder: any Encoder) throws {
        var multiPolygon = encoder.unkeyedContainer()
        for polygon in polygons {
            var rings = multiPolygon.nestedUnkeyedContainer()
            for ring in polygon {
                var points = rings.nestedUnkeyedContainer()
                for p in ring + ring.prefix(1) {
                    var pair = points.nestedUnkeyedContainer()
                    try pair.encode(JSONNumber(text: simplifier.number(p.x)))
                    try pair.encode(JSONNumber(text: simplifier.latitude(p.y)))
                }
            }
        }
    }
}
