import Foundation
import RoquaAchievements
import RoquaBatch
import RoquaBoundaries
import RoquaFuzzing
import RoquaIO
import RoquaImport
import RoquaPhotos
import RoquaProgress
import RoquaProjection
import RoquaRegions
import RoquaServeInput
import RoquaTiles

/// Every parser of outside input, fed raw bytes. Each target must either finish or throw a typed
/// error: a crash, a hang, a leak or unbounded memory is a bug (libFuzzer + AddressSanitizer find
/// them; `scripts/checks/fuzz.sh` runs every target, and the replay mode checks the saved inputs).
enum FuzzTargets {
    typealias Target = FuzzDriver.Target

    /// A photo read gives no fix, or one on the globe with a finite time.
    static func photoFix(_ reading: PhotoReading) {
        guard case .fix(let fix) = reading else { return }
        guard fix.latitude.isFinite, fix.longitude.isFinite, abs(fix.latitude) <= 90, abs(fix.longitude) <= 180,
            fix.time.timeIntervalSince1970.isFinite, fix.accuracy.map({ $0.isFinite && $0 >= 0 }) ?? true
        else { fatalError("an impossible photo fix was read: \(fix)") }
    }

    static let all: [String: Target] = {
        var targets: [String: Target] = [
            "track": { data in try readAll(TrackReaders.open(path: Scratch.file("input", data))) },
            "batch": batch,
            "json-record": jsonRecord,
            "serve-query": serveQuery,
            "serve-batch": serveBatch,
            "serve-origin": serveOrigin,
            // What a phone posts to `roqua serve` (`IngestRoutes`): every app's payload, and as parameters.
            "live-ingest": { data in
                let window = LiveWindow()
                func check(_ batch: LiveBatch?) {
                    for fix in batch?.fixes ?? []
                    where
                        !(fix.latitude.isFinite && abs(fix.latitude) <= 90 && abs(fix.longitude) <= 180
                        && fix.time >= window.earliest && fix.time <= window.latest)
                    {
                        fatalError("an impossible fix was kept: \(fix)")
                    }
                }
                check(try? LiveFixes.ownTracks(data, window: window))
                check(try? LiveFixes.overland(data, window: window))
                check(try? LiveFixes.traccar(data, window: window).batch)
                if let parameters = try? QueryParameters(String(decoding: data, as: UTF8.self)) {
                    check(try? LiveFixes.osmAnd(parameters, window: window))
                    check(try? LiveFixes.gpsLogger(parameters, window: window))
                }
            },
            "shapefile": shapefile,
            // A photo's metadata (`RoquaPhotos`), each container and the Takeout sidecar: skipped with a
            // reason, or a fix on the globe.
            "photo-jpeg": { data in photoFix(fuzzJPEG([UInt8](data))) },
            "photo-isobmff": { data in photoFix(fuzzISOBMFF([UInt8](data))) },
            "photo-png": { data in photoFix(fuzzPNG([UInt8](data))) },
            "photo-takeout": { data in photoFix(fuzzTakeout([UInt8](data))) },
            // A thumbnail made from a JPEG's picture (libjpeg behind `CJPEG`'s setjmp) or a HEIC's or
            // AVIF's (libheif): refused, or a JPEG of at most 320 pixels a side.
            "photo-thumbnail": { data in
                guard let made = try? PhotoThumbnail.make(bytes: [UInt8](data)) else { return }
                guard let picture = try? PhotoThumbnail.pixels(ofJPEG: made), max(picture.width, picture.height) <= 320 else {
                    fatalError("a thumbnail that is not a small JPEG was made")
                }
            },
            // A row of the lifetime map's count pyramid (`TileRaster`): refused, or decoded to counts that
            // encode back to the same counts.
            "tile-blob": { data in _ = fuzzTileBlob([UInt8](data)) },
            // A country's places as the boundary DB packs them (`LocalityPack`): refused, or read whole
            // and written back to the same bytes.
            "locality-pack": { data in
                guard let pack = try? data.withUnsafeBytes({ try LocalityPack(decoding: $0) }) else { return }
                guard pack.encoded() == [UInt8](data) else { fatalError("a pack read does not write back the same") }
            },
            // A JSON array of records read in one pass where plain and token by token must agree;
            // its elements skipped in plain runs and token by token must stop alike.
            "json-plain": { data in
                for keeping in [["latitudeE7", "position", "timestamp"], nil] {
                    for chunk in [16, 61, 1 << 20] {
                        let (plain, values, _) = JSONScanner.bothWays([UInt8](data), chunkSize: chunk, keeping: keeping)
                        if plain != values {
                            fatalError("JSON read in one pass ≠ token by token (chunk \(chunk)):\n\(plain)\n---\n\(values)")
                        }
                    }
                }
                for chunk in [16, 61, 1 << 20] {
                    let (runs, tokens) = JSONScanner.skipBothWays([UInt8](data), chunkSize: chunk)
                    if runs != tokens { fatalError("JSON skipped in runs ≠ token by token (chunk \(chunk)):\n\(runs)\n---\n\(tokens)") }
                }
            },
            // GPX, TCX, KML and GeoJSON points read whole from the buffered bytes and piece by piece
            // must agree, whatever the buffer size (small ones split points everywhere).
            "track-whole": { data in
                let readers: [any WholeOrEvents.Type] = [GPXReader.self, TCXReader.self, KMLReader.self, GeoJSONTrackReader.self]
                for reader in readers {
                    for chunk in [16, 61, 1 << 20] {
                        let (whole, events, _) = reader.bothWays([UInt8](data), chunkSize: chunk)
                        if whole != events { fatalError("\(reader) read whole ≠ by events (chunk \(chunk)):\n\(whole)\n---\n\(events)") }
                    }
                }
            },
            // An added layer (`roqua import --add`): converted to a shapefile, then read back whole.
            "layer-geojson": { data in
                try readLayer(
                    GeoJSONLayer.convert(
                        Scratch.file("layer.geojson", data), into: Scratch.directory,
                        name: "converted"))
            },
            "layer-gpkg": { data in
                try readLayer(
                    GeoPackageLayer.convert(
                        Scratch.file("layer.gpkg", data), into: Scratch.directory,
                        name: "converted"))
            },
            "crs": crs,
            // A point as `roqua resolve` reads it: whatever the text, an answer is two finite numbers.
            "coordinate": { data in
                guard let point = try? CoordinateText.parse(String(decoding: data, as: UTF8.self)) else { return }
                guard point.latitude.isFinite, point.longitude.isFinite else { fatalError("a non-finite coordinate was read: \(point)") }
            },
            "achievements": { data in
                _ = AchievementCatalog.validate(data: data)
                _ = try AchievementCatalog.load(data: data)
            },
            "explored-added": exploredAdded,
            // A block of kept fixes (`FixBlock`): read as a block, it is refused or decodes to fixes that
            // encode back to a block reading the same; read as fixes, they survive the round trip.
            "fix-block": { data in
                if let fixes = try? FixBlock.decode([UInt8](data)), try FixBlock.decode(FixBlock.encode(fixes)) != fixes {
                    fatalError("a decoded block does not survive encoding again")
                }
                let fixes = stride(from: 0, to: data.count - 19, by: 20).map { i in
                    let word = { (at: Int, bytes: Int) in
                        data[data.startIndex + i + at..<data.startIndex + i + at + bytes]
                            .reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    }
                    return KeptFix(
                        time: Int64(bitPattern: word(0, 8)) % 100_000_000_000_000,
                        latitude: Int32(truncatingIfNeeded: word(8, 4)) % 900_000_001,
                        longitude: Int32(truncatingIfNeeded: word(12, 4)) % 1_800_000_001,
                        accuracy: max(-1, Int32(truncatingIfNeeded: word(16, 2)) - 1),
                        speed: max(-1, Int32(truncatingIfNeeded: word(18, 2)) - 1))
                }.sorted()
                guard !fixes.isEmpty else { return }
                let block = Array(fixes.prefix(FixBlock.capacity))
                guard try FixBlock.decode(FixBlock.encode(block)) == block else { fatalError("fixes do not survive a block: \(block)") }
            },
            // A backup (`roqua restore FILE`): as given, and signed with a valid digest, so that the
            // expansion and the checks of the copy inside are reached too.
            "backup": { data in
                for bytes in [[UInt8](data), StoreBackupFuzzing.signed([UInt8](data))] {
                    _ = try? StoreBackup.read(Scratch.file("backup", Data(bytes)), components: [AchievementStorage.component])
                }
            },
            "restore": { data in
                let file = Scratch.file("export.json", data)
                try ArchiveCoding.validate(ArchiveCoding.read(file), file: file, tables: AchievementStorage.component.archivedTables)
            },
        ]
        for format in TrackFormat.allCases {
            targets[format.rawValue] = { data in try readAll(format.open(path: Scratch.file("input", data))) }
        }
        // Records.json read three ways (`googleRecords`).
        targets[TrackFormat.googleRecords.rawValue] = googleRecords
        return targets
    }()

    /// Circles from the bytes (5 each: a position in a box around one of four places — a city and
    /// the antimeridian (±0.05°, radii up to 2,550 m), the two poles (±0.005°, up to 255 m: a
    /// circle over a pole touches whole rows of 360,000 cells) — and a radius), the first byte
    /// choosing the place and where the earlier ones end: what the added circles add to the
    /// earlier union (`ExploredArea.squareMetersAdded`, measured among their neighbours) must be
    /// the whole union measured again less the earlier one; the world share likewise.
    @Sendable static func exploredAdded(_ data: Data) throws {
        guard let first = data.first else { return }
        let places = [(41.0, 29.0), (0.0, 179.98), (89.998, 0.0), (-89.997, 45.0)]
        let (latitude, longitude) = places[Int(first & 3)]
        let polar = first & 2 != 0, scale = polar ? 0.1 : 1
        // Fewer circles near a pole, so one input stays well within the fuzzer's time limit.
        let bytes = [UInt8](data.prefix(1 + 5 * (polar ? 40 : 400)))
        let circles = stride(from: 1, to: bytes.count - 4, by: 5).map { i in
            let word = { (at: Int) in Double(UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])) / 65_535 - 0.5 }
            return ExploredCircle(
                latitude: min(90, max(-90, latitude + word(i) / 10 * scale)),
                longitude: longitude + word(i + 2) / 10 * scale, radius: Double(bytes[i + 4]) * 10 * scale)
        }
        let earlier = circles.count * Int(first >> 2) / 63
        let whole = try ExploredArea.squareMeters(of: circles), before = try ExploredArea.squareMeters(of: Array(circles[..<earlier]))
        guard let added = try ExploredArea.squareMetersAdded(by: circles[earlier...], to: circles[..<earlier]) else {
            fatalError("\(circles.count - earlier) added circles in a box of 0.1° were called too spread out")
        }
        guard abs(before + added - whole) <= 1e-9 * whole + 1e-3 else {
            fatalError("earlier \(before) + added \(added) ≠ whole \(whole) m² (\(earlier) earlier of \(circles.count))")
        }
        let share = WorldGrid.percentage(of: circles), shareBefore = WorldGrid.percentage(of: Array(circles[..<earlier]))
        guard let shareAdded = WorldGrid.percentageAdded(by: circles[earlier...], to: circles[..<earlier]),
            abs(shareBefore + shareAdded - share) <= 1e-12 * share
        else {
            fatalError("world share: earlier \(shareBefore) + added ≠ whole \(share) % (\(earlier) earlier of \(circles.count))")
        }
    }

    /// A Records.json read three ways — records tried as flat records, every record read whole,
    /// and on from where an import's detection stopped — gives the same fixes, skips and error.
    @Sendable static func googleRecords(_ data: Data) throws {
        let path = Scratch.file("input", data)
        struct Outcome: Equatable {
            var fixes: [Fix] = []
            var skipped = SkippedRecords()
            var error: String?
        }
        func outcome(_ open: () throws -> GoogleRecordsReader?) -> Outcome? {
            var found = Outcome()
            do {
                guard let reader = try open() else { return nil }
                defer { found.skipped = reader.skipped }
                while let fix = try reader.next(), found.fixes.count < 1_000_000 { found.fixes.append(fix) }
            } catch {
                found.error = "\(error)"
            }
            return found
        }
        let flat = outcome { try GoogleRecordsReader(path: path) }
        let whole = outcome {
            let reader = try GoogleRecordsReader(path: path)
            reader.readsFlatRecords = false
            return reader
        }
        guard flat == whole else { fatalError("flat records: \(String(describing: flat))\nwhole records: \(String(describing: whole))") }
        // (A file whose detection fails, or stops elsewhere, is refused or read afresh by an import.)
        if let reader = try? GoogleRecordsReader.continuingDetection(path: path), let continued = outcome({ reader }), continued != flat {
            fatalError("read on from detection: \(continued)\nafresh: \(String(describing: flat))")
        }
    }

    static func readAll(_ reader: any FixReader) throws {
        var reader = reader
        var count = 0
        while try reader.next() != nil, count < 10_000_000 { count += 1 }
    }

    @Sendable static func batch(_ data: Data) throws {
        let input = try BatchInput(path: Scratch.file("input", data))
        // Small blocks, so lines meet block edges in every way a short input can give.
        while let chunk = try input.next(4096, blockBytes: 61) { try chunk.forEachRow { _, _, _, _ in } }
    }

    /// Each line as an NDJSON row and the whole input as a GeoJSON feature: the batch's
    /// allocation-free fast path must give what the full parse gives whenever it answers.
    @Sendable static func jsonRecord(_ data: Data) throws {
        let bytes = [UInt8](data)
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let (fast, full) = BatchRowParser.ndjsonBothWays(Array(line))
            if let fast, fast != full { fatalError("NDJSON fast path \(fast) ≠ full parse \(full)") }
        }
        let (fast, full) = BatchChunk.featureBothWays(bytes)
        if let fast, fast != full { fatalError("GeoJSON fast path \(fast) ≠ full parse \(full ?? "refused")") }
    }

    /// A query string as `roqua serve` reads it, then as a `/reverse` request; also as an
    /// `Accept-Language` header.
    @Sendable static func serveQuery(_ data: Data) throws {
        let text = String(decoding: data, as: UTF8.self)
        _ = NominatimRequest.language(text)
        let query = try QueryParameters(text)
        _ = try NominatimRequest(query, acceptLanguage: query["accept-language"])
    }

    /// `Host`, `Origin` and `Referer` headers as `roqua serve` judges them (lines 1, 2, 3 of the
    /// input). Whatever they hold, a foreign name is never let in: an accepted `Host` names
    /// loopback, `localhost` or the allowed proxy name, and an accepted write's origin is the
    /// accepted `Host` itself or the proxy name.
    @Sendable static func serveOrigin(_ data: Data) throws {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let host = lines.first, origin = lines.count > 1 ? lines[1] : nil, referer = lines.count > 2 ? lines[2] : nil
        let policy = OriginPolicy(listenHost: "127.0.0.1", port: 8080, allowedNames: ["proxy.example"], csrfToken: "t")
        if policy.allowsHost(host) {
            guard let (name, _) = OriginPolicy.split(host ?? "", defaultPort: 80),
                name == "localhost" || name == "proxy.example" || isLoopbackLiteral(name)
            else {
                fatalError("foreign Host accepted: \(host ?? "nil")")
            }
        }
        for required in [true, false] {
            guard policy.refusesOrigin(origin: origin, referer: referer, authority: host, required: required) == nil,
                let claimed = origin ?? referer.flatMap(OriginPolicy.origin(ofURL:))
            else { continue }
            let authority = claimed.components(separatedBy: "://").dropFirst().joined(separator: "://")
            let name = OriginPolicy.split(authority, defaultPort: 80)?.0
            guard name == "proxy.example" || name == OriginPolicy.split(host ?? "", defaultPort: 80)?.0 else {
                fatalError("foreign origin accepted: \(claimed) for Host \(host ?? "nil")")
            }
        }
        _ = policy.refusesWrite(origin: origin, referer: referer, authority: host, token: lines.last)
    }

    /// The oracle for `serveOrigin`, by another road than the policy's: libc's numeric-host
    /// `getaddrinfo` (no DNS), and the address it gives is 127.0.0.0/8 or ::1. A name holding a
    /// NUL is never one (the C call would read only its front).
    static func isLoopbackLiteral(_ name: String) -> Bool {
        guard !name.utf8.contains(0) else { return false }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &result) == 0, let info = result else { return false }
        defer { freeaddrinfo(result) }
        switch Int32(info.pointee.ai_family) {
        case AF_INET:
            let address = info.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            return UInt32(bigEndian: address) >> 24 == 127
        case AF_INET6:
            var address = info.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            return withUnsafeBytes(of: &address) { Array($0) == Array(repeating: 0, count: 15) + [1] }
        default: return false
        }
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

    /// A CRS definition as a layer's files give it (a `.prj`, a GeoJSON's `crs`, a GeoPackage's
    /// SRS): PROJ reads it (opening no file it names), and the text it resolves to — what an added
    /// layer keeps for every later import — must read back as the same CRS.
    @Sendable static func crs(_ data: Data) throws {
        guard let read = try? Reprojection(from: String(decoding: data, as: UTF8.self)) else { return }
        let again: Reprojection
        do { again = try Reprojection(from: read.resolvedDefinition) } catch {
            fatalError("the resolved definition of \(read.sourceName) cannot be read back: \(error)\n\(read.resolvedDefinition)")
        }
        guard again.sourceName == read.sourceName, again.sourceIsGeographic == read.sourceIsGeographic,
            again.sourceIsWGS84 == read.sourceIsWGS84
        else {
            fatalError("\(read.sourceName) read back as \(again.sourceName)\n\(read.resolvedDefinition)")
        }
        var xs: [Double] = [0, 500_000, -1e7, 139.7], ys: [Double] = [0, 4_500_000, 1e7, 35.69]
        _ = try? read.transform(x: &xs, y: &ys)
    }

    /// The input is split into .shp, .shx and .dbf by two little-endian 32-bit lengths up front.
    static func readLayer(_ converted: GeoJSONLayer.Converted) throws {
        let reader = try ShapefileReader(path: converted.shapefile, crs: converted.crs)
        for index in 0..<reader.shapeCount {
            _ = try reader.rings(at: index)
            for field in reader.fieldNames { _ = try reader.string(record: index, field: field) }
        }
    }

    @Sendable static func shapefile(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 else { return }
        func length(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3] & 0x0F) << 24
        }
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

/// A backup body made to pass the digest check.
enum StoreBackupFuzzing {
    static func signed(_ body: [UInt8]) -> [UInt8] {
        let bytes = Array("ROQUA-BACKUP 1\n".utf8) + body
        var hasher = RoquaIO.SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return bytes + hasher.finalizeBytes()
    }
}
