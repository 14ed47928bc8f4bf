import CGEOS
import Foundation

/// A GEOS geometry owned by one context. Not Sendable: pass `wkb()` bytes between threads.
package final class Geometry {
    package let context: GEOSContext
    let pointer: OpaquePointer
    private var handle: OpaquePointer { context.handle }

    init(context: GEOSContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit { GEOSGeom_destroy_r(handle, pointer) }

    package func isValid() throws -> Bool { try context.truth(GEOSisValid_r(handle, pointer), "isValid") }

    package var invalidityReason: String {
        guard let reason = GEOSisValidReason_r(handle, pointer) else { return "unknown" }
        defer { GEOSFree_r(handle, reason) }
        return String(cString: reason)
    }

    /// GEOS's repair, keeping only the polygonal parts (collapsed pieces become lines and points).
    package func madeValid() throws -> Geometry {
        let repaired = try context.own(GEOSMakeValid_r(handle, pointer), "makeValid")
        return try repaired.polygonalParts()
    }

    /// The polygons inside this geometry, as one polygon or multipolygon.
    package func polygonalParts() throws -> Geometry {
        let type = GEOSGeomTypeId_r(handle, pointer)
        if type == Int32(GEOS_POLYGON.rawValue) || type == Int32(GEOS_MULTIPOLYGON.rawValue) { return self }
        var parts: [OpaquePointer?] = []
        collectPolygons(pointer, into: &parts)
        let collection = parts.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))
        }
        return try context.own(collection, "createCollection")
    }

    private func collectPolygons(_ geometry: OpaquePointer, into parts: inout [OpaquePointer?]) {
        let type = GEOSGeomTypeId_r(handle, geometry)
        if type == Int32(GEOS_POLYGON.rawValue) {
            parts.append(GEOSGeom_clone_r(handle, geometry))
        } else if type == Int32(GEOS_MULTIPOLYGON.rawValue) || type == Int32(GEOS_GEOMETRYCOLLECTION.rawValue) {
            for i in 0..<GEOSGetNumGeometries_r(handle, geometry) {
                if let child = GEOSGetGeometryN_r(handle, geometry, i) { collectPolygons(child, into: &parts) }
            }
        }
    }

    package var isEmpty: Bool { GEOSisEmpty_r(handle, pointer) == 1 }
    package var coordinateCount: Int { Int(GEOSGetNumCoordinates_r(handle, pointer)) }
    package var partCount: Int { Int(GEOSGetNumGeometries_r(handle, pointer)) }

    package func area() throws -> Double {
        var value = 0.0
        guard GEOSArea_r(handle, pointer, &value) == 1 else { throw context.failure("area") }
        return value
    }

    package func bounds() throws -> BoundingBox {
        var box = BoundingBox(minX: 0, minY: 0, maxX: 0, maxY: 0)
        guard GEOSGeom_getXMin_r(handle, pointer, &box.minX) == 1, GEOSGeom_getYMin_r(handle, pointer, &box.minY) == 1,
            GEOSGeom_getXMax_r(handle, pointer, &box.maxX) == 1, GEOSGeom_getYMax_r(handle, pointer, &box.maxY) == 1
        else { throw context.failure("bounds") }
        return box
    }

    /// Fast rectangle clip (may be slightly invalid where the input is); see `intersection` for the robust one.
    package func clipped(to box: BoundingBox) throws -> Geometry {
        try context.own(GEOSClipByRect_r(handle, pointer, box.minX, box.minY, box.maxX, box.maxY), "clipByRect")
    }

    package func intersection(_ other: Geometry) throws -> Geometry {
        try context.own(GEOSIntersection_r(handle, pointer, other.pointer), "intersection")
    }

    package func difference(_ other: Geometry) throws -> Geometry {
        try context.own(GEOSDifference_r(handle, pointer, other.pointer), "difference")
    }

    package func covers(_ other: Geometry) throws -> Bool {
        try context.truth(GEOSCovers_r(handle, pointer, other.pointer), "covers")
    }

    /// The point of this geometry nearest to `other` (in degree space), as (x, y). Unprepared on
    /// purpose: a prepared one would build and keep a second index per piece for a rare path.
    package func nearestPoint(to other: Geometry) throws -> (x: Double, y: Double) {
        guard let sequence = GEOSNearestPoints_r(handle, pointer, other.pointer) else {
            throw context.failure("nearestPoints")
        }
        defer { GEOSCoordSeq_destroy_r(handle, sequence) }
        var x = 0.0, y = 0.0
        guard GEOSCoordSeq_getXY_r(handle, sequence, 0, &x, &y) == 1 else { throw context.failure("coordSeq_getXY") }
        return (x, y)
    }

    package func distance(to other: Geometry) throws -> Double {
        var value = 0.0
        guard GEOSDistance_r(handle, pointer, other.pointer, &value) == 1 else { throw context.failure("distance") }
        return value
    }

    /// A point guaranteed to lie inside the geometry, as (x, y).
    package func pointOnSurface() throws -> (x: Double, y: Double) {
        let point = try context.own(GEOSPointOnSurface_r(handle, pointer), "pointOnSurface")
        var x = 0.0, y = 0.0
        guard GEOSGeomGetX_r(handle, point.pointer, &x) == 1, GEOSGeomGetY_r(handle, point.pointer, &y) == 1 else {
            throw context.failure("pointOnSurface")
        }
        return (x, y)
    }

    package func wkb() throws -> Data {
        guard let writer = GEOSWKBWriter_create_r(handle) else { throw context.failure("WKBWriter") }
        defer { GEOSWKBWriter_destroy_r(handle, writer) }
        var size = 0
        guard let bytes = GEOSWKBWriter_write_r(handle, writer, pointer, &size) else {
            throw context.failure("WKB write")
        }
        defer { GEOSFree_r(handle, bytes) }
        return Data(bytes: bytes, count: size)
    }

    package func prepared() throws -> PreparedGeometry {
        guard let prepared = GEOSPrepare_r(handle, pointer) else { throw context.failure("prepare") }
        return PreparedGeometry(geometry: self, pointer: prepared)
    }
}

/// A prepared geometry: builds its index lazily on first use; not thread-safe.
package final class PreparedGeometry {
    package let geometry: Geometry
    let pointer: OpaquePointer
    private var handle: OpaquePointer { geometry.context.handle }

    init(geometry: Geometry, pointer: OpaquePointer) {
        self.geometry = geometry
        self.pointer = pointer
    }

    deinit { GEOSPreparedGeom_destroy_r(handle, pointer) }

    /// True when the point lies inside or on the boundary.
    package func covers(_ point: Geometry) throws -> Bool {
        try geometry.context.truth(GEOSPreparedCovers_r(handle, pointer, point.pointer), "preparedCovers")
    }

    package func intersects(_ other: Geometry) throws -> Bool {
        try geometry.context.truth(GEOSPreparedIntersects_r(handle, pointer, other.pointer), "preparedIntersects")
    }

    package func contains(_ point: Geometry) throws -> Bool {
        try geometry.context.truth(GEOSPreparedContains_r(handle, pointer, point.pointer), "preparedContains")
    }
}
