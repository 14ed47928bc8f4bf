import Foundation
import RoquaBatch
import RoquaBoundaries
import RoquaIO
import RoquaTestSupport
import Testing

/// The parts of the batch pipeline on their own: number parsing and in-order results.
@Suite struct BatchPartsTests {
    /// The fast path for plain decimals gives what `TextValues.number` gives, value and sign
    /// included, and refuses what it refuses.
    @Test(arguments: [
        "41.0123456", "-33.9249", "0", "-0", "0.0", "-0.0", "180", "-180.0000000", "1e3", "-1.5E-2", "+5", "5.", ".5", "-.5",
        "00012.50", " 41.5 ", "\t7", "123456789012345678901234", "9007199254740993", "0.1234567890123456789012345",
        "1.2.3", "", " ", "-", ".", "nan", "NaN", "inf", "-infinity", "0x10", "1_000", "4,5", "1e", "e5", "--1", "1-",
        "12345678901234567890.5", "3.14159265358979323846264338327950288",
    ])
    func numbersParseAsTextValues(_ text: String) {
        let expected = TextValues.number(text)
        let got = Array(text.utf8).withUnsafeBufferPointer { BatchRowParser.number($0) }
        #expect(got?.bitPattern == expected?.bitPattern, "\(text): \(String(describing: got)) vs \(String(describing: expected))")
    }

    @Test func randomDecimalsParseAsTextValues() {
        var generator = SeededGenerator(state: 3)
        for _ in 0..<20_000 {
            let text = String(format: "%.\(Int.random(in: 0...12, using: &generator))f", Double.random(in: -200...200, using: &generator))
            let got = Array(text.utf8).withUnsafeBufferPointer { BatchRowParser.number($0) }
            #expect(got?.bitPattern == TextValues.number(text)?.bitPattern, "\(text)")
        }
    }

    /// Jobs finishing out of order come back in submission order; a failing job's error comes
    /// back in its place; closing with work queued does not wait for it.
    @Test func pipelineGivesResultsInOrder() throws {
        struct Odd: Error {}
        let pipeline = OrderedPipeline<Int, Int>(workers: 4) {
            { job in
                usleep(useconds_t((job * 7919) % 13) * 100)  // uneven work, so workers finish out of order
                if job == 150 { throw Odd() }
                return job * 2
            }
        }
        defer { pipeline.close() }
        var results: [Int] = []
        for job in 0..<200 {
            while pipeline.inFlight >= 9 { if let r = try? pipeline.next() { results.append(r) } else { results.append(-1) } }
            pipeline.submit(job)
        }
        while pipeline.inFlight > 0 { if let r = try? pipeline.next() { results.append(r) } else { results.append(-1) } }
        #expect(results == (0..<200).map { $0 == 150 ? -1 : $0 * 2 })
        #expect(try pipeline.next() == nil)
    }

    /// A file of known size is cut into ~16 chunks per worker, so the last chunks end together;
    /// never below 32 KiB (per-chunk costs) nor above 512 KiB (memory); a pipe takes 512 KiB.
    @Test func chunksFollowTheFileSizeAndTheWorkers() {
        #expect(BatchRunner.blockBytes(totalBytes: 4_400_000, workers: 2) == 137_500)
        #expect(BatchRunner.blockBytes(totalBytes: 4_400_000, workers: 1) == 275_000)
        #expect(BatchRunner.blockBytes(totalBytes: 22_000_000, workers: 2) == 512 << 10)
        #expect(BatchRunner.blockBytes(totalBytes: 100, workers: 2) == 32 << 10)
        #expect(BatchRunner.blockBytes(totalBytes: 0, workers: 8) == 32 << 10)
        #expect(BatchRunner.blockBytes(totalBytes: nil, workers: 2) == 512 << 10)
    }

    @Test func closingWithQueuedWorkReturns() {
        let pipeline = OrderedPipeline<Int, Int>(workers: 2) {
            { job in
                usleep(2_000)
                return job
            }
        }
        for job in 0..<50 { pipeline.submit(job) }
        pipeline.close()  // returns once the jobs being worked on finish; the rest are dropped
        #expect(pipeline.inFlight == 50)
    }
}
