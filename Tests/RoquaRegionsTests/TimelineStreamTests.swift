import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO
import RoquaTestSupport
import RoquaTimeline
import Testing

@testable import RoquaRegions

/// The timeline an import segments on a thread of its own, from its fixes as they are kept, is
/// the one segmenting the store's fixes gives: on a first import, on the next days of a phone
/// (restarting from the entry before), over a forgotten span, with a stay longer than a window
/// (the window doubles), and in windows of blocks. Fixes that go back in time, or that come
/// before what the store holds, are left to the store's segmentation.
@Suite struct TimelineStreamTests {
    static let start: Int64 = 1_714_550_400_000

    /// A fix at `time` (ms), degrees, accuracy in metres.
    static func fix(_ time: Int64, _ latitude: Double, _ longitude: Double, accuracy: Int32) -> KeptFix {
        KeptFix(time: time, latitude: Int32(latitude * 1e7), longitude: Int32(longitude * 1e7), accuracy: accuracy * 10)
    }

    /// Stays and moves with a fix every `every` seconds from `start` (ms) for `hours`: a few hours
    /// at a place, then a drive or a walk to the next.
    static func days(_ generator: inout SeededGenerator, from start: Int64, hours: Int, every: Int64) -> [KeptFix] {
        var fixes: [KeptFix] = []
        var (time, lat, lon) = (start, 41.0, 29.0)
        let end = start + Int64(hours) * 3_600_000
        while time < end {
            let stay = Int64(1 + generator.below(4)) * 3_600_000
            let stop = min(end, time + stay)
            while time < stop {
                let jitter = { (g: inout SeededGenerator) in Double(g.below(401) - 200) * 1e-6 }
                fixes.append(Self.fix(time, lat + jitter(&generator), lon + jitter(&generator), accuracy: 100))
                time += every * 1000
            }
            // A move of 10–60 minutes, at a walk or a drive.
            let (minutes, step) = (10 + generator.below(51), generator.below(2) == 0 ? 0.00004 : 0.0006)
            let (dlat, dlon) = (Double(generator.below(3) - 1) * step, Double(generator.below(3) - 1 | 1) * step)
            for _ in 0..<(minutes * 60 / Int(every)) where time < end {
                (lat, lon) = (lat + dlat * Double(every) / 10, lon + dlon * Double(every) / 10)
                fixes.append(Self.fix(time, lat, lon, accuracy: 80))
                time += every * 1000
            }
        }
        return fixes
    }

    /// Keeps `fixes` as source `name` and feeds them to a `TimelineFeed` (`stream` false: one
    /// that never streams); the stream, nil when the feed fell back.
    static func feed(
        _ fixes: [KeptFix], as name: String, stream: Bool = true, resolver: Resolver, _ db: Database
    ) throws -> TimelineStream? {
        var feed = try TimelineFeed(enabled: stream, maxAccuracy: 200, resolver: resolver, db)
        var keeper = try FixKeeper(source: name, db)
        for fix in fixes {
            let fresh = try keeper.add(fix)
            if !fresh.isEmpty { try feed.add(fresh, db) }
        }
        let fresh = try keeper.finish()
        if !fresh.isEmpty { try feed.add(fresh, db) }
        return feed.close()
    }

    /// Imports `fixes` twice from the same state, streamed and then as the store segments them
    /// (`KeptTimeline.update` from the first new fix), and compares the kept timelines (and, with
    /// `wholeAgrees`, with all fixes segmented at once); the second import is kept. The number of
    /// entries.
    static func streamedEqualsStored(
        _ fixes: [KeptFix], as name: String, wholeAgrees: Bool = false, _ store: RegionStore, resolver: Resolver
    ) throws -> Int {
        try store.write { db in
            var streamed: [TimelineEntry] = []
            try db.inSavepoint {
                let stream = try #require(try feed(fixes, as: name, resolver: resolver, db), "\(name) is streamed")
                try stream.finish(db)
                streamed = try #require(try KeptTimeline.entries(db)).entries
                return .rollback
            }
            #expect(try feed(fixes, as: name, stream: false, resolver: resolver, db) == nil)
            let earliest = try #require(fixes.map(\.time).min())
            try KeptTimeline.update(from: earliest, maxAccuracy: 200, isOnLand: resolver.isOnLand, db)
            let stored = try #require(try KeptTimeline.entries(db)).entries
            // And, on a first import, what segmenting everything at once gives (a later import
            // restarts from the entry before its first fix: what follows a history's end can
            // move an entry before it, on slowly drifting fixes like these).
            let whole = try KeptTimeline.segment(
                from: .min, settings: .standard, isOnLand: resolver.isOnLand, source: StoredFixes(db, maxAccuracy: 200),
                breaks: try KeptTimeline.forgotten(db)
            ).map { entry -> TimelineEntry in
                guard var move = entry.move else { return entry }
                (move.fromStay, move.toStay) = (nil, nil)  // kept unlinked
                return .move(move)
            }
            let wholeDiffers =
                zip(whole, stored).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(whole.count, stored.count)
            #expect(
                whole == stored || !wholeAgrees,
                "\(name): \(whole.count) at once, \(stored.count) kept, apart from \(wholeDiffers): \(whole.dropFirst(wholeDiffers).prefix(2)) against \(stored.dropFirst(wholeDiffers).prefix(2))"
            )
            let differ =
                zip(streamed, stored).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(streamed.count, stored.count)
            #expect(
                streamed.count == stored.count && differ == stored.count,
                "\(name): \(streamed.count) streamed, \(stored.count) from the store, apart from \(differ): \(streamed.dropFirst(differ).prefix(2)) against \(stored.dropFirst(differ).prefix(2))"
            )
            return stored.count
        }
    }

    @Test func theStreamedTimelineIsTheStoredOne() throws {
        let directory = try TempDirectory("roqua-timeline-stream")
        let store = try RegionStore(path: directory.file("regions.sqlite"))
        let resolver = try Resolver(index: Bundled.index())
        var generator = SeededGenerator(state: 61)
        let day: Int64 = 86_400_000
        // Eight days at a fix every 10 s (about 17 blocks): windows of blocks.
        let first = Self.days(&generator, from: Self.start, hours: 8 * 24, every: 10)
        #expect(first.count / FixBlock.capacity >= 16)
        #expect(try Self.streamedEqualsStored(first, as: "first", wholeAgrees: true, store, resolver: resolver) > 40)
        // The next days of the phone, with four days at one place at a fix every 5 s (more than
        // a window of blocks: it doubles) — restarted from the entry before the first new fix.
        var next = Self.days(&generator, from: Self.start + 8 * day, hours: 24, every: 10)
        var time = Self.start + 9 * day
        while time < Self.start + 13 * day {
            next.append(Self.fix(time, 41.02, 29.02, accuracy: 20))
            time += 5_000
        }
        next += Self.days(&generator, from: Self.start + 13 * day, hours: 24, every: 10)
        _ = try Self.streamedEqualsStored(next, as: "next", store, resolver: resolver)
        // A forgotten span inside the next import: no entry bridges it.
        try store.write { db in try KeptTimeline.forgot(from: Self.start + 15 * day, to: Self.start + 15 * day + day / 2, db) }
        let later = Self.days(&generator, from: Self.start + 14 * day, hours: 48, every: 10).filter {
            $0.time < Self.start + 15 * day || $0.time >= Self.start + 15 * day + day / 2
        }
        _ = try Self.streamedEqualsStored(later, as: "later", store, resolver: resolver)
        // Before what the store holds, and going back in time: the store's segmentation.
        try store.write { db in
            let again = first.prefix(5_000).map { KeptFix(time: $0.time + 1_000, latitude: $0.latitude, longitude: $0.longitude) }
            let earlier = try Self.feed(again, as: "again", resolver: resolver, db)
            #expect(earlier == nil)
            let disorder = Self.days(&generator, from: Self.start + 20 * day, hours: 24, every: 10)
            let blocks = stride(from: 0, to: disorder.count, by: FixBlock.capacity).map {
                disorder[$0..<min(disorder.count, $0 + FixBlock.capacity)]
            }
            let backwards = try Self.feed(Array(blocks.reversed().joined()), as: "disorder", resolver: resolver, db)
            #expect(backwards == nil)
        }
    }
}
