import CGEOS
import Foundation

extension Geometry {
    /// Every polygon of this geometry as its rings, the shell first and then the holes, each ring
    /// with its coordinates as stored (closed: the first point repeated last). Non-polygonal parts
    /// of a collection are skipped.
    package func polygonRings() throws -> [[Ring]] {
        var polygons: [[Ring]] = []
        try collectRings(pointer, into: &polygons)
        return polygons
    }

    private func collectRings(_ geometry: OpaquePointer, into polygons: inout [[Ring]]) throws {
        let handle = context.handle
        let type = GEOSGeomTypeId_r(handle, geometry)
        if type == Int32(GEOS_POLYGON.rawValue) {
            guard GEOSisEmpty_r(handle, geometry) == 0 else { return }
            guard let shell = GEOSGetExteriorRing_r(handle, geometry) else { throw context.failure("getExteriorRing") }
            var rings = [try ring(shell)]
            let holes = GEOSGetNumInteriorRings_r(handle, geometry)
            guard holes >= 0 else { throw context.failure("getNumInteriorRings") }
            for i in 0..<holes {
                guard let hole = GEOSGetInteriorRingN_r(handle, geometry, i) else { throw context.failure("getInteriorRingN") }
                rings.append(try ring(hole))
            }
            polygons.append(rings)
        } else if type == Int32(GEOS_MULTIPOLYGON.rawValue) || type == Int32(GEOS_GEOMETRYCOLLECTION.rawValue) {
            for i in 0..<GEOSGetNumGeometries_r(handle, geometry) {
                if let child = GEOSGetGeometryN_r(handle, geometry, i) { try collectRings(child, into: &polygons) }
            }
        }
    }

    private func ring(_ ring: OpaquePointer) throws -> Ring {
        let handle = context.handle
        guard let sequence = GEOSGeom_getCoordSeq_r(handle, ring) else { throw context.failure("getCoordSeq") }
        var size: UInt32 = 0
        guard GEOSCoordSeq_getSize_r(handle, sequence, &size) == 1 else { throw context.failure("coordSeq_getSize") }
        var xs = [Double](repeating: 0, count: Int(size)), ys = [Double](repeating: 0, count: Int(size))
        let copied = xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in
                GEOSCoordSeq_copyToArrays_r(handle, sequence, x.baseAddress, y.baseAddress, nil, nil)
            }
        }
        guard copied == 1 else { throw context.failure("coordSeq_copyToArrays") }
        return Ring(xs: xs, ys: ys)
    }
}
