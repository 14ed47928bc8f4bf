import RoquaBoundaries
import RoquaPhotos

extension TrackImportSummary {
    /// The lines `roqua track import` prints for the file (and `roqua serve` answers an upload
    /// with): fixes read and dropped, new regions, the first districts, provinces and countries.
    /// `maxAccuracy` is the limit the import used, named when fixes were dropped for it.
    public func report(maxAccuracy: Double) -> String {
        if let notATrack { return "\(file): passed over, not a track file: \(notATrack)" }
        if let photos { return photoReport(photos) }
        if alreadyImported { return "\(file): imported before (same content); nothing added" }
        if keptOnly {
            return "\(file): imported before the store kept fixes; its \(fixesKept) fixes are kept now, nothing counted again"
        }
        var read = "\(fixesRead) fixes read"
        if untimedSkipped > 0 { read += ", \(untimedSkipped) untimed skipped" }
        if untimedAssumed > 0 { read += " (\(untimedAssumed) untimed, given --assume-time)" }
        if let skipped = skipped.summary { read += ", " + skipped }
        var lines = ["\(file) (\(format)): \(read), \(droppedTotal) dropped" + droppedDetail(maxAccuracy)]
        lines.append("  \(newRegions) new region(s), \(revisits) revisit(s)")
        if !flights.isEmpty {
            let km = flights.reduce(0) { $0 + $1.kilometres }
            lines.append("  \(flights.count) flight(s), \(Int(km.rounded())) km: \(inFlight) fix(es) in the air counted nowhere")
        }
        if glitches > 0 { lines.append("  \(glitches) GPS glitch(es) (a single fix far off between two near each other): lit nothing") }
        return (lines + firstLines).joined(separator: "\n")
    }

    /// `DCIM (photos): 120 photos read, 100 with a place and a time (15 no position, …)`, then as a track.
    private func photoReport(_ photos: PhotoCounts) -> String {
        var read = "\(photos.read) photo(s) read, \(photos.located) with a place and a time"
        let skipped = photos.skipped.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }
        if !skipped.isEmpty { read += " (" + skipped.joined(separator: ", ") + ")" }
        var lines = ["\(file) (photos): " + read]
        if photos.skipped[PhotoCounts.reason(.noTimeZone)] != nil {
            lines.append("  photos with a local time and no zone were skipped: pass --time-zone ZONE to place them")
        }
        lines += photos.problems.map { "  skipped: \($0)" }
        if alreadyImported {
            lines.append("  imported before (the same photos); nothing added")
        } else if photos.located > 0 {
            let duplicates = dropped[.duplicate].map { ", \($0) kept before" } ?? ""
            lines.append("  \(fixesKept) kept\(duplicates); \(newRegions) new region(s), \(revisits) revisit(s)")
        }
        return (lines + firstLines).joined(separator: "\n")
    }

    /// `  first time in 2 districts: Kadıköy, Beşiktaş`, widest level last.
    private var firstLines: [String] {
        [(AdminLevel.district, "districts"), (.province, "provinces"), (.country, "countries")].compactMap { level, label in
            let names = firsts.filter { $0.level == level }.map(\.name)
            return names.isEmpty ? nil : "  first time in \(names.count) \(label): \(names.joined(separator: ", "))"
        }
    }

    private func droppedDetail(_ maxAccuracy: Double) -> String {
        let parts = dropped.sorted { $0.value > $1.value }.map { reason, count in
            switch reason {
            case .accuracy: "\(count) less accurate than \(Int(maxAccuracy)) m"
            case .duplicate: "\(count) duplicates"
            case .invalidCoordinate: "\(count) invalid coordinates"
            case .invalidTimestamp: "\(count) invalid times"
            }
        }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }
}

/// Counts across the files of one import of several paths (a folder, an archive).
public struct TrackImportTally: Sendable, Equatable {
    public var imported = 0, before = 0, notTracks = 0, failures = 0, passedOver = 0, fixes = 0

    public init() {}

    public mutating func add(_ summary: TrackImportSummary) {
        if summary.notATrack != nil { notTracks += 1 } else if summary.alreadyImported { before += 1 } else { imported += 1 }
        fixes += summary.fixesRead
    }

    /// The closing line when more than one file was involved (`named`: paths given); nil otherwise:
    /// `5 files: 3 imported (324 fixes), 2 not track files, 0 failed; 1 other file passed over`.
    public func summaryLine(named: Int) -> String? {
        let files = imported + before + notTracks + failures
        guard files > 1 || named > 1 || passedOver > 0 else { return nil }
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var parts = ["\(imported) imported (\(count(fixes, "fix", "fixes")))"]
        if before > 0 { parts.append("\(before) imported before") }
        if notTracks > 0 { parts.append(count(notTracks, "not a track file", "not track files")) }
        parts.append("\(failures) failed")
        var line = count(files, "file", "files") + ": " + parts.joined(separator: ", ")
        if passedOver > 0 { line += "; " + count(passedOver, "other file", "other files") + " passed over" }
        return line
    }
}
