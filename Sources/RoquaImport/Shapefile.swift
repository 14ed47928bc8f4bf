import CShapelib
import Foundation
import RoquaBoundaries
import RoquaProjection
import Synchronization

/// shapelib's error hook takes no user-data pointer, so its last message is kept here.
private let shapelibMessage = Mutex<String?>(nil)

private func shapelibHooks() -> SAHooks {
    var hooks = SAHooks()
    SASetupDefaultHooks(&hooks)
    hooks.Error = { message in
        guard let message else { return }
        let text = String(cString: message)
        shapelibMessage.withLock { $0 = text }
    }
    return hooks
}

private func takeShapelibMessage() -> String {
    shapelibMessage.withLock { message in
        defer { message = nil }
        return message ?? "unknown error"
    }
}

/// A polygon shapefile (.shp + .shx + .dbf, optional .prj and .cpg) opened for reading.
/// Wraps shapelib; everything it hands out is Swift values.
package final class ShapefileReader {
    package let path: String
    package let shapeCount: Int
    package let encoding: DBFTextEncoding
    package let fieldNames: [String]
    /// The layer's extent in longitude/latitude (after reprojection).
    package let bounds: BoundingBox
    /// The extent the header declares, in the file's own units (vertices are checked against it).
    private let declaredBounds: BoundingBox
    /// The layer's CRS when it is not WGS 84 longitude/latitude (from `.prj` or the user), and
    /// the transformation to it; one transformation at a time (PROJ contexts are not thread-safe).
    package let crsName: String?
    /// The CRS given for the layer (not its `.prj`), as self-contained text (PROJJSON): what an
    /// added layer keeps in its manifest; nil when none was given.
    package let resolvedCRS: String?
    private let reprojection: Reprojection?
    private let reprojectionLock = NSLock()
    private let shp: SHPHandle
    private let dbf: DBFHandle

    /// Opens `path` (the .shp, or the name without extension) and checks everything that can be
    /// checked before reading shapes: companions, shape type, record counts, projection, code page.
    /// `encoding` (an encoding's name) overrides the `.cpg` file and the DBF's language driver id;
    /// `crs` (`EPSG:NNNN`, a PROJ string, WKT or PROJJSON: text, never a path) overrides the
    /// `.prj`. Coordinates in any other CRS than WGS 84 are reprojected with PROJ as the shapes
    /// are read. `crsAdvice` says how the caller's user names a CRS, for a layer that needs one.
    package init(
        path: String, encoding override: String? = nil, crs: String? = nil,
        crsAdvice: String = "--crs EPSG:NNNN, or \"crs\" in its manifest"
    ) throws {
        let base = path.lowercased().hasSuffix(".shp") ? String(path.dropLast(4)) : path
        self.path = base + ".shp"
        guard let shpPath = Self.companion(base, "shp") else {
            throw ShapefileError.cannotOpen(file: self.path, reason: "no such file")
        }
        for ext in ["shx", "dbf"] where Self.companion(base, ext) == nil {
            throw ShapefileError.missingCompanion(file: self.path, missing: (base as NSString).lastPathComponent + "." + ext)
        }
        var info = stat()
        guard stat(shpPath, &info) == 0 else {
            throw ShapefileError.cannotOpen(file: self.path, reason: String(cString: strerror(errno)))
        }
        let size = Int(info.st_size)
        guard size > 0 else { throw ShapefileError.empty(file: self.path) }
        guard size >= 100 else {
            throw ShapefileError.cannotOpen(file: self.path, reason: "\(size) bytes is shorter than the 100-byte header")
        }

        var hooks = shapelibHooks()
        guard let shp = SHPOpenLL(shpPath, "rb", &hooks) else {
            let message = takeShapelibMessage()
            throw ShapefileError.cannotOpen(
                file: self.path, reason: Self.truncation(base, "shp") ?? Self.truncation(base, "shx") ?? message)
        }
        guard let dbf = DBFOpenLL(Self.companion(base, "dbf"), "rb", &hooks) else {
            SHPClose(shp)
            throw ShapefileError.cannotOpen(file: base + ".dbf", reason: takeShapelibMessage())
        }
        var opened = false
        defer {
            if !opened {
                SHPClose(shp)
                DBFClose(dbf)
            }
        }

        var count: Int32 = 0, type: Int32 = 0
        var minBound = [Double](repeating: 0, count: 4), maxBound = [Double](repeating: 0, count: 4)
        SHPGetInfo(shp, &count, &type, &minBound, &maxBound)
        let codePage = DBFGetCodePage(dbf).map { String(cString: $0) }
        let chosen = override.map { DBFTextEncoding(name: $0) } ?? DBFTextEncoding(codePage: codePage)
        guard let encoding = chosen else {
            throw ShapefileError.unknownCodePage(file: base + ".dbf", codePage: override ?? codePage ?? "")
        }
        guard [SHPT_POLYGON, SHPT_POLYGONZ, SHPT_POLYGONM].contains(type) else {
            throw ShapefileError.unsupportedShapeType(file: self.path, type: Self.typeName(type))
        }
        guard count > 0 else { throw ShapefileError.empty(file: self.path) }
        let records = DBFGetRecordCount(dbf)
        guard records == count else {
            throw ShapefileError.recordCountMismatch(file: self.path, shapes: Int(count), records: Int(records))
        }
        let declared = BoundingBox(minX: minBound[0], minY: minBound[1], maxX: maxBound[0], maxY: maxBound[1])
        let (reprojection, resolvedCRS) = try Self.reprojection(base: base, crs: crs)
        let bounds: BoundingBox
        if let reprojection {
            bounds = try Self.reprojectedBounds(declared, reprojection, file: self.path)
        } else {
            bounds = declared
            let hasCRS = crs != nil || Self.companion(base, "prj") != nil
            try Self.checkGeographic(shp: self.path, bounds: declared, crsAdvice: hasCRS ? nil : crsAdvice)
        }

        self.shp = shp
        self.dbf = dbf
        self.shapeCount = Int(count)
        self.bounds = bounds
        self.declaredBounds = declared
        self.reprojection = reprojection
        self.crsName = reprojection?.sourceName
        self.resolvedCRS = resolvedCRS
        self.encoding = encoding
        self.fieldNames = (0..<DBFGetFieldCount(dbf)).map { index in
            var name = [CChar](repeating: 0, count: 12)
            DBFGetFieldInfo(dbf, index, &name, nil, nil)
            return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        opened = true
    }

    deinit {
        SHPClose(shp)
        DBFClose(dbf)
    }

    /// "the .shx is cut short …" when a companion is shorter than its header says (a damaged or
    /// partly copied shapefile; shapelib's own message then carries a stale system error).
    private static func truncation(_ base: String, _ ext: String) -> String? {
        guard let path = companion(base, ext), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 28), header.count == 28,
            let size = try? handle.seekToEnd()
        else { return nil }
        let words = header[24..<28].reduce(0) { $0 << 8 | Int($1) }
        guard words * 2 > size else { return nil }
        return "the .\(ext) is cut short: its header says \(words * 2) bytes, the file has \(size) (a damaged or partly copied shapefile)"
    }

    /// Finds `base.ext` in lower or upper case.
    static func companion(_ base: String, _ ext: String) -> String? {
        [base + "." + ext, base + "." + ext.uppercased()].first { FileManager.default.fileExists(atPath: $0) }
    }

    private static func typeName(_ type: Int32) -> String {
        switch type {
        case SHPT_POINT, SHPT_POINTZ, SHPT_POINTM, SHPT_MULTIPOINT, SHPT_MULTIPOINTZ, SHPT_MULTIPOINTM: "point"
        case SHPT_ARC, SHPT_ARCZ, SHPT_ARCM: "line"
        case SHPT_MULTIPATCH: "multipatch"
        case SHPT_NULL: "null"
        default: "type-\(type)"
        }
    }

    /// The transformation to WGS 84 of the layer's CRS — `crs` when given, else the `.prj`; nil
    /// when there is neither, or the CRS is WGS 84 longitude/latitude already. With it, the
    /// given CRS resolved to text (nil for a `.prj`, which stays beside the layer).
    /// - Throws: `badCRS` naming the `.prj`, or the `.shp` whose given CRS PROJ cannot use.
    private static func reprojection(base: String, crs: String?) throws -> (Reprojection?, resolved: String?) {
        var definition = crs
        var source = base + ".shp"
        if definition == nil, let prj = Self.companion(base, "prj") {
            guard let data = FileManager.default.contents(atPath: prj) else {
                throw ShapefileError.cannotOpen(file: prj, reason: "cannot be read")
            }
            definition = String(decoding: data.prefix(64 << 10), as: UTF8.self)
            source = prj
        }
        guard let definition else { return (nil, nil) }
        do {
            let reprojection = try Reprojection(from: definition)
            return (reprojection.sourceIsWGS84 ? nil : reprojection, crs == nil ? nil : reprojection.resolvedDefinition)
        } catch {
            throw ShapefileError.badCRS(file: source, reason: "\(error)")
        }
    }

    /// The longitude/latitude extent of `declared` (its edges densified, so a curved edge's bulge counts).
    private static func reprojectedBounds(_ declared: BoundingBox, _ reprojection: Reprojection, file: String) throws -> BoundingBox {
        var xs: [Double] = [], ys: [Double] = []
        for step in 0...16 {
            let t = Double(step) / 16
            let x = declared.minX + (declared.maxX - declared.minX) * t, y = declared.minY + (declared.maxY - declared.minY) * t
            xs += [x, x, declared.minX, declared.maxX]
            ys += [declared.minY, declared.maxY, y, y]
        }
        do { try reprojection.transform(x: &xs, y: &ys) } catch {
            throw ShapefileError.notGeographic(
                file: file, detail: "its extent cannot be reprojected from \(reprojection.sourceName): \(error)")
        }
        return BoundingBox(minX: xs.min()!, minY: ys.min()!, maxX: xs.max()!, maxY: ys.max()!)
    }

    /// With no CRS, the bounds must at least look like degrees; `crsAdvice` (when the layer has no
    /// CRS) says how to name one.
    private static func checkGeographic(shp: String, bounds: BoundingBox, crsAdvice: String?) throws {
        let world = BoundingBox(minX: -180.000001, minY: -90.000001, maxX: 180.000001, maxY: 90.000001)
        guard world.contains(bounds) else {
            throw ShapefileError.notGeographic(
                file: shp,
                detail: "bounds \(bounds.minX),\(bounds.minY) – \(bounds.maxX),\(bounds.maxY) exceed ±180/±90"
                    + (crsAdvice.map { " and there is no .prj: name its CRS (\($0))" } ?? ""))
        }
    }

    /// The rings of shape `index` (0-based), each as it is in the file.
    package func rings(at index: Int) throws -> [Ring] {
        guard let object = SHPReadObject(shp, Int32(index)) else {
            throw ShapefileError.unreadableRecord(file: path, record: index + 1, reason: takeShapelibMessage())
        }
        defer { SHPDestroyObject(object) }
        let shape = object.pointee
        guard shape.nSHPType != SHPT_NULL, shape.nVertices > 0 else { return [] }
        let vertices = Int(shape.nVertices), parts = max(Int(shape.nParts), 1)
        var rings: [Ring] = []
        rings.reserveCapacity(parts)
        for part in 0..<parts {
            let start = shape.nParts == 0 ? 0 : Int(shape.panPartStart[part])
            let end = part + 1 < parts ? Int(shape.panPartStart[part + 1]) : vertices
            guard start >= 0, start <= end, end <= vertices else {
                throw ShapefileError.unreadableRecord(file: path, record: index + 1, reason: "part \(part) out of range")
            }
            rings.append(
                Ring(
                    xs: Array(UnsafeBufferPointer(start: shape.padfX + start, count: end - start)),
                    ys: Array(UnsafeBufferPointer(start: shape.padfY + start, count: end - start))))
        }
        try checkVertices(rings, record: index + 1)
        guard let reprojection else { return rings }
        // Long straight edges become curves in longitude/latitude: cut them first (1 km, or
        // 0.01° for a geographic CRS on another datum).
        let step = reprojection.sourceIsGeographic ? 0.01 : 1000
        reprojectionLock.lock()
        defer { reprojectionLock.unlock() }
        return try rings.map { ring in
            let dense = Reprojection.densified(Array(zip(ring.xs, ring.ys)).map { (x: $0.0, y: $0.1) }, step: step)
            var xs = dense.map(\.x), ys = dense.map(\.y)
            do { try reprojection.transform(x: &xs, y: &ys) } catch {
                throw ShapefileError.unreadableRecord(file: path, record: index + 1, reason: "\(error)")
            }
            return Ring(xs: xs, ys: ys)
        }
    }

    /// Every vertex must be a finite longitude/latitude inside the bounds the header declares (a
    /// vertex at y = 1e200 would otherwise make the subdivision and the cell index recurse without end).
    private func checkVertices(_ rings: [Ring], record: Int) throws {
        let raw = declaredBounds
        let declared =
            reprojection != nil
            ? BoundingBox(
                minX: raw.minX - 1e-6 * max(1, abs(raw.minX)), minY: raw.minY - 1e-6 * max(1, abs(raw.minY)),
                maxX: raw.maxX + 1e-6 * max(1, abs(raw.maxX)), maxY: raw.maxY + 1e-6 * max(1, abs(raw.maxY)))
            : BoundingBox(
                minX: max(raw.minX, -180) - 1e-6, minY: max(raw.minY, -90) - 1e-6,
                maxX: min(raw.maxX, 180) + 1e-6, maxY: min(raw.maxY, 90) + 1e-6)
        for ring in rings {
            for (x, y) in zip(ring.xs, ring.ys) {
                guard x.isFinite, y.isFinite, x >= declared.minX, x <= declared.maxX, y >= declared.minY, y <= declared.maxY else {
                    throw ShapefileError.vertexOutOfBounds(file: path, record: record, x: x, y: y, bounds: declared)
                }
            }
        }
    }

    /// The text of `field` in record `index` (0-based), decoded per the file's code page; nil when NULL.
    package func string(record index: Int, field: String) throws -> String? {
        let column = DBFGetFieldIndex(dbf, field)
        guard column >= 0 else { throw ShapefileError.missingField(file: path, field: field) }
        if DBFIsAttributeNULL(dbf, Int32(index), column) != 0 { return nil }
        guard let raw = DBFReadStringAttribute(dbf, Int32(index), column) else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: raw, count: strlen(raw))).map { UInt8(bitPattern: $0) }
        guard let text = encoding.decode(bytes) else {
            throw ShapefileError.undecodableText(file: path, record: index + 1, field: field, encoding: encoding.name)
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }
}
