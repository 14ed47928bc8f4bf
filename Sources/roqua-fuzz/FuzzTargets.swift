import Foundation
import RoquaAchievements
import RoquaBoundaries
import RoquaImport
import RoquaIO
import RoquaRegions
import RoquaServeInput

/// Every parser of outside input, fed raw bytes. Each target must either finish or throw a typed
/// error: a crash, a hang, a leak or unbounded memory is a bug (libFuzzer + AddressSanitizer find
/// them; `scripts/fuzz.sh` runs every target, and the replay mode checks the saved inputs).
enum FuzzTargets {
    typealias Target = @Sendable (Data) throws -> Void

    static let all: [String: Target] = {
        var targets: [String: Target] = [
            "track": { data in try readAll(TrackReaders.open(path: Scratch.file("input", data))) },
            "batch": batch,
            "serve-query": serveQuery,
            "serve-batch": serveBatch,
            "shapefile": shapefile,
            "achievements": { data in
                _ = AchievementCatalog.validate(data: data)
                _ = try AchievementCatalog.load(data: data)
            },
            "restore": { data in
                let file = Scratch.file("export.json", data)
                try ArchiveCoding.validate(ArchiveCoding.read(file), file: file, tables: AchievementStorage.component.archivedTables)
            },
        ]
        for format in TrackFormat.allCases {
            targets[format.rawValue] = { data in try readAll(format.open(path: Scratch.file("input", data))) }
        }
        return targets
    }()

    static func readAll(_ reader: any FixReader) throws {
        var reader = reader
        var count = 0
        while try reader.next() != nil, count < 10_000_000 { count += 1 }
    }

    @Sendable static func batch(_ data: Data) throws {
        let input = try BatchInput(path: Scratch.file("input", data))
        while let chunk = try input.next(4096) { chunk.forEachRow { _, _, _, _ in } }
    }

    /// A query string as `roqua serve` reads it, then as a `/reverse` request; also as an
    /// `Accept-Language` header.
    @Sendable static func serveQuery(_ data: Data) throws {
        let text = String(decoding: data, as: UTF8.self)
        _ = NominatimRequest.language(text)
        let query = try QueryParameters(text)
        _ = try NominatimRequest(query, acceptLanguage: query["accept-language"])
    }

    /// A batch upload as `POST /reverse/batch` reads it, arriving in chunks whose sizes come from
    /// the first byte (as the network splits a body anywhere).
    @Sendable static func serveBatch(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard let first = bytes.first else { return }
        let step = Int(first % 64) + 1
        var lines = BatchLines(format: first & 0x80 == 0 ? nil : (first & 0x40 == 0 ? .csv : .ndjson))
        var rows = 0
        var start = 1
        while start < bytes.count {
            lines.feed(bytes[start..<min(start + step, bytes.count)]) { _ in rows += 1 }
            start += step
        }
        lines.finish { _ in rows += 1 }
    }

    /// The input is split into .shp, .shx and .dbf by two little-endian 32-bit lengths up front.
    @Sendable static func shapefile(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 else { return }
        func length(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3] & 0x0F) << 24 }
        let shp = min(length(0), bytes.count - 8), shx = min(length(4), bytes.count - 8 - shp)
        let base = Scratch.file("layer.shp", Data(bytes[8..<(8 + shp)]))
        _ = Scratch.file("layer.shx", Data(bytes[(8 + shp)..<(8 + shp + shx)]))
        _ = Scratch.file("layer.dbf", Data(bytes[(8 + shp + shx)...]))
        let reader = try ShapefileReader(path: base)
        for index in 0..<min(reader.shapeCount, 1000) {
            _ = try reader.rings(at: index)
            for field in reader.fieldNames { _ = try reader.string(record: index, field: field) }
        }
    }
}

/// Inputs become files in one scratch directory per process (in memory where /dev/shm exists).
enum Scratch {
    static let directory: String = {
        let root = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = (root as NSString).appendingPathComponent("roqua-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)  // an unusable directory fails at the first write
        return path
    }()

    static func file(_ name: String, _ data: Data) -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: path, contents: data)  // a failure shows as the parser not finding the file
        return path
    }
}
