import Foundation

/// The visits of one region, kept in time order so that fixes may arrive in any order.
///
/// Each element is a *span*: a maximal run of visits whose inner structure we know (count 1: one visit, from
/// `start` to `end`) or do not know (a span loaded from the store with visitCount ≥ 2: we only have the first
/// visit's start, the latest visit's start and the latest visit's end). Spans are disjoint and sorted, and two
/// neighbouring spans are always more than the visit gap apart — otherwise they would be one visit.
///
/// Inserting a fix time t (gap G; "within" means ≤ G):
/// - t inside a span's [start, end]: nothing changes. For a stored multi-visit span this is the one place where we
///   decide without full information: t could belong to the first visit (whose end is unknown), to one of the
///   visits between, or be a visit never seen; we attribute it to the visits we have, so re-importing a
///   track never inflates counts (the cost: a genuinely new visit inside an old span is not counted).
/// - t within G after one span's end and within G before the next span's start: it bridges them, the two become
///   one span and the two visits that touch become one (count = sum - 1).
/// - t within G of only one span: that span (its first or latest visit) stretches to t.
/// - otherwise t is a new visit of its own.
/// The spans are then exactly the connected groups of times under "≤ G apart" (plus the stored spans), which does
/// not depend on the order the times came in: sorted, reversed and shuffled input give identical results.
struct VisitTimeline {
    struct Span: Equatable {
        var start: Date
        /// Start of the latest visit in this span (== start when count is 1).
        var lastStart: Date
        var end: Date
        var count: Int
    }

    enum Change {
        /// t was already covered: the region is unchanged.
        case none
        /// t stretched or bridged existing visits.
        case extended
        /// t is a visit of its own.
        case newVisit
    }

    private(set) var spans: [Span]
    /// The spans' counts added up, kept as they change (a region visited daily for years has
    /// thousands of spans, and most of its fixes change one).
    private(set) var visitCount: Int

    /// One visit at a single instant (a region created from one fix).
    init(instant: Date) {
        spans = [Span(start: instant, lastStart: instant, end: instant, count: 1)]
        visitCount = 1
    }

    /// From a stored region's summary, normalising inconsistent values (lastVisit before the start, end before
    /// lastVisit, count < 1) instead of trusting them.
    init(region: VisitedRegion) {
        let count = max(1, region.visitCount)
        let start = region.timestampStart
        let lastStart = count == 1 ? start : max(start, region.lastVisit)
        let end = max(lastStart, region.timestampEnd ?? lastStart)
        spans = [Span(start: start, lastStart: lastStart, end: end, count: count)]
        visitCount = count
    }

    var timestampStart: Date { spans[0].start }
    var timestampEnd: Date { spans[spans.count - 1].end }
    var lastVisit: Date { spans[spans.count - 1].lastStart }

    mutating func insert(_ t: Date, gap: TimeInterval) -> Change {
        // Index of the first span starting after t; the span before it (if any) starts at or before t.
        var low = 0, high = spans.count
        while low < high {
            let mid = (low + high) / 2
            if spans[mid].start <= t { low = mid + 1 } else { high = mid }
        }
        let next = low, previous = low - 1
        if previous >= 0 && t <= spans[previous].end { return .none }

        let joinsPrevious = previous >= 0 && t.timeIntervalSince(spans[previous].end) <= gap
        let joinsNext = next < spans.count && spans[next].start.timeIntervalSince(t) <= gap
        switch (joinsPrevious, joinsNext) {
        case (true, true):
            let before = spans[previous], after = spans[next]
            spans[previous] = Span(start: before.start,
                                   lastStart: after.count > 1 ? after.lastStart : before.lastStart,
                                   end: after.end, count: before.count + after.count - 1)
            spans.remove(at: next)
            visitCount -= 1
        case (true, false):
            spans[previous].end = t
        case (false, true):
            spans[next].start = t
            if spans[next].count == 1 { spans[next].lastStart = t }
        case (false, false):
            spans.insert(Span(start: t, lastStart: t, end: t, count: 1), at: next)
            visitCount += 1
            return .newVisit
        }
        return .extended
    }
}
