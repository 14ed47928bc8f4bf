import Foundation
import RoquaBoundaries

/// A small part of a boundary's polygon, as stored in `pieces` (boxes also in the R*Tree).
package struct Piece: Sendable {
    package var box: BoundingBox
    package var vertexCount: Int
    package var wkb: Data
}

/// Splits big polygons into pieces of at most `maxVertices` vertices by cutting their box in
/// half, again and again (as PostGIS `ST_Subdivide` does). Prepared point-in-polygon on a
/// 300-vertex piece is several times faster than on a 100k-vertex coastline, and the resolver's
/// in-memory grid of piece boxes rejects most pieces before GEOS is asked at all (the R*Tree in
/// the file serves other SQL readers).
package enum Subdivider {
    /// Pieces have at most `maxVertices` vertices and span at most `maxDegrees` either way: a
    /// small box keeps the grid cells' candidate lists short and rejects more points early.
    package static func pieces(of geometry: Geometry, maxVertices: Int, maxDegrees: Double) throws -> [Piece] {
        var result: [Piece] = []
        try split(geometry, box: geometry.bounds(), limits: (maxVertices, maxDegrees), depth: 0, into: &result)
        return result
    }

    private static func split(
        _ geometry: Geometry, box: BoundingBox, limits: (vertices: Int, degrees: Double), depth: Int,
        into result: inout [Piece]
    ) throws {
        let vertices = geometry.coordinateCount
        let small = vertices <= limits.vertices && box.width <= limits.degrees && box.height <= limits.degrees
        // Depth 40 halves a 360° box to ~3e-10°: below that, cutting can no longer make pieces smaller.
        if small || depth >= 40 {
            result.append(Piece(box: try geometry.bounds(), vertexCount: vertices, wkb: try geometry.wkb()))
            return
        }
        let (first, second) = box.halves()
        for half in [first, second] {
            // The fast clip can fail where the input is barely valid (a repaired star: "Invalid
            // number of points in LinearRing found 3") or be slightly invalid; the overlay then.
            let clipped = try? geometry.clipped(to: half).polygonalParts()
            if let clipped, clipped.isEmpty { continue }
            let part =
                try clipped.flatMap { try $0.isValid() ? $0 : nil }
                ?? geometry.intersection(geometry.context.rectangle(half)).polygonalParts()
            if part.isEmpty { continue }
            try split(part, box: try part.bounds(), limits: limits, depth: depth + 1, into: &result)
        }
    }
}
