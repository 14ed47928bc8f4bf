import Foundation
import GRDB
import RoquaRegions
import RoquaTestSupport
import Testing

/// Several `roqua track import` processes on one store take turns: the result is the serial one,
/// every process reports success exactly when its file was committed.
@Suite struct ConcurrentImportTests {
    /// Grid points 400 m apart (regions of 150 m never merge two of them, whatever the order),
    /// so the serial result is known: one region per distinct point, one visit per file that has it.
    /// Ten minutes between points: a walk, not a flight (`FlightFilter`).
    static func writeFiles(count: Int, in directory: TempDirectory) throws -> (files: [String], distinct: Int, visits: Int) {
        var files: [String] = [], points = Set<Int>(), visits = 0
        for file in 0..<count {
            var csv = "lat,lon,timestamp\n"
            for index in (file * 150)..<(file * 150 + 300) {  // each file shares half its points with the next
                let (row, column) = (index / 40, index % 40)
                csv += "\(41.0 + Double(row) * 0.0036),\(28.9 + Double(column) * 0.0048),\(1_714_550_400 + file * 86_400 + index * 600)\n"
                points.insert(index)
                visits += 1
            }
            let path = directory.file("walk-\(file).csv")
            try csv.write(toFile: path, atomically: true, encoding: .utf8)
            files.append(path)
        }
        return (files, points.count, visits)
    }

    @Test(arguments: [2, 4])
    func concurrentImportsGiveTheSerialResult(processes: Int) throws {
        let directory = try TempDirectory()
        let (files, distinct, visits) = try Self.writeFiles(count: processes, in: directory)
        let store = directory.file("regions.sqlite")
        let roqua = ProductsDirectory.product("roqua")
        let running = try files.map {
            try CommandRunner.start(roqua, ["track", "import", $0, "--store", store, "--boundaries", Bundled.path()])
        }
        for result in running.map({ $0.wait() }) {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("fixes read"), "\(result.stdout)")
        }
        let regions = try RegionStore(path: store).allRegions()
        #expect(regions.count == distinct)
        #expect(regions.reduce(0) { $0 + $1.visitCount } == visits)
        #expect(try RegionStore(path: store).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM imports") } == processes)
    }
}
