import Foundation
import RoquaRegions
import RoquaTestSupport
import Testing

/// Small helpers for the track reader tests: fixtures are written to a temp dir per test.
enum TrackFixtures {
    /// 2019-01-01T10:00:00Z, the base time most fixtures count from.
    static let t0: TimeInterval = 1_546_336_800

    /// Writes `lines` joined by `newline` (a trailing one too) to `name` in `directory`.
    static func write(
        _ lines: [String], _ name: String, in directory: TempDirectory,
        newline: String = "\n", bom: Bool = false
    ) throws -> String {
        try write(lines.joined(separator: newline) + newline, name, in: directory, bom: bom)
    }

    static func write(_ text: String, _ name: String, in directory: TempDirectory, bom: Bool = false) throws -> String {
        let path = directory.file(name)
        var data = bom ? Data([0xEF, 0xBB, 0xBF]) : Data()
        data.append(Data(text.utf8))
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Every fix of a reader, front to back.
    static func readAll(_ reader: any FixReader) throws -> [Fix] {
        var reader = reader
        var fixes: [Fix] = []
        while let fix = try reader.next() { fixes.append(fix) }
        return fixes
    }

    /// Every fix of a file, its format detected.
    static func readAll(path: String) throws -> [Fix] {
        try readAll(try TrackReaders.open(path: path))
    }

    /// The `TrackReadError` reading all of `path` with `open` throws (recorded as a failure if
    /// it throws something else or nothing).
    /// The error a file's reader reports: the one it throws, or — a reader passes over a bad
    /// record and goes on — the first record it skipped (both name the file and the line).
    static func readError(
        _ path: String, _ open: (String) throws -> any FixReader = { try TrackReaders.open(path: $0) },
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> TrackReadError? {
        do {
            let reader = try open(path)
            _ = try readAll(reader)
            guard let first = reader.skipped.first else {
                Issue.record("\(path): read without an error and nothing skipped", sourceLocation: sourceLocation)
                return nil
            }
            return first
        } catch let error as TrackReadError {
            return error
        } catch {
            Issue.record("\(path): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Checks a fix's coordinate (to 1e-9°) and time (to 0.5 ms).
    static func check(
        _ fix: Fix, _ latitude: Double, _ longitude: Double, _ time: TimeInterval,
        accuracy: Double? = nil, speed: Double? = nil, position: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(abs(fix.coordinate.latitude - latitude) < 1e-9, "latitude \(fix.coordinate.latitude)", sourceLocation: sourceLocation)
        #expect(abs(fix.coordinate.longitude - longitude) < 1e-9, "longitude \(fix.coordinate.longitude)", sourceLocation: sourceLocation)
        #expect(
            abs(fix.timestamp.timeIntervalSince1970 - time) < 0.0005,
            "time \(fix.timestamp.timeIntervalSince1970) != \(time)", sourceLocation: sourceLocation)
        #expect(fix.accuracy == accuracy, sourceLocation: sourceLocation)
        #expect(fix.speed == speed, sourceLocation: sourceLocation)
        if let position { #expect(fix.position == position, sourceLocation: sourceLocation) }
    }

    /// Checks an error names `path` and `line`, and its message mentions `fragment`.
    static func check(
        _ error: TrackReadError?, file path: String, line: Int?, mentions fragment: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else { return }  // the failure was already recorded
        #expect(error.file == path, sourceLocation: sourceLocation)
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        #expect(fragment.isEmpty || error.message.localizedCaseInsensitiveContains(fragment), "\(error)", sourceLocation: sourceLocation)
    }
}
