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

    /// The spans, the first held in place: a timeline of one span (most regions) allocates nothing.
    private var list: SpanList
    /// The spans' counts added up, kept as they change (a region visited daily for years has
    /// thousands of spans, and most of its fixes change one).
    private(set) var visitCount: Int

    /// The spans, in time order.
    var spans: [Span] { list.all }
    /// How many spans there are: with one, the region's own times and count say all the timeline
    /// knows (`init(start:end:lastVisit:visitCount:)` gives it back from them).
    var spanCount: Int { list.count }

    /// From a region's start, end, latest visit and count (a stored region's summary), normalising
    /// inconsistent values (lastVisit before the start, end before lastVisit, count < 1) instead of
    /// trusting them.
    init(start: Date, end: Date?, lastVisit: Date, visitCount visits: Int) {
        let count = max(1, visits)
        let lastStart = count == 1 ? start : max(start, lastVisit)
        let end = max(lastStart, end ?? lastStart)
        list = SpanList(Span(start: start, lastStart: lastStart, end: end, count: count))
        visitCount = count
    }

    /// What a region keeps of its timeline: its first start, last end, latest visit and count.
    struct Summary {
        var timestampStart: Date, timestampEnd: Date, lastVisit: Date, visitCount: Int
    }
    var summary: Summary {
        Summary(timestampStart: timestampStart, timestampEnd: timestampEnd, lastVisit: lastVisit, visitCount: visitCount)
    }

    var timestampStart: Date { list[0].start }
    var timestampEnd: Date { list[list.count - 1].end }
    var lastVisit: Date { list[list.count - 1].lastStart }

    mutating func insert(_ t: Date, gap: TimeInterval) -> Change {
        // Index of the first span starting after t; the span before it (if any) starts at or before t.
        // Fixes come in time order, so that is nearly always the end: checked first.
        var low = 0, high = list.count
        if list[high - 1].start <= t { low = high }
        while low < high {
            let mid = (low + high) / 2
            if list[mid].start <= t { low = mid + 1 } else { high = mid }
        }
        let next = low, previous = low - 1
        if previous >= 0 && t <= list[previous].end { return .none }

        let joinsPrevious = previous >= 0 && t.timeIntervalSince(list[previous].end) <= gap
        let joinsNext = next < list.count && list[next].start.timeIntervalSince(t) <= gap
        switch (joinsPrevious, joinsNext) {
        case (true, true):
            let before = list[previous], after = list[next]
            list[previous] = Span(
                start: before.start,
                lastStart: after.count > 1 ? after.lastStart : before.lastStart,
                end: after.end, count: before.count + after.count - 1)
            list.remove(at: next)
            visitCount -= 1
        case (true, false):
            list[previous].end = t
        case (false, true):
            list[next].start = t
            if list[next].count == 1 { list[next].lastStart = t }
        case (false, false):
            list.insert(Span(start: t, lastStart: t, end: t, count: 1), at: next)
            visitCount += 1
            return .newVisit
        }
        return .extended
    }
}

/// Spans in order, the first in place and the rest in an array (empty, so unallocated, for one).
private struct SpanList {
    private var head: VisitTimeline.Span
    private var rest: [VisitTimeline.Span] = []

    init(_ span: VisitTimeline.Span) { head = span }

    var count: Int { 1 + rest.count }
    var all: [VisitTimeline.Span] { [head] + rest }

    subscript(index: Int) -> VisitTimeline.Span {
        get { index == 0 ? head : rest[index - 1] }
        set {
            if index == 0 { head = newValue } else { rest[index - 1] = newValue }
        }
    }

    /// Removes span `index`; there is always another left.
    mutating func remove(at index: Int) {
        precondition(count > 1, "a timeline keeps at least one span")
        if index == 0 { head = rest.removeFirst() } else { rest.remove(at: index - 1) }
    }

    mutating func insert(_ span: VisitTimeline.Span, at index: Int) {
        // Grown by an eighth, not doubled: a decade's daily visits are a million spans of 32
        // bytes, and doubling left a quarter of them unused on average.
        if rest.count == rest.capacity { rest.reserveCapacity(rest.count + max(4, rest.count / 8)) }
        if index == 0 {
            rest.insert(head, at: 0)
            head = span
        } else {
            rest.insert(span, at: index - 1)
        }
    }
}
