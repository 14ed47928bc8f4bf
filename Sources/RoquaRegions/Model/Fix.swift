import Foundation
import RoquaBoundaries
import RoquaIO

/// One GPS fix as read from a track file.
public struct Fix: Sendable, Equatable {
    public var coordinate: Coordinate
    public var timestamp: Date
    /// Horizontal accuracy in metres, when the source gives one.
    public var accuracy: Double?
    /// Speed in m/s, when the source gives one (otherwise derived from consecutive fixes).
    public var speed: Double?
    /// Where it came from in its file (line for text formats, record/point number otherwise), for errors.
    public var position: Int

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
    /// The next fix, or nil at the end. Throws `TrackReadError` naming the file and line.
    mutating func next() throws -> Fix?
}

extension FixReader {
    /// Readers of formats where every point has a time never count any.
    public var untimedPoints: Int { 0 }
}

/// Malformed track input: names the file and, where there is one, the line (or record).
public typealias TrackReadError = InputError
