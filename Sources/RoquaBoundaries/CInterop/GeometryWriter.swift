import CGEOS
import Foundation

/// GEOS's own serialisers, for exporting geometry to other tools: hex EWKB with an SRID (the
/// text form PostGIS reads into a `geometry` column), little-endian WKB (what a GeoPackage
/// stores behind its header) and GeoJSON. The writers are made once and reused; like the
/// context they belong to, one per thread.
package final class GeometryWriter {
    package let context: GEOSContext
    private let wkbWriter: OpaquePointer
    private let ewkbWriter: OpaquePointer
    private let jsonWriter: OpaquePointer
    private var handle: OpaquePointer { context.handle }

    /// - Throws: `GEOSError` when GEOS cannot make a writer.
    package init(context: GEOSContext) throws {
        self.context = context
        let handle = context.handle
        guard let wkb = GEOSWKBWriter_create_r(handle) else { throw context.failure("WKBWriter") }
        guard let ewkb = GEOSWKBWriter_create_r(handle) else {
            GEOSWKBWriter_destroy_r(handle, wkb)
            throw context.failure("WKBWriter")
        }
        guard let json = GEOSGeoJSONWriter_create_r(handle) else {
            GEOSWKBWriter_destroy_r(handle, wkb)
            GEOSWKBWriter_destroy_r(handle, ewkb)
            throw context.failure("GeoJSONWriter")
        }
        // Explicit rather than the machine's order: GeoPackage readers expect the flag to match.
        GEOSWKBWriter_setByteOrder_r(handle, wkb, Int32(GEOS_WKB_NDR.rawValue))
        GEOSWKBWriter_setByteOrder_r(handle, ewkb, Int32(GEOS_WKB_NDR.rawValue))
        GEOSWKBWriter_setIncludeSRID_r(handle, ewkb, 1)
        (wkbWriter, ewkbWriter, jsonWriter) = (wkb, ewkb, json)
    }

    deinit {
        GEOSWKBWriter_destroy_r(handle, wkbWriter)
        GEOSWKBWriter_destroy_r(handle, ewkbWriter)
        GEOSGeoJSONWriter_destroy_r(handle, jsonWriter)
    }

    /// Little-endian WKB of `geometry`.
    /// - Throws: `GEOSError` when GEOS cannot write it.
    package func wkb(_ geometry: Geometry) throws -> [UInt8] {
        var size = 0
        guard let bytes = GEOSWKBWriter_write_r(handle, wkbWriter, geometry.pointer, &size) else {
            throw context.failure("WKB write")
        }
        defer { GEOSFree_r(handle, bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// Hex EWKB (upper-case ASCII) of `geometry` carrying `srid`; sets the geometry's SRID.
    /// - Throws: `GEOSError` when GEOS cannot write it.
    package func hexEWKB(_ geometry: Geometry, srid: Int32) throws -> [UInt8] {
        GEOSSetSRID_r(handle, geometry.pointer, srid)
        var size = 0
        guard let bytes = GEOSWKBWriter_writeHEX_r(handle, ewkbWriter, geometry.pointer, &size) else {
            throw context.failure("hex WKB write")
        }
        defer { GEOSFree_r(handle, bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// `geometry` as a compact GeoJSON geometry object.
    /// - Throws: `GEOSError` when GEOS cannot write it.
    package func geoJSON(_ geometry: Geometry) throws -> String {
        guard let text = GEOSGeoJSONWriter_writeGeometry_r(handle, jsonWriter, geometry.pointer, -1) else {
            throw context.failure("GeoJSON write")
        }
        defer { GEOSFree_r(handle, text) }
        return String(cString: text)
    }
}
