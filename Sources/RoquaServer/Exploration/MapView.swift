import Foundation
import RoquaBoundaries

/// Where the page opens (`GET /api/view`): the box of every visited region, and the deepest unit
/// that holds them all and has children to draw (İstanbul's districts for a walk in İstanbul,
/// Türkiye's provinces for a trip across it). An empty store opens on the whole world.
struct MapView: Codable, Sendable, Equatable {
    /// South, west, north, east in degrees (each region's circle included); nil for an empty store.
    var bounds: [Double]?
    /// The units to drill into, country first (empty: the world).
    var units: [String]

    init(circles: [FogLayer.Circle], visited: Set<String>, hierarchy: BoundaryHierarchy) {
        guard let first = circles.first else {
            (bounds, units) = (nil, [])
            return
        }
        var (south, west, north, east) = (first.latitude, first.longitude, first.latitude, first.longitude)
        for circle in circles {
            let dLat = Double(circle.radius) / 111_320
            let dLon = dLat / max(0.01, cos(circle.latitude * .pi / 180))
            south = min(south, circle.latitude - dLat)
            north = max(north, circle.latitude + dLat)
            west = min(west, circle.longitude - dLon)
            east = max(east, circle.longitude + dLon)
        }
        bounds = [max(-90, south), max(-180, west), min(90, north), min(180, east)]
        units = Self.deepestUnits(visited: visited, hierarchy: hierarchy)
    }

    /// The single visited country, then its single visited province, as long as the unit has
    /// children in the boundary database.
    static func deepestUnits(visited: Set<String>, hierarchy: BoundaryHierarchy) -> [String] {
        var units: [String] = []
        var level = visited.filter { hierarchy.units[$0]?.level == .country }
        while level.count == 1, let only = level.first, let children = hierarchy.children[only], !children.isEmpty {
            units.append(only)
            level = Set(children.filter(visited.contains))
        }
        return units
    }
}
