import RoquaIO

/// A track reader that reads its plain points (GPX, TCX, KML) or features (GeoJSON) whole from
/// the buffered bytes (`XMLTokenizer.takeElement`, `JSONScanner.readPlainValue`) and everything
/// else piece by piece, with the same fixes either way; the other way can be forced, so tests
/// and fuzzing can compare the two (`bothWays`).
package protocol WholeOrEvents: FixReader, AnyObject {
    init(stream: ByteStream, options: TrackReadOptions)
    /// Whether plain points are read whole (the default) rather than event by event.
    var readsPlainPointsWhole: Bool { get set }
    /// Points (or elements) read whole so far.
    var pointsTakenWhole: Int { get }
    /// The line the reader's stream has reached.
    var lineReached: Int { get }
}

extension WholeOrEvents {
    /// `bytes` read to the end twice through buffers of `chunkSize` bytes — plain points taken
    /// whole, and every point by events — each way as text: every fix with all its fields and
    /// line, the untimed and skipped points, the line reached and the error that stopped it.
    /// The two must be equal (tests; the `track-whole` fuzz target). `taken`: points read whole.
    package static func bothWays(_ bytes: [UInt8], chunkSize: Int) -> (whole: String, events: String, taken: Int) {
        func read(whole: Bool) -> (String, Int) {
            var lines: [String] = []
            var reader: Self?
            do {
                let opened = Self(
                    stream: try ByteStream(source: MemorySource(bytes), name: "both", chunkSize: chunkSize),
                    options: TrackReadOptions())
                opened.readsPlainPointsWhole = whole
                reader = opened
                var next = opened
                while let fix = try next.next() {
                    lines.append(
                        "\(fix.coordinate.latitude) \(fix.coordinate.longitude) \(fix.timestamp.timeIntervalSinceReferenceDate) "
                            + "\(fix.accuracy.map { "\($0)" } ?? "-") \(fix.speed.map { "\($0)" } ?? "-") @\(fix.position)")
                }
            } catch {
                lines.append("error: \(error)")
            }
            if let reader {
                let skipped = reader.skipped
                lines.append(
                    "untimed \(reader.untimedPoints), skipped \(skipped.count) "
                        + "\(skipped.byReason.sorted { $0.key < $1.key }) \(skipped.lines) \(skipped.first.map { "\($0)" } ?? "-"), "
                        + "line \(reader.lineReached)")
            }
            return (lines.joined(separator: "\n"), reader?.pointsTakenWhole ?? 0)
        }
        let (whole, taken) = read(whole: true)
        return (whole, read(whole: false).0, taken)
    }
}

/// When a reader tries to read its next point whole: always, until 1,024 tries have taken fewer
/// than one in four — points that are seldom plain (names in another script on every waypoint)
/// would be scanned twice each — and from then on never.
struct WholeReading {
    private var tries = 0, taken = 0
    /// Tries that took a point (or element).
    private(set) var total = 0

    /// Runs `take` unless reading whole has been given up; whether it took.
    mutating func attempt(_ take: () throws -> Bool) rethrows -> Bool {
        if tries >= 1024 {
            guard taken * 4 >= tries else { return false }
            tries = 0
            taken = 0
        }
        tries += 1
        guard try take() else { return false }
        taken += 1
        total += 1
        return true
    }
}
