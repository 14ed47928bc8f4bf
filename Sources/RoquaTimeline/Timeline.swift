/// Turns a person's fixes into a timeline of stays and moves (the staypoints and triplegs of trackintel).
public enum Timeline {
    /// The stays and moves of `fixes`, in time order and not overlapping; each stay ends at its last
    /// fix and the move after it starts there, so entries touch without gaps between the first and last fix used.
    ///
    /// A stay is at least `settings.stayMinutes` within about `settings.stayMeters`; a hole without
    /// fixes between two fixes at one place belongs to the stay. Between stays, each change of mode
    /// starts a new move. Fewer than two usable fixes give no entries. Linear in the number of fixes.
    /// - Parameters:
    ///   - fixes: the fixes of one person, in time order (sorted here when they are not).
    ///   - settings: the stay thresholds.
    ///   - isOnLand: whether a boundary polygon lies under a point (latitude, longitude in degrees);
    ///     false at sea. Asked only for fixes at boat speeds, at most every 30 seconds of travel.
    public static func segment(
        _ fixes: [TimelineFix], settings: TimelineSettings = .standard, isOnLand: (Double, Double) -> Bool
    ) -> [TimelineEntry] {
        let ordered = isInTimeOrder(fixes) ? fixes : fixes.sorted { $0.time < $1.time }
        let track = Track(ordered)
        guard track.count >= 2 else { return [] }
        let stays = StayDetector.stays(track, settings: settings)
        var entries: [TimelineEntry] = []
        entries.reserveCapacity(stays.count * 3 + 1)
        var segmenter = MoveSegmenter()
        var previousStay: Int? = nil
        var from = 0
        for stay in stays {
            if stay.first > from {
                appendMoves(track, from, stay.first, &segmenter, settings, isOnLand, previousStay, &entries)
            }
            previousStay = entries.count
            let start = track.time(stay.first)
            let end = track.time(stay.last)
            entries.append(.stay(Stay(start: start, end: end, latitude: stay.latitude, longitude: stay.longitude, fixes: stay.fixes)))
            from = stay.last
        }
        if track.count - 1 > from {
            appendMoves(track, from, track.count - 1, &segmenter, settings, isOnLand, previousStay, &entries)
        }
        return entries
    }

    /// Appends the moves between kept fixes `a` and `b`, linked to the stay at entry index
    /// `previousStay` and to the entry that will follow them.
    private static func appendMoves(
        _ track: Track, _ a: Int, _ b: Int, _ segmenter: inout MoveSegmenter, _ settings: TimelineSettings,
        _ isOnLand: (Double, Double) -> Bool, _ previousStay: Int?, _ entries: inout [TimelineEntry]
    ) {
        let raw = segmenter.runs(track, from: a, to: b, isOnLand: isOnLand)
        let runs = ModeRules.resolve(raw, stayMilliseconds: settings.stayMilliseconds, track).filter { $0.end > $0.start }
        let nextStay: Int? = b < track.count - 1 ? entries.count + runs.count : nil
        for run in runs {
            let move = Move(start: run.start, end: run.end, mode: run.mode, meters: run.meters, fromStay: previousStay, toStay: nextStay)
            entries.append(.move(move))
        }
    }

    /// Whether fix times never decrease.
    private static func isInTimeOrder(_ fixes: [TimelineFix]) -> Bool {
        var previous = Int64.min
        for fix in fixes {
            if fix.time < previous { return false }
            previous = fix.time
        }
        return true
    }
}
