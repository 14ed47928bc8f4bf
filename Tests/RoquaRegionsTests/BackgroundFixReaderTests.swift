import Foundation
import RoquaBoundaries
import RoquaIO
import Synchronization
import Testing

@testable import RoquaRegions

/// A reader of `count` fixes that throws after `failAfter` of them (if given), counts the calls
/// it gets from the reading thread, and reports untimed points and a skipped record at its end.
private final class CountingReader: FixReader, @unchecked Sendable {
    let path = "counting.csv"
    let count: Int
    let failAfter: Int?
    let calls = Atomic<Int>(0)
    private var produced = 0
    private(set) var skipped = SkippedRecords()
    var untimedPoints: Int { produced == count ? 3 : 0 }

    init(count: Int, failAfter: Int? = nil) {
        self.count = count
        self.failAfter = failAfter
    }

    func next() throws -> Fix? {
        calls.add(1, ordering: .relaxed)
        if let failAfter, produced == failAfter { throw TrackReadError(file: path, line: produced + 1, message: "broken row") }
        guard produced < count else { return nil }
        produced += 1
        if produced == count { skipped.skip(TrackReadError(file: path, line: 7, message: "latitude \"x\" is not a number")) }
        return Fix(
            coordinate: Coordinate(latitude: 41 + Double(produced) * 1e-6, longitude: 29),
            timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(produced)), position: produced)
    }
}

struct BackgroundFixReaderTests {
    /// Every fix in order (across many hand-overs and a last, partial batch), then the inner
    /// reader's counts, then nil for good.
    @Test func handsOverEveryFixInOrderWithTheCounts() throws {
        let total = BackgroundFixReader.batchSize * 5 + 17
        var reader: any FixReader = BackgroundFixReader(CountingReader(count: total))
        var positions: [Int] = []
        while let fix = try reader.next() { positions.append(fix.position) }
        #expect(positions == Array(1...total))
        #expect(reader.untimedPoints == 3 && reader.skipped.count == 1 && reader.skipped.lines == [7])
        #expect(try reader.next() == nil)
    }

    /// An error is met where reading in line would meet it: after the fixes before it.
    @Test func anErrorComesAfterTheFixesReadBeforeIt() throws {
        let failAfter = BackgroundFixReader.batchSize * 2 + 5
        var reader: any FixReader = BackgroundFixReader(CountingReader(count: 100_000, failAfter: failAfter))
        var read = 0
        do {
            while try reader.next() != nil { read += 1 }
            Issue.record("the error was lost")
        } catch let error as InputError {
            #expect(read == failAfter && error.line == failAfter + 1 && error.message == "broken row")
        }
    }

    /// Released early (an import stopped by an error of its own), the reader stops its thread
    /// within a few batches instead of reading the rest of the file, and waits for it.
    @Test func releasedEarlyItStopsReading() throws {
        let inner = CountingReader(count: 10_000_000)
        var reader: BackgroundFixReader? = BackgroundFixReader(inner)
        for _ in 0..<10 { _ = try reader?.next() }
        weak let released = reader
        reader = nil
        #expect(released == nil)
        let calls = inner.calls.load(ordering: .relaxed)
        #expect(calls <= BackgroundFixReader.batchSize * (BackgroundFixReader.depth + 2))
        Thread.sleep(forTimeInterval: 0.05)
        #expect(inner.calls.load(ordering: .relaxed) == calls)  // the thread has ended: nothing more is read
    }
}
