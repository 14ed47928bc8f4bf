import CLoaded
import Foundation

/// A coordinate reference system's transformation to WGS 84 longitude/latitude (degrees, in
/// that order whatever the CRS's own axis order), through PROJ. The definition is what users
/// have: `EPSG:NNNN` (any authority code PROJ knows), a PROJ string (`+proj=utm +zone=17
/// +datum=NAD83`), WKT (a shapefile's `.prj`, ESRI or OGC flavour) or PROJJSON — text, never a
/// path: a definition comes from a layer's files, so nothing in it is followed to a file. PROJ
/// never goes to the network here (no grid downloads) and opens only files in its own data
/// directories (proj.db, the grids installed with `proj-data`, init files found by name there):
/// `+init=/path:key`, `+nadgrids=@/path` or a WKT `PARAMETERFILE` naming another file fail.
///
/// Not thread-safe (a PROJ context is not): one per reader.
public final class Reprojection {
    /// Why a definition or a point cannot be used, naming it.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// PROJ's functions, looked up when the first reprojection is made (CLoaded's shim says why
    /// PROJ is not linked), or why they cannot be.
    private static let library: Result<RoquaProj, Failure> = withUnsafeTemporaryAllocation(of: RoquaProj.self, capacity: 1) { slot in
        guard let missing = roqua_proj_load(slot.baseAddress!).map({ String(cString: $0) }) else { return .success(slot[0]) }
        return .failure(
            Failure(
                description: missing.isEmpty
                    ? "the PROJ library (libproj.so.25) is not installed: apt-get install libproj25"
                    : "the installed PROJ library has no \(missing) (PROJ 7.0 or later is needed)"))
    }

    /// PROJ's data directories (its search path, as real paths) as the NULL-terminated C array
    /// its file API reads (CLoaded's `roqua_proj_restrict_files`); made once, kept for the process.
    private static let dataDirectories: DataDirectories? = {
        guard case .success(let proj) = library, let searchPath = proj.info().searchpath else { return nil }
        let directories = String(cString: searchPath).split(separator: ":").compactMap { path -> UnsafePointer<CChar>? in
            guard let resolved = realpath(String(path), nil) else { return nil }
            return UnsafePointer(resolved)
        }
        let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: directories.count + 1)
        list.initialize(from: directories + [nil], count: directories.count + 1)
        return DataDirectories(list: list)
    }()

    private struct DataDirectories: @unchecked Sendable {
        // @unchecked: written once above, then only read (by PROJ's file callbacks).
        let list: UnsafeMutablePointer<UnsafePointer<CChar>?>
    }

    private let proj: RoquaProj
    private let context: OpaquePointer
    private let transformation: OpaquePointer
    /// The source CRS's name, as PROJ reads it (e.g. "WGS 84 / UTM zone 17N").
    public let sourceName: String
    /// Whether the source CRS is geographic (degrees), not projected.
    public let sourceIsGeographic: Bool
    /// Whether the source CRS is WGS 84 longitude/latitude already (axis order aside): nothing
    /// to transform.
    public let sourceIsWGS84: Bool
    /// The source CRS as PROJJSON: self-contained text (init files expanded, nothing left to look
    /// up but PROJ's own database), what a layer keeps so that no later import reads its source
    /// again. The definition as given when PROJ cannot write it so.
    public let resolvedDefinition: String

    /// - Throws: `Failure` naming the definition when PROJ cannot read it or it is no CRS, or
    ///   saying what is missing when PROJ is not installed.
    public init(from definition: String) throws {
        // A `.prj` is read up to 64 KiB; a GeoPackage's SRS or a GeoJSON's `crs` is held to the same.
        guard definition.utf8.count <= 64 << 10 else {
            throw Failure(description: "CRS \"\(definition.prefix(40))…\": longer than 64 KiB; not a CRS definition")
        }
        let proj = try Self.library.get()
        self.proj = proj
        let text = Self.definitionText(definition)
        guard let context = proj.context_create() else { throw Failure(description: "PROJ could not start") }
        _ = proj.context_set_enable_network(context, 0)
        guard let directories = Self.dataDirectories,
            proj.context_set_fileapi(context, roqua_proj_file_api(), UnsafeMutableRawPointer(directories.list)) == 1
        else {
            _ = proj.context_destroy(context)
            throw Failure(description: "PROJ could not be limited to its own data files (PROJ 7.0 or later is needed)")
        }
        _ = proj.log_level(context, PJ_LOG_NONE)
        func failure(_ what: String) -> Failure {
            let code = proj.context_errno(context)
            let reason = code == 0 ? "" : proj.context_errno_string(context, code).map { ": " + String(cString: $0) } ?? ""
            let shown = definition.count > 80 ? String(definition.prefix(77)) + "…" : definition
            return Failure(description: "CRS \"\(shown)\": \(what)\(reason)")
        }
        guard let source = proj.create(context, text) else {
            // A path is not a definition here; say so, for a manifest that kept one (older Roqua did).
            let path = text.hasPrefix("/") || text.hasPrefix("./") || text.hasPrefix("../") || text.hasPrefix("~")
            let error = failure(
                "not a coordinate reference system PROJ knows (EPSG:NNNN, a PROJ string or WKT"
                    + (path ? "; a file's path is not read as one: give its text)" : ")"))
            _ = proj.context_destroy(context)
            throw error
        }
        defer { _ = proj.destroy(source) }
        guard proj.is_crs(source) != 0 else {
            _ = proj.context_destroy(context)
            throw Failure(description: "CRS \"\(definition.prefix(80))\": a coordinate operation, not a coordinate reference system")
        }
        let type = proj.get_type(source)
        sourceIsGeographic = type == PJ_TYPE_GEOGRAPHIC_2D_CRS || type == PJ_TYPE_GEOGRAPHIC_3D_CRS
        sourceName = proj.get_name(source).map { String(cString: $0) } ?? definition
        resolvedDefinition =
            "MULTILINE=NO".withCString { option in
                var options: [UnsafePointer<CChar>?] = [option, nil]
                return proj.as_projjson(context, source, &options).map { String(cString: $0) }
            } ?? text
        guard let target = proj.create(context, "EPSG:4326") else {
            let error = failure("PROJ's database has no EPSG:4326 (is proj-data installed?)")
            _ = proj.context_destroy(context)
            throw error
        }
        defer { _ = proj.destroy(target) }
        sourceIsWGS84 = proj.is_equivalent_to_with_ctx(context, source, target, PJ_COMP_EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS) != 0
        guard let raw = proj.create_crs_to_crs_from_pj(context, source, target, nil, nil) else {
            let error = failure("no transformation to WGS 84")
            _ = proj.context_destroy(context)
            throw error
        }
        defer { _ = proj.destroy(raw) }
        // Longitude first, as every format Roqua writes (GeoJSON, WKB) expects.
        guard let normalized = proj.normalize_for_visualization(context, raw) else {
            let error = failure("no transformation to WGS 84 in longitude/latitude order")
            _ = proj.context_destroy(context)
            throw error
        }
        self.context = context
        transformation = normalized
    }

    deinit {
        _ = proj.destroy(transformation)
        _ = proj.context_destroy(context)
    }

    /// The definition as PROJ should read it. Never the contents of a file it names: it comes
    /// from a layer's files, and a path kept instead of its text broke every import once the
    /// file was gone.
    static func definitionText(_ definition: String) -> String {
        let trimmed = definition.trimmingCharacters(in: .whitespacesAndNewlines)
        // A PROJ string as older tools write it (`+proj=utm +zone=17 …`) means a CRS; PROJ 6+
        // reads it as one only with `+type=crs`.
        if trimmed.hasPrefix("+proj="), !trimmed.contains("+type=crs"), !trimmed.contains("+proj=pipeline") {
            return trimmed + " +type=crs"
        }
        return trimmed
    }

    /// Transforms points in place: `x`/`y` in the source CRS's units become longitude/latitude.
    /// - Throws: `Failure` naming the first point PROJ cannot transform (outside the CRS's area
    ///   of use, not finite); the arrays are then left as they were.
    public func transform(x: inout [Double], y: inout [Double]) throws {
        precondition(x.count == y.count, "x and y must have as many values")
        guard !x.isEmpty else { return }
        var outX = x, outY = y
        let stride = MemoryLayout<Double>.stride
        let count = outX.count
        outX.withUnsafeMutableBufferPointer { xs in
            outY.withUnsafeMutableBufferPointer { ys in
                _ = proj.trans_generic(
                    transformation, PJ_FWD, xs.baseAddress, stride, count, ys.baseAddress, stride, count,
                    nil, 0, 0, nil, 0, 0)
            }
        }
        if let bad = outX.indices.first(where: { !outX[$0].isFinite || !outY[$0].isFinite || abs(outY[$0]) > 90.000001 }) {
            throw Failure(description: "point \(bad + 1) (\(x[bad]), \(y[bad])) cannot be transformed from \(sourceName) to WGS 84")
        }
        x = outX
        y = outY
    }

    /// `ring` with points inserted so that no segment is longer than `step` (in the ring's own
    /// units): a straight edge of a projected shape is a curve in longitude/latitude, so long
    /// edges are cut before reprojecting to keep the shape true. The ring's own points are kept.
    /// At most 10,000 pieces per edge and 1,000,000 points added per ring (absurd coordinates —
    /// 1e47 metres, infinities — fail later, in the transformation, naming the point).
    public static func densified(_ ring: [(x: Double, y: Double)], step: Double) -> [(x: Double, y: Double)] {
        guard step > 0, ring.count > 1 else { return ring }
        var out: [(x: Double, y: Double)] = [ring[0]]
        out.reserveCapacity(ring.count)
        let budget = ring.count + 1_000_000
        for index in 1..<ring.count {
            let (a, b) = (ring[index - 1], ring[index])
            let length = ((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()
            let wanted = (length / step).rounded(.up)
            let pieces = out.count < budget && wanted.isFinite ? Int(min(wanted, 10_000)) : 1
            if pieces > 1 {
                for piece in 1..<pieces {
                    let t = Double(piece) / Double(pieces)
                    out.append((a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t))
                }
            }
            out.append(b)
        }
        return out
    }
}
