import Foundation
import RoquaBoundaries
import RoquaIO

/// One GPS fix as read from a track file.
public struct Fix: Sendable, Equatable {
    /// Where the fix was, WGS84 degrees (not yet validated).
    public var coordinate: Coordinate
    /// When the fix was taken.
    public var timestamp: Date
    /// Horizontal accuracy in metres, when the source gives one.
    public var accuracy: Double?
    /// Speed in m/s, when the source gives one (otherwise derived from consecutive fixes).
    public var speed: Double?
    /// Where it came from in its file (line for text formats, record/point number otherwise), for errors.
    public var position: Int

    /// Creates a fix; accuracy and speed are optional, `position` is 0 when unknown.
    public init(coordinate: Coordinate, timestamp: Date, accuracy: Double? = nil, speed: Double? = nil, position: Int = 0) {
        self.coordinate = coordinate
        self.timestamp = timestamp
        self.accuracy = accuracy
        self.speed = speed
        self.position = position
    }
}

/// A streaming source of fixes: one file, read front to back with bounded memory.
public protocol FixReader {
    /// The file being read (for messages).
    var path: String { get }
    /// Points read so far that carried no time: skipped, or given the assumed time of the
    /// reader's `TrackReadOptions` (then also returned as fixes).
    var untimedPoints: Int { get }
    /// Records passed over so far for an impossible value (see `SkippedRecords`).
    var skipped: SkippedRecords { get }
    /// The next fix, or nil at the end. Throws `TrackReadError` naming the file and line.
    mutating func next() throws -> Fix?
}

extension FixReader {
    /// Readers of formats where every point has a time never count any.
    public var untimedPoints: Int { 0 }
    /// Readers that refuse no single record never skip any.
    public var skipped: SkippedRecords { SkippedRecords() }
}

/// Malformed track input: names the file and, where there is one, the line (or record).
public typealias TrackReadError = InputError
