import CGEOS
import Foundation

/// An error GEOS reported, with the message its handler gave.
public struct GEOSError: Error, CustomStringConvertible, Sendable {
    /// The GEOS call that failed, e.g. reading WKB or a `covers` test.
    public let operation: String
    /// The text GEOS's error handler gave, or `no message`.
    public let message: String
    /// `GEOS OPERATION failed: MESSAGE`.
    public var description: String { "GEOS \(operation) failed: \(message)" }
    /// Whether the call was stopped by `GEOSContext.withTimeLimit`, not refused by GEOS.
    package var wasInterrupted: Bool { message.contains("InterruptedException") }
}

/// One GEOS context. GEOS handles are not thread-safe: each thread owns its own context,
/// and only WKB bytes (Sendable) cross threads.
package final class GEOSContext {
    let handle: OpaquePointer
    private let messages = MessageBox()

    package init() {
        handle = GEOS_init_r()
        GEOSContext_setErrorMessageHandler_r(
            handle,
            { message, user in
                guard let message, let user else { return }
                Unmanaged<MessageBox>.fromOpaque(user).takeUnretainedValue().last = String(cString: message)
            }, Unmanaged.passUnretained(messages).toOpaque())
    }

    deinit { GEOS_finish_r(handle) }

    /// Runs `body` with GEOS calls on this thread stopped once `seconds` have passed: the call
    /// under way then throws a `GEOSError` whose `wasInterrupted` is true. For work whose cost the
    /// input decides (repairing a stranger's polygon). GEOS 3.11's interruption is process-wide
    /// (see CGEOS's shim): a GEOS call on another thread at the very moment the time runs out
    /// may fail in its place, so this is for single-threaded work such as an import.
    package func withTimeLimit<T>(seconds: Double, _ body: () throws -> T) rethrows -> T {
        let key = Deadline.key
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: Deadline.now() + UInt(max(0, seconds) * 1e9)))
        defer { pthread_setspecific(key, nil) }
        return try body()
    }

    func failure(_ operation: String) -> GEOSError {
        defer { messages.last = nil }
        return GEOSError(operation: operation, message: messages.last ?? "no message")
    }

    /// GEOS predicates answer 0, 1 or 2 (error); the error is never read as an answer.
    func truth(_ value: Int8, _ operation: String) throws -> Bool {
        switch value {
        case 0: return false
        case 1: return true
        default: throw failure(operation)
        }
    }

    /// Wraps a GEOS result pointer, turning NULL into a typed error.
    func own(_ pointer: OpaquePointer?, _ operation: String) throws -> Geometry {
        guard let pointer else { throw failure(operation) }
        return Geometry(context: self, pointer: pointer)
    }

    /// Builds a polygon or multipolygon from assembled rings.
    package func polygonal(_ polygons: [PolygonRings]) throws -> Geometry {
        var built: [OpaquePointer?] = []
        do {
            for polygon in polygons { built.append(try makePolygon(polygon)) }
        } catch {
            for p in built { GEOSGeom_destroy_r(handle, p) }
            throw error
        }
        if built.count == 1 { return Geometry(context: self, pointer: built[0]!) }
        let multi = built.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOLYGON.rawValue), $0.baseAddress, UInt32($0.count))
        }
        return try own(multi, "createCollection")
    }

    private func makePolygon(_ polygon: PolygonRings) throws -> OpaquePointer {
        guard let shell = makeRing(polygon.shell) else { throw failure("createLinearRing") }
        var holes: [OpaquePointer?] = []
        for ring in polygon.holes {
            guard let hole = makeRing(ring) else {
                GEOSGeom_destroy_r(handle, shell)
                for h in holes { GEOSGeom_destroy_r(handle, h) }
                throw failure("createLinearRing")
            }
            holes.append(hole)
        }
        let result = holes.withUnsafeMutableBufferPointer {
            GEOSGeom_createPolygon_r(handle, shell, $0.baseAddress, UInt32($0.count))
        }
        guard let result else { throw failure("createPolygon") }
        return result
    }

    private func makeRing(_ ring: Ring) -> OpaquePointer? {
        let sequence = ring.xs.withUnsafeBufferPointer { xs in
            ring.ys.withUnsafeBufferPointer { ys in
                GEOSCoordSeq_copyFromArrays_r(handle, xs.baseAddress, ys.baseAddress, nil, nil, UInt32(xs.count))
            }
        }
        guard let sequence else { return nil }
        return GEOSGeom_createLinearRing_r(handle, sequence)
    }

    package func rectangle(_ box: BoundingBox) throws -> Geometry {
        try own(GEOSGeom_createRectangle_r(handle, box.minX, box.minY, box.maxX, box.maxY), "createRectangle")
    }

    package func point(x: Double, y: Double) throws -> Geometry {
        try own(GEOSGeom_createPointFromXY_r(handle, x, y), "createPoint")
    }

    package func geometry(wkb: Data) throws -> Geometry {
        guard let reader = GEOSWKBReader_create_r(handle) else { throw failure("WKBReader") }
        defer { GEOSWKBReader_destroy_r(handle, reader) }
        return try own(
            wkb.withUnsafeBytes {
                GEOSWKBReader_read_r(handle, reader, $0.bindMemory(to: UInt8.self).baseAddress, $0.count)
            },
            "WKB read")
    }
}

private final class MessageBox { var last: String? }

/// Each thread's GEOS deadline (`withTimeLimit`), in monotonic nanoseconds, kept as the value of a
/// thread-specific pointer (0: none). GEOS 3.11 checks for interruption inside its long loops,
/// calling one process-wide callback first (there is no per-context one before 3.12); this one
/// requests the interruption when the calling thread's deadline has passed, and the call under
/// way fails with "InterruptedException". The request itself is process-wide too: a GEOS call on
/// another thread checking at that very instant could take it instead.
private enum Deadline {
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        _ = GEOS_interruptRegisterCallback(check)
        return key
    }()

    static func now() -> UInt {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt(time.tv_sec) * 1_000_000_000 + UInt(time.tv_nsec)
    }

    static let check: @convention(c) () -> Void = {
        let deadline = UInt(bitPattern: pthread_getspecific(Deadline.key))
        if deadline != 0, Deadline.now() >= deadline { GEOS_interruptRequest() }
    }
}
