import Foundation
import GRDB
import RoquaRegions
import RoquaTestSupport
import Synchronization
import Testing

/// Two handles reading a store's regions in halves at once (`roqua stats` on a big store): the
/// halves are the one reading cut in two, on one snapshot even while a writer commits, and a
/// writer at work makes them give way at once rather than wait.
@Suite struct SharedSnapshotTests {
    static func store(in directory: TempDirectory, regions: Int) throws -> RegionStore {
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        try store.write { db in
            for index in 0..<regions {
                try VisitedRegion(
                    latitude: 40 + Double(index % 100) * 0.001, longitude: 29 + Double(index / 100) * 0.001, radius: 150,
                    timestampStart: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 60),
                    countryCode: index % 3 == 0 ? "TR" : "GR", geohash: "sxk9000"
                ).insert(db)
            }
            try db.execute(sql: "UPDATE visited_regions SET start_ms = 'broken' WHERE id IN (7, 2990)")
        }
        return store
    }

    @Test func theHalvesAreTheOneReadingCutInTwo() throws {
        let directory = try TempDirectory()
        let reported = Mutex<[[Int64]]>([])
        let path = try Self.store(in: directory, regions: 3_000).path
        func open(_ access: RegionStore.Access) throws -> RegionStore {
            try RegionStore(path: path, access: access) { rows in reported.withLock { $0.append(rows.map(\.id)) } }
        }
        let (store, second, lock) = (try open(.readOnly), try open(.readOnly), try open(.readWrite))
        var whole: [RegionFacts] = []
        try store.forEachRegionFacts { whole.append($0) }
        let halves = try #require(
            try store.tallyFactsInHalves(
                second: second, lock: lock, minimumIDs: 1,
                start: { _ in [RegionFacts]() }, add: { $0.append($1) }))
        #expect(halves.0.count > 1_000 && halves.1.count > 1_000)
        #expect(halves.0 + halves.1 == whole && whole.count == 2_998)
        // Both readings reported the same unreadable rows, the halves' together once.
        #expect(reported.withLock { $0 } == [[7, 2990], [7, 2990]])
        // A small store is read alone.
        #expect(
            try store.tallyFactsInHalves(second: second, lock: lock, minimumIDs: 10_000, start: { _ in 0 }, add: { $0 += $1.radius }) == nil
        )
    }

    /// The halves do not wait for the global dispatch pool: with every one of its threads busy
    /// (other work of the process), they still read at once, rather than leaving the write lock
    /// held until a thread comes free.
    @Test func theHalvesDoNotWaitForABusyThreadPool() throws {
        let directory = try TempDirectory()
        let path = try Self.store(in: directory, regions: 3_000).path
        let (store, second, lock) = (
            try RegionStore(path: path, access: .readOnly), try RegionStore(path: path, access: .readOnly),
            try RegionStore(path: path)
        )
        // Every thread of the global pool (as many as cores, and a few more) held until released,
        // released after 10 s at the latest so the test always ends.
        let release = DispatchSemaphore(value: 0), blockers = ProcessInfo.processInfo.activeProcessorCount + 2
        let held = DispatchGroup()
        for _ in 0..<blockers { DispatchQueue.global().async(group: held) { _ = release.wait(timeout: .now() + 10) } }
        Thread.sleep(forTimeInterval: 0.2)  // the pool's threads taken
        let started = Date()
        let halves = try store.tallyFactsInHalves(
            second: second, lock: lock, minimumIDs: 1, start: { _ in 0 }, add: { count, _ in count += 1 })
        let took = Date().timeIntervalSince(started)
        for _ in 0..<blockers { release.signal() }
        held.wait()
        #expect(try #require(halves).0 + halves!.1 == 2_998)
        #expect(took < 2, "the halves waited \(took) s for the busy pool")
    }

    @Test func aWriterAtWorkMakesThemGiveWayAtOnce() throws {
        let directory = try TempDirectory()
        let path = try Self.store(in: directory, regions: 200).path
        let (store, second, lock) = (
            try RegionStore(path: path, access: .readOnly), try RegionStore(path: path, access: .readOnly),
            try RegionStore(path: path)
        )
        let writer = try DatabaseQueue(path: path)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let started = Date()
            #expect(
                try store.tallyFactsInHalves(second: second, lock: lock, minimumIDs: 1, start: { _ in 0 }, add: { $0 += $1.radius }) == nil)
            #expect(Date().timeIntervalSince(started) < 10, "gave way without waiting for the writer")
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try store.tallyFactsInHalves(second: second, lock: lock, minimumIDs: 1, start: { _ in 0 }, add: { $0 += $1.radius }) != nil)
        // A read-only lock handle cannot hold the lock: read alone.
        #expect(
            try store.tallyFactsInHalves(
                second: second, lock: RegionStore(path: path, access: .readOnly), minimumIDs: 1,
                start: { _ in 0 }, add: { $0 += $1.radius }) == nil)
    }

    /// A writer changes every region's radius in each commit, as fast as it can: both halves must
    /// always see the same radius (one snapshot). Without the write lock held while the two
    /// transactions begin, a commit can fall between them.
    @Test func bothHalvesSeeOneSnapshotWhileAWriterCommits() throws {
        let directory = try TempDirectory()
        let path = try Self.store(in: directory, regions: 2_000).path
        let (store, second, lock) = (
            try RegionStore(path: path, access: .readOnly), try RegionStore(path: path, access: .readOnly),
            try RegionStore(path: path)
        )
        let stop = Atomic<Bool>(false)
        let commits = Atomic<Int>(0)
        let writer = Thread {
            guard let queue = try? DatabaseQueue(path: path) else { return }
            while !stop.load(ordering: .relaxed) {
                try? queue.write { db in try db.execute(sql: "UPDATE visited_regions SET radius = 1 + radius % 4000") }
                commits.add(1, ordering: .relaxed)
                usleep(3_000)  // a moment free between commits
            }
        }
        writer.start()
        defer { stop.store(true, ordering: .relaxed) }
        // Under a loaded machine the writer wins most turns; keep reading (bounded in count and
        // time) until enough readings were together while commits went on.
        var (together, attempts) = (0, 0)
        let started = Date()
        while attempts < 150 || together < 20 || commits.load(ordering: .relaxed) < 20, attempts < 20_000,
            Date().timeIntervalSince(started) < 60
        {
            attempts += 1
            guard
                let (first, later) = try store.tallyFactsInHalves(
                    second: second, lock: lock, minimumIDs: 1, start: { _ in Set<Int>() }, add: { $0.insert($1.radius) })
            else { continue }
            together += 1
            #expect(first.count == 1 && first == later, "one half saw radius \(first), the other \(later)")
        }
        stop.store(true, ordering: .relaxed)
        #expect(
            together >= 20 && commits.load(ordering: .relaxed) >= 20,
            "\(together) readings together in \(attempts) tries, \(commits.load(ordering: .relaxed)) commits")
    }
}
