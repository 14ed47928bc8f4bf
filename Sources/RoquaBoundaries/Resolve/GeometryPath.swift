import Foundation

/// The resolver's GEOS path: prepared pieces found through a grid of piece boxes. It answers
/// what the cell index leaves to it — a nearest-unit search beyond the indexed fallback
/// distance or across the antimeridian, leaves marked for it, and the rare point within
/// rounding distance of an edge's line — with the same rules (`AnswerRule`), so both paths
/// give one answer. Tests use it as the reference the cell index must agree with.
final class GeometryPath {
    let index: ResolverIndex
    private let pieces: PieceTable
    private let context = GEOSContext()
    private let cache: PieceCache

    init(index: ResolverIndex, cacheVertices: Int) throws {
        self.index = index
        pieces = try index.pieces()
        cache = try PieceCache(context: context, path: index.database.path, pieces: pieces, vertexBudget: cacheVertices)
    }

    /// The whole answer for `c`, from GEOS alone.
    func placement(_ c: Coordinate, fallbackMeters: Double) throws -> Placement {
        var covering = try self.covering(x: c.longitude, y: c.latitude)
        if covering.isEmpty, abs(c.longitude) == 180 {  // ±180 is one meridian: polygons may stop at either side
            covering = try self.covering(x: -c.longitude, y: c.latitude)
        }
        let units = index.table
        if let best = AnswerRule.best(of: covering, units: units) {
            guard !units.isComplete(best), fallbackMeters > 0 else { return .exact(best) }
            if let (near, meters) = try nearest(
                c, deeperThan: Int(units.level[Int(best)]), country: units.country[Int(best)],
                meters: fallbackMeters)
            {
                return Placement(unit: UnitID(raw: near), approximate: true, distanceMeters: meters)
            }
            return .exact(best)
        }
        guard fallbackMeters > 0, let (near, meters) = try nearest(c, deeperThan: -1, country: -1, meters: fallbackMeters) else {
            return .nowhere
        }
        return Placement(unit: UnitID(raw: near), approximate: true, distanceMeters: meters)
    }

    /// Every unit covering (x, y) (boundary included), each once.
    func covering(x: Double, y: Double) throws -> [Int32] {
        var found: [Int32] = []
        var point: Geometry?
        for piece in pieces.grid.pieces(x: x, y: y) {
            let unit = pieces.pieceUnits[Int(piece)]
            guard !found.contains(unit), pieces.pieceBoxes[Int(piece)].contains(x: x, y: y) else { continue }
            if point == nil { point = try context.point(x: x, y: y) }
            if try cache.piece(piece).covers(point!) { found.append(unit) }
        }
        return found
    }

    /// Whether `unit` covers (x, y).
    func covers(_ unit: Int32, x: Double, y: Double) throws -> Bool {
        let point = try context.point(x: x, y: y)
        for piece in pieces.grid.pieces(x: x, y: y)
        where pieces.pieceUnits[Int(piece)] == unit && pieces.pieceBoxes[Int(piece)].contains(x: x, y: y) {
            if try cache.piece(piece).covers(point) { return true }
        }
        return false
    }

    /// The nearest unit within `meters`, deepest level first (only levels deeper than
    /// `belowLevel`, only units of `country` unless it is -1). A unit's distance is the
    /// great-circle distance to its nearest point in degree space (as GEOS and shapely find
    /// it); ties go to the smaller code. Near ±180 the point is also looked at shifted by 360°.
    func nearest(_ c: Coordinate, deeperThan belowLevel: Int, country: Int32, meters: Double) throws -> (Int32, Double)? {
        let reach = Geodesy.searchRadiusDegrees(meters: meters, latitude: c.latitude)
        var views = [c.longitude]
        if c.longitude - reach < -180 { views.append(c.longitude + 360) }
        if c.longitude + reach > 180 { views.append(c.longitude - 360) }
        let units = index.table
        for level in AdminLevel.deepestFirst where level.rawValue > belowLevel {
            // Per unit: the piece (and view) nearest in degrees, as GEOS's distance to the whole unit.
            var nearestPiece: [Int32: (piece: Int32, x: Double, degrees: Double)] = [:]
            for x in views {
                let box = BoundingBox(minX: x - reach, minY: c.latitude - reach, maxX: x + reach, maxY: c.latitude + reach)
                let point = try context.point(x: x, y: c.latitude)
                for piece in pieces.grid.pieces(in: box) where pieces.pieceLevels[Int(piece)] == level {
                    let unit = pieces.pieceUnits[Int(piece)]
                    guard pieces.pieceBoxes[Int(piece)].intersects(box), country < 0 || units.country[Int(unit)] == country else {
                        continue
                    }
                    let degrees = try cache.piece(piece).geometry.distance(to: point)
                    if let known = nearestPiece[unit], known.degrees <= degrees { continue }
                    nearestPiece[unit] = (piece, x, degrees)
                }
            }
            var best: (unit: Int32, meters: Double)?
            for (unit, found) in nearestPiece {
                let near = try cache.piece(found.piece).geometry.nearestPoint(to: context.point(x: found.x, y: c.latitude))
                let distance = Geodesy.haversineMeters(c, Coordinate(latitude: near.y, longitude: near.x))
                guard distance <= meters else { continue }
                if let b = best, b.meters < distance || (b.meters == distance && units.codeRank[Int(b.unit)] <= units.codeRank[Int(unit)]) {
                    continue
                }
                best = (unit, distance)
            }
            if let best { return best }
        }
        return nil
    }
}
