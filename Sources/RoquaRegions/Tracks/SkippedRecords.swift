import RoquaIO

/// Records a reader passed over because one value in them is impossible (a coordinate off the
/// globe, an unparsable time, an empty `<gx:coord>`): counted by reason with the first few line
/// numbers, so one glitch costs one point, never the file. A file is refused only when nothing
/// in it could be read (`TrackImporter` then names the first skipped record).
public struct SkippedRecords: Sendable, Equatable {
    /// Records skipped in all.
    public private(set) var count = 0
    /// Skips per reason (`invalid coordinate`, `invalid time`).
    public private(set) var byReason: [String: Int] = [:]
    /// The lines (or record numbers) of the first `keptLines` skipped records.
    public private(set) var lines: [Int] = []
    /// The first skipped record's error, naming file, line and value.
    public private(set) var first: InputError?

    static let keptLines = 5

    public init() {}

    /// What a bad record's message is about, for the counts (readers whose errors come from
    /// several places).
    static func reason(_ message: String) -> String {
        if message.contains("time") || message.contains("tst") { return "invalid time" }
        if message.contains("itude") || message.contains("lat") || message.contains("lon") { return "invalid coordinate" }
        if message.contains("accuracy") || message.contains("speed") || message.contains("acc") || message.contains("vel") {
            return "invalid accuracy or speed"
        }
        return "malformed record"
    }

    /// Counts `error`'s record as skipped for `reason` (by default, what its message is about).
    mutating func skip(_ error: InputError) { skip(error, reason: Self.reason(error.message)) }

    /// Counts `error`'s record as skipped for `reason`.
    mutating func skip(_ error: InputError, reason: String) {
        count += 1
        byReason[reason, default: 0] += 1
        if first == nil { first = error }
        if lines.count < Self.keptLines, let line = error.line { lines.append(line) }
    }

    /// The error that refuses a file in which nothing could be read but these: the first one,
    /// with the count. Nil when nothing was skipped.
    public var refusal: InputError? {
        guard var error = first else { return nil }
        error.message += " (nothing in the file could be read: \(summary ?? ""))"
        return error
    }

    /// `3 records skipped (2 invalid coordinate, 1 invalid time; lines 12, 40, 77)`, or nil.
    public var summary: String? {
        guard count > 0 else { return nil }
        let reasons = byReason.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }
        var text = "\(count) record(s) skipped (\(reasons.joined(separator: ", "))"
        if !lines.isEmpty {
            text +=
                "; line\(lines.count > 1 ? "s" : "") " + lines.map(String.init).joined(separator: ", ") + (count > lines.count ? ", …" : "")
        }
        return text + ")"
    }
}
