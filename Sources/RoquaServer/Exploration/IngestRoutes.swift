import Foundation
import Hummingbird
import NIOCore
import RoquaIO
import RoquaRegions
import RoquaServeInput
import Synchronization

/// Positions posted live by the tracker apps people already use (`LiveProtocol`), each answered
/// as its app expects, stored through the same pipeline as a file import (time window, accuracy
/// filter, clustering, enrichment, achievements) in one transaction per request.
///
/// Every route needs a device's own credentials (`roqua serve device add`), never the server's
/// token or the page's cookie: a device can write fixes and read nothing. A request is answered
/// only after its fixes are committed, and a retry of the same positions is stored once (the
/// batch's canonical text is the import's checksum).
enum IngestRoutes {
    /// JSON bodies, at most: `LiveFixes.maxFixes` positions of a few hundred bytes (Overland's
    /// largest batches, 1,000 positions, are ~600 kB).
    static let maxBody = 4 << 20
    /// A Traccar Client body before the `device_id` in it has authenticated it: a few dozen
    /// positions. Larger catch-ups need the token in the URL (`device add` prints it there).
    static let unauthenticatedBody = 64 << 10
    static let prefix = "/api/ingest/"

    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.post("/api/ingest/owntracks") { request, _ -> Response in
            let device = try authenticate(request, state: state, credentials: credentials(request, basicAuth: true))
            let batch = try await state.ingestLimits.reading {
                try LiveFixes.ownTracks(try await body(request, upTo: maxBody), window: state.liveWindow())
            }
            try await store(batch, device: device, app: .ownTracks, state: state)
            // OwnTracks reads the answer as a list of messages for the phone: none.
            return try JSONBody.encoded([String]())
        }
        router.post("/api/ingest/overland") { request, _ -> Response in
            let device = try authenticate(request, state: state, credentials: credentials(request, queryToken: "token"))
            let batch = try await state.ingestLimits.reading {
                try LiveFixes.overland(try await body(request, upTo: maxBody), window: state.liveWindow())
            }
            try await store(batch, device: device, app: .overland, state: state)
            // Overland deletes the batch from the phone only on exactly this answer.
            return try JSONBody.encoded(OverlandAnswer())
        }
        router.post("/api/ingest/traccar") { request, _ -> Response in
            let given = try credentials(request, queryToken: "token")
            let window = state.liveWindow()
            let batch: LiveBatch, owner: String
            if let given {
                // Authenticated by a header or the URL before a byte of the body is read.
                owner = try authenticate(request, state: state, credentials: given)
                batch = try await state.ingestLimits.reading {
                    try LiveFixes.traccar(try await body(request, upTo: maxBody), window: window).batch
                }
            } else {
                // By the body's `device_id`: a small body only, parsed in well under a millisecond
                // (no reading slot is taken, so strangers cannot hold the slots).
                let (parsed, deviceID) = try LiveFixes.traccar(
                    try await body(request, upTo: unauthenticatedBody, unauthenticated: true),
                    window: window)
                owner = try authenticate(request, state: state, credentials: Credentials(token: deviceID, user: nil))
                batch = parsed
            }
            try await store(batch, device: owner, app: .traccar, state: state)
            return Response(status: .ok)
        }
        for (path, app) in [("/api/ingest/osmand", LiveProtocol.osmAnd), ("/api/ingest/gpslogger", .gpsLogger)] {
            let handler: @Sendable (Request, Context) async throws -> Response = { request, _ in
                var request = request
                var parameters = try QueryParameters(request.uri.query)
                if request.method == .post {
                    // A form body (GPSLogger's and OsmAnd's POST), bounded like a query string. GPSLogger
                    // posts to the URL it was given (token included) with the fields in the body: both
                    // count, the body's value winning where a field is in both.
                    let body = try await request.collectBody(upTo: QueryParameters.maxBytes)
                    if body.readableBytes > 0 { parameters = parameters.merging(try QueryParameters(String(buffer: body))) }
                }
                let token = parameters[app == .osmAnd ? "id" : "token"]
                let device = try authenticate(
                    request, state: state,
                    credentials: try credentials(request) ?? Credentials(token: token, user: nil))
                let window = state.liveWindow()
                let batch =
                    try app == .osmAnd ? LiveFixes.osmAnd(parameters, window: window) : LiveFixes.gpsLogger(parameters, window: window)
                try await store(batch, device: device, app: app, state: state)
                return Response(status: .ok)
            }
            router.get(RouterPath(path), use: handler)
            router.post(RouterPath(path), use: handler)
        }
    }

    /// A device's token as a request carries it, and the user name Basic auth gave with it.
    struct Credentials {
        var token: String?
        var user: String?
    }

    /// The credentials in `Authorization: Bearer TOKEN`, Basic (`basicAuth`; user = the device's
    /// name, password = its token), or the query (`queryToken`); nil when there are none.
    static func credentials(_ request: Request, basicAuth: Bool = false, queryToken: String? = nil) throws -> Credentials? {
        if let header = request.headers[.authorization] {
            if header.hasPrefix("Bearer ") { return Credentials(token: String(header.dropFirst(7)), user: nil) }
            if basicAuth, header.hasPrefix("Basic "),
                let decoded = Data(base64Encoded: String(header.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) }),
                let colon = decoded.firstIndex(of: ":")
            {
                return Credentials(token: String(decoded[decoded.index(after: colon)...]), user: String(decoded[..<colon]))
            }
        }
        guard let queryToken, let token = try QueryParameters(request.uri.query)[queryToken] else { return nil }
        return Credentials(token: token, user: nil)
    }

    /// The device `credentials` belong to.
    /// - Throws: 401 for none or a wrong, revoked or unknown token; 429 past the device's rate.
    static func authenticate(_ request: Request, state: ServerState, credentials: Credentials?) throws -> String {
        let challenge: HTTPFields =
            request.uri.path.hasSuffix("/owntracks")
            ? [.wwwAuthenticate: "Basic realm=\"roqua\""]
            : [.wwwAuthenticate: "Bearer"]
        guard let token = credentials?.token, let device = try state.store.device(forToken: token),
            credentials?.user == nil || credentials?.user == device
        else {
            throw APIError(
                .unauthorized, "this endpoint needs a device's token (roqua serve device add NAME prints one)",
                headers: challenge)
        }
        guard state.ingestLimits.admit(device) else {
            throw APIError(
                .tooManyRequests, "device \(device) is posting faster than \(IngestLimits.perSecond) requests a second",
                headers: [.retryAfter: "1"])
        }
        return device
    }

    /// A request's body, at most `limit` bytes: 413 past it, and before a byte is read when
    /// `Content-Length` says so.
    static func body(_ request: Request, upTo limit: Int, unauthenticated: Bool = false) async throws -> Data {
        let tooLarge = APIError(
            .contentTooLarge,
            unauthenticated
                ? "a body over \(limit >> 10) kB needs the device's token in the URL first (…/api/ingest/traccar?token=TOKEN)"
                : "the body is larger than \(limit >> 20) MB")
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit { throw tooLarge }
        var request = request
        do { return Data(buffer: try await request.collectBody(upTo: limit)) } catch is NIOTooManyBytesError {
            throw tooLarge
        }
    }

    /// Stores a batch's fixes as one import named `live/DEVICE (APP)`, with its achievements,
    /// and logs what was skipped (the counts, never a coordinate).
    static func store(_ batch: LiveBatch, device: String, app: LiveProtocol, state: ServerState) async throws {
        if batch.skippedCount > 0 {
            state.logger.notice(
                "live fixes skipped",
                metadata: [
                    "device": "\(device)", "app": "\(app.rawValue)",
                    "skipped": "\(batch.skipped)",
                ])
        }
        try await offloaded {
            try state.store.deviceSeen(device, posted: batch.fixes.count, skipped: batch.skippedCount)
            guard !batch.fixes.isEmpty else { return }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roqua-live-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("fixes.csv").path
            guard
                FileManager.default.createFile(
                    atPath: file, contents: Data(canonicalCSV(batch.fixes).utf8),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw APIError(.internalServerError, "the fixes could not be written for import")
            }
            let importer = try state.importer()
            let source = try TrackSource(file: file, name: "live/\(device) (\(app.rawValue))")
            let tracker = state.tracker
            // A phone goes on posting: each fix is judged against the device's earlier ones.
            let (summary, _) = try importer.importSource(source, options: TrackReadOptions(continuing: true)) { db, summary in
                try tracker.consume(db, events: summary.events, stored: summary.storedRegions)
            }
            state.logger.info(
                "live fixes stored",
                metadata: [
                    "device": "\(device)", "app": "\(app.rawValue)",
                    "fixes": "\(summary.fixesRead)", "new_regions": "\(summary.newRegions)",
                    "repeated": "\(summary.alreadyImported)",
                ])
        }
    }

    /// The batch as the CSV the importer reads, in time order: the same positions give the same
    /// text (and so the same checksum) whatever order or extra fields the app sent them with.
    static func canonicalCSV(_ fixes: [LiveFix]) -> String {
        var text = "latitude,longitude,time,accuracy,speed\n"
        for fix in fixes.sorted(by: { ($0.time, $0.latitude, $0.longitude) < ($1.time, $1.latitude, $1.longitude) }) {
            let time = TimeText.iso8601Milliseconds(fix.time) ?? ""
            text += "\(fix.latitude),\(fix.longitude),\(time),\(fix.accuracy.map { "\($0)" } ?? ""),\(fix.speed.map { "\($0)" } ?? "")\n"
        }
        return text
    }
}

/// Requests per device: a bucket of `burst` refilled at `perSecond`; and ingestion bodies read
/// and parsed at once, at most `maximumBodies` (each up to `IngestRoutes.maxBody`), so a few
/// clients cannot hold the server's memory and cores.
final class IngestLimits: Sendable {
    static let perSecond = 20.0
    static let burst = 200.0
    static let maximumBodies = 4
    private let state = Mutex((buckets: [String: (tokens: Double, at: Date)](), bodies: 0))

    func admit(_ device: String, now: Date = Date()) -> Bool {
        state.withLock { state in
            var bucket = state.buckets[device] ?? (Self.burst, now)
            bucket.tokens = min(Self.burst, bucket.tokens + now.timeIntervalSince(bucket.at) * Self.perSecond)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                state.buckets[device] = bucket
                return false
            }
            bucket.tokens -= 1
            state.buckets[device] = bucket
            return true
        }
    }

    /// Runs `body` (reading and parsing one request's body) in one of the `maximumBodies` slots.
    /// - Throws: 503 when every slot is taken; what `body` throws.
    func reading<T>(_ body: () async throws -> T) async throws -> T {
        let admitted = state.withLock { state in
            guard state.bodies < Self.maximumBodies else { return false }
            state.bodies += 1
            return true
        }
        guard admitted else {
            throw APIError(
                .serviceUnavailable, "\(Self.maximumBodies) position batches are being read already; try again",
                headers: [.retryAfter: "1"])
        }
        defer { state.withLock { $0.bodies -= 1 } }
        return try await body()
    }
}

/// What Overland must read to delete a batch from the phone: exactly `{"result":"ok"}`.
struct OverlandAnswer: Encodable {
    var result = "ok"
}
