import Foundation
import RoquaBoundaries

/// Byte arrays handed back after use and lent out again, emptied but with their capacity, so a
/// batch in its steady state allocates (and page-faults in) no new buffers per chunk. Holds at
/// most `limit` arrays; more given back are freed.
package final class BufferPool: @unchecked Sendable {
    // @unchecked: `arrays` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var arrays: [[UInt8]] = []
    private let limit: Int

    package init(limit: Int) { self.limit = limit }

    /// An empty array, with the capacity of one given back when there is one.
    func take() -> [UInt8] {
        lock.lock()
        var array = arrays.popLast() ?? []
        lock.unlock()
        array.removeAll(keepingCapacity: true)
        return array
    }

    func give(_ array: consuming [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        if arrays.count < limit { arrays.append(array) }
    }
}
