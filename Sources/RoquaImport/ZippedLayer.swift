import Foundation
import RoquaIO

/// The one layer of a ZIP archive (a shapefile with its companions, or a GeoJSON), as agencies
/// publish them, unpacked into a scratch directory. Each entry may expand only to what its kind
/// ever needs, checked on the size the archive declares before anything is written and on the
/// bytes actually decompressed while writing: a 0.5 MB archive holding a 512 MiB `.prj` (zeros)
/// wrote 449 MB to /tmp in 1.5 s, and seven entries of 4 GiB each were allowed.
enum ZippedLayer {
    /// The largest size an entry of each kind may expand to: a `.prj` or `.cpg` is a few hundred
    /// bytes; a `.shx` is 8 bytes per feature; the others hold what `LayerLimits` allows.
    static let entryLimits: [String: Int] = [
        "prj": 64 << 10, "cpg": 64 << 10, "shx": 64 << 20, "dbf": 1 << 30, "shp": 2 << 30, "geojson": 2 << 30, "json": 2 << 30,
    ]

    /// Extracts the layer into `directory`; the path of its `.shp` or `.geojson` there.
    /// - Throws: `AddedLayers.Failure` naming the archive when it holds no layer or several, or
    ///   the entry that expands beyond its limit.
    static func extract(_ path: String, into directory: String) throws -> String {
        let archive = try ZipArchive(path: path)
        let entries = try archive.entries().filter { !$0.name.hasPrefix("__MACOSX/") }
        func stem(_ name: String) -> String { ((name as NSString).deletingPathExtension).lowercased() }
        let layers = entries.filter { entry in
            [".shp", ".geojson", ".json"].contains { entry.name.lowercased().hasSuffix($0) }
        }
        guard layers.count == 1, let layer = layers.first else {
            throw AddedLayers.Failure(
                description: layers.isEmpty
                    ? "\(path): no .shp or .geojson in the archive"
                    : "\(path): \(layers.count) layers in the archive (\(layers.map(\.name).joined(separator: ", "))); unzip it and add one"
            )
        }
        let wanted = entries.filter { stem($0.name) == stem(layer.name) }.compactMap { entry in
            entryLimits[(entry.name as NSString).pathExtension.lowercased()].map { (entry, $0) }
        }
        // Every declared size first: nothing is written for an archive that says it is too large.
        for (entry, limit) in wanted where entry.size > UInt64(limit) {
            throw tooLarge(path, entry, limit, declared: true)
        }
        var extracted = ""
        for (entry, limit) in wanted {
            let ext = (entry.name as NSString).pathExtension.lowercased()
            let name = (((layer.name as NSString).lastPathComponent as NSString).deletingPathExtension as NSString).appendingPathExtension(
                ext)!
            let target = (directory as NSString).appendingPathComponent(name)
            try copy(archive.open(entry), to: target, limit: limit, label: "\(path):\(entry.name)") {
                tooLarge(path, entry, limit, declared: false)
            }
            if entry.index == layer.index { extracted = target }
        }
        return extracted
    }

    private static func tooLarge(_ path: String, _ entry: ZipArchive.Entry, _ limit: Int, declared: Bool) -> AddedLayers.Failure {
        let size = declared ? "expands to \(binary(entry.size))" : "expands to more than the \(binary(entry.size)) its archive declares"
        return AddedLayers.Failure(
            description: "\(path):\(entry.name): \(size); a .\((entry.name as NSString).pathExtension.lowercased()) "
                + "may be at most \(binary(UInt64(limit)))")
    }

    /// `512 MiB`, `64 KiB`, `1.5 GiB`, `300 bytes`.
    private static func binary(_ bytes: UInt64) -> String {
        for (unit, shift) in [("GiB", 30), ("MiB", 20), ("KiB", 10)] where bytes >= 1 << shift {
            let value = Double(bytes) / Double(UInt64(1) << shift)
            return (value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)) + " " + unit
        }
        return "\(bytes) bytes"
    }

    /// Writes a source's bytes to `target`, at most `limit` of them (a ZIP bomb stops there).
    private static func copy(
        _ source: some ByteSource, to target: String, limit: Int, label: String,
        tooLarge: () -> AddedLayers.Failure
    ) throws {
        guard FileManager.default.createFile(atPath: target, contents: nil), let handle = FileHandle(forWritingAtPath: target) else {
            throw AddedLayers.Failure(description: "\(target): cannot be written")
        }
        defer { try? handle.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0, name: label) }
            if count == 0 { break }
            total += count
            guard total <= limit else { throw tooLarge() }
            try handle.write(contentsOf: buffer[..<count])
        }
    }
}
