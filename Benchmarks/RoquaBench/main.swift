import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaImport
import RoquaProgress
import RoquaRegions
import Synchronization

// roqua-bench import DATA_DIR OUT.sqlite
// roqua-bench resolve DB POINTS.csv NAME [--workers N]
// roqua-bench pass DB POINTS.csv NAME [--fallback M] [--rounds N] [--threads N [--separate]]   (warm threads; run two at once for the ceiling)
// roqua-bench sha256 FILE      (the hash `track import` takes of every file, to recognise re-imports)
// Prints one JSON line of figures; scripts/bench/bench.sh runs it with the peers and prints ratios.

func peakRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func seconds(_ start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

func readPoints(_ path: String) throws -> [Coordinate] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return text.split(separator: "\n").dropFirst().compactMap { line in
        let parts = line.split(separator: ",")
        guard parts.count >= 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func emit(_ fields: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "import" where args.count == 3:
    let start = DispatchTime.now()
    let report = try BoundaryImporter.run(BoundaryImportOptions(sources: [args[1]], output: args[2]))
    emit([
        "bench": "import", "seconds": seconds(start), "db_mb": Double(report.bytes) / 1e6,
        "pieces": report.pieces, "peak_rss_mb": peakRSSMegabytes(), "cell_seconds": report.cellSeconds,
        "cell_mb": Double(report.cellBytes) / 1e6, "cell_tiles": report.cellTiles, "cell_leaves": report.cellLeaves,
    ])
case "resolve" where args.count >= 4:
    // roqua-bench resolve DB POINTS.csv NAME [--fallback M] [--workers N]: one resolver thread
    // (cold: the first pass reads the cell tiles it meets; warm: the second), then N workers.
    func option(_ name: String) -> String? { args.firstIndex(of: name).flatMap { args.indices.contains($0 + 1) ? args[$0 + 1] : nil } }
    let fallback = option("--fallback").flatMap(Double.init) ?? 1000
    let workers = option("--workers").flatMap(Int.init) ?? 2
    let points = try readPoints(args[2])
    let open = DispatchTime.now()
    let index = try ResolverIndex(path: args[1])
    let resolver = try Resolver(index: index, fallbackMeters: fallback)
    _ = try resolver.placement(points[0])
    let firstAnswer = seconds(open) * 1000
    /// One pass over the points on this thread: wall seconds, CPU seconds of the thread (the
    /// figure that holds when other processes share the cores), points with an answer.
    func pass() throws -> (seconds: Double, cpu: Double, found: Int) {
        let start = DispatchTime.now(), cpu = threadCPUSeconds()
        var found = 0
        for point in points where try resolver.placement(point).unit != nil { found += 1 }
        return (seconds(start), threadCPUSeconds() - cpu, found)
    }
    let cold = try pass()
    let warm = try pass()
    var start = DispatchTime.now()
    var named = 0
    for point in points where try resolver.resolve(point).country != nil { named += 1 }
    let resolutions = seconds(start)
    // The same answers with their locality: its cost, reading each country's places on first use.
    let localities = index.localities()
    start = DispatchTime.now()
    var withLocality = 0
    for point in points where try index.withLocality(resolver.resolve(point)).locality != nil { withLocality += 1 }
    let localityResolutions = seconds(start)
    var parallel: [Int: Double] = [:]
    for n in Set([1, workers]).sorted() {
        let batch = try BatchResolver(index: index, workers: n, fallbackMeters: fallback)
        _ = batch.placements(points)  // each worker's own first pass
        start = DispatchTime.now()
        let answers = batch.placements(points)
        parallel[n] = seconds(start)
        precondition(answers.count == points.count)
    }
    var figures: [String: Any] = ["batch_1_per_s": Double(points.count) / parallel[1]!]  // `--workers 1` names it once
    figures["batch_\(workers)_per_s"] = Double(points.count) / parallel[workers]!
    emit(
        figures.merging([
            "bench": "resolve", "workload": args[3], "points": points.count, "fallback_m": fallback, "found": cold.found,
            "first_answer_ms": firstAnswer, "cold_per_s": Double(points.count) / cold.seconds,
            "warm_per_s": Double(points.count) / warm.seconds, "resolution_per_s": Double(points.count) / resolutions,
            "cold_per_cpu_s": Double(points.count) / cold.cpu, "warm_per_cpu_s": Double(points.count) / warm.cpu,
            "speedup": parallel[1]! / parallel[workers]!, "named": named,
            "localities": try localities.count(),
            "resolution_locality_per_s": Double(points.count) / localityResolutions, "with_locality": withLocality,
            "peak_rss_mb": peakRSSMegabytes(),
        ]) { $1 })
case "pass" where args.count >= 4:
    // roqua-bench pass DB POINTS.csv NAME [--fallback M] [--rounds N] [--threads N [--separate]]:
    // warm resolver threads (one by default; --separate gives each thread its own index), N timed
    // passes each after an untimed first one. bench.sh runs one thread alone and two processes at
    // once: 2 × alone ÷ at once is what this machine's two cores give steady-state resolving, the
    // ceiling for `BatchResolver` 2 workers ÷ 1; --threads 2 shows whether threads match it.
    func option(_ name: String) -> String? { args.firstIndex(of: name).flatMap { args.indices.contains($0 + 1) ? args[$0 + 1] : nil } }
    let fallback = option("--fallback").flatMap(Double.init) ?? 1000
    let rounds = max(1, option("--rounds").flatMap(Int.init) ?? 5)
    let threads = max(1, option("--threads").flatMap(Int.init) ?? 1)
    let separate = args.contains("--separate")
    let points = try readPoints(args[2])
    let shared = try ResolverIndex(path: args[1])
    struct Resolvers: @unchecked Sendable { let all: [Resolver] }  // one per thread, never shared
    let resolvers = Resolvers(
        all: try (0..<threads).map { t in
            try Resolver(index: separate && t > 0 ? try ResolverIndex(path: args[1]) : shared, fallbackMeters: fallback)
        })
    // Each thread: an untimed warm-up pass, then `rounds` timed passes; the figure is the median
    // over all threads' passes.
    let times = Mutex<[Double]>([])
    DispatchQueue.concurrentPerform(iterations: threads) { t in
        let resolver = resolvers.all[t]
        for point in points { _ = try? resolver.placement(point) }
        for _ in 0..<rounds {
            let start = DispatchTime.now()
            for point in points { _ = try? resolver.placement(point) }
            let elapsed = seconds(start)
            times.withLock { $0.append(elapsed) }
        }
    }
    let sorted = times.withLock { $0.sorted() }
    emit([
        "bench": "pass", "workload": args[3], "points": points.count, "fallback_m": fallback, "threads": threads,
        "separate_indexes": separate, "seconds": sorted[sorted.count / 2], "per_s": Double(points.count) / sorted[sorted.count / 2],
    ])
case "check" where args.count >= 3:
    // roqua-bench check DB N [minLat maxLat minLon maxLon]: the cell index against the GEOS path.
    let index = try ResolverIndex(path: args[1])
    let resolver = try Resolver(index: index)
    let n = Int(args[2]) ?? 10_000
    let box = args.count >= 7 ? args[3...6].map { Double($0)! } : [-90, 90, -180, 180]
    var generator = SystemRandomNumberGenerator()
    var bad = 0
    let start = DispatchTime.now()
    for _ in 0..<n {
        let c = Coordinate(
            latitude: Double.random(in: box[0]...box[1], using: &generator),
            longitude: Double.random(in: box[2]...box[3], using: &generator))
        let fast = try resolver.placement(c)
        let slow = try resolver.geometryPlacement(c)
        if fast.unit != slow.unit || fast.approximate != slow.approximate {
            bad += 1
            if bad <= 10 {
                print(
                    "MISMATCH \(c.latitude),\(c.longitude): cells \(index.resolution(for: fast, at: c).text(language: .local)) / geos \(index.resolution(for: slow, at: c).text(language: .local))"
                )
            }
        }
    }
    emit(["bench": "check", "points": n, "mismatches": bad, "seconds": seconds(start)])
case "tiles" where args.count == 2:
    // roqua-bench tiles DB: reads every cell tile; time and memory of the whole index.
    func currentRSSMegabytes() -> Double {
        let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
        return fields.count > 1 ? (Double(fields[1]) ?? 0) * 4096 / 1e6 : 0
    }
    let before = currentRSSMegabytes()
    let start = DispatchTime.now()
    let index = try ResolverIndex(path: args[1])
    let opened = currentRSSMegabytes()
    let ids = try index.database.read { db in try Int.fetchAll(db, sql: "SELECT id FROM cell_tiles") }
    let loadStart = DispatchTime.now()
    var reader: CellIndex.TileReader?
    for id in ids { _ = try index.cells.tile(id, reader: &reader) }
    emit([
        "bench": "tiles", "tiles": ids.count, "open_s": seconds(start) - seconds(loadStart), "load_all_s": seconds(loadStart),
        "rss_before_mb": before, "rss_open_mb": opened, "rss_all_mb": currentRSSMegabytes(),
    ])
case "micro":
    let db = try BoundaryDatabase(path: args[1])
    let wkbs: [Data] = try db.read { db in try Data.fetchAll(db, sql: "SELECT geometry FROM pieces WHERE level = 2 ORDER BY id LIMIT 3000")
    }
    let context = GEOSContext()
    var start = DispatchTime.now()
    let geoms = try wkbs.map { try context.geometry(wkb: $0) }
    let parse = seconds(start) / Double(wkbs.count)
    var pts: [(Geometry, Geometry)] = []
    for g in geoms {
        let p = try g.pointOnSurface()
        pts.append((g, try context.point(x: p.x, y: p.y)))
    }
    start = DispatchTime.now()
    var n = 0
    for (g, p) in pts { if try g.covers(p) { n += 1 } }
    let unprepared = seconds(start) / Double(pts.count)
    start = DispatchTime.now()
    let prepared = try geoms.map { try $0.prepared() }
    for (i, (_, p)) in pts.enumerated() { if try prepared[i].covers(p) { n += 1 } }
    let firstPrepared = seconds(start) / Double(pts.count)
    start = DispatchTime.now()
    for _ in 0..<10 { for (i, (_, p)) in pts.enumerated() { if try prepared[i].covers(p) { n += 1 } } }
    let warmPrepared = seconds(start) / Double(pts.count * 10)
    start = DispatchTime.now()
    for _ in 0..<10 {
        for (_, p) in pts {
            _ = try context.point(x: 1, y: 2)
            _ = p
        }
    }
    let pointMake = seconds(start) / Double(pts.count * 10)
    emit([
        "parse_us": parse * 1e6, "unprepared_covers_us": unprepared * 1e6, "first_prepared_us": firstPrepared * 1e6,
        "warm_prepared_us": warmPrepared * 1e6, "point_us": pointMake * 1e6, "n": n, "rss": peakRSSMegabytes(),
    ])
case "sha256" where args.count == 2:
    // Median of 3 passes over the file (the first also warms the page cache).
    var times: [Double] = []
    for _ in 0..<3 {
        let start = DispatchTime.now()
        _ = try SHA256.hex(ofFile: args[1])
        times.append(seconds(start))
    }
    let bytes = (try FileManager.default.attributesOfItem(atPath: args[1])[.size] as? Int) ?? 0
    let median = times.sorted()[1]
    emit([
        "bench": "sha256", "file": (args[1] as NSString).lastPathComponent, "bytes": bytes, "seconds": median,
        "mb_per_s": Double(bytes) / 1e6 / median,
    ])
case "stats" where args.count == 3:
    // roqua-bench stats DB N: N synthetic regions (70 % in Türkiye, the rest worldwide), enriched
    // offline, then every statistic of `roqua stats` computed from them.
    let count = Int(args[2]) ?? 100_000
    let index = try ResolverIndex(path: args[1])
    var generator = SystemRandomNumberGenerator()
    let points = (0..<count).map { i in
        i % 10 < 7
            ? Coordinate(
                latitude: Double.random(in: 36.5...41.5, using: &generator), longitude: Double.random(in: 27...44, using: &generator))
            : Coordinate(
                latitude: Double.random(in: -60...70, using: &generator), longitude: Double.random(in: -180...180, using: &generator))
    }
    let answers = try BatchResolver(index: index, workers: 2).resolve(points)
    let start0 = Date(timeIntervalSince1970: 1_600_000_000)
    let regions = zip(points, answers).enumerated().map { i, pair in
        let answer = try? pair.1.get()
        return VisitedRegion(
            latitude: pair.0.latitude, longitude: pair.0.longitude, radius: 150,
            timestampStart: start0.addingTimeInterval(Double(i) * 600), province: answer?.province?.name,
            district: answer?.district?.name, country: answer?.country?.name, countryCode: answer?.country?.code,
            provinceCode: answer?.province?.code, districtCode: answer?.district?.code, geohash: "")
    }
    let hierarchy = try BoundaryHierarchy(database: index.database)
    var timings: [Double] = []
    var report: ProgressReport?
    for _ in 0..<3 {
        let start = DispatchTime.now()
        report = try ProgressReport(regions: regions, hierarchy: hierarchy)
        timings.append(seconds(start))
    }
    emit([
        "bench": "stats", "regions": count, "seconds_median": timings.sorted()[1], "countries": report!.countries.count,
        "area_km2": report!.exploredSquareKilometres, "peak_rss_mb": peakRSSMegabytes(),
    ])
default:
    FileHandle.standardError.write(Data("usage: roqua-bench import DATA OUT | resolve DB POINTS.csv NAME [--workers N]\n".utf8))
    exit(64)
}
