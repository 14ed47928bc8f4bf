/// Fixes decoded from one record (a LineString, a timeline segment) and handed out one per
/// `next()` call, so a reader holds one record's fixes at a time, never the file's.
struct PendingFixes {
    private var fixes: [Fix] = []
    private var index = 0

    mutating func append(_ fix: Fix) { fixes.append(fix) }

    /// The next queued fix; nil (and an empty, reusable queue) when all were handed out.
    mutating func pop() -> Fix? {
        if index < fixes.count {
            index += 1
            return fixes[index - 1]
        }
        fixes.removeAll(keepingCapacity: true)
        index = 0
        return nil
    }
}
