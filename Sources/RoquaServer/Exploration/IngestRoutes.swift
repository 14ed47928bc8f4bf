import Foundation
import Hummingbird
import RoquaIO
import RoquaRegions
import RoquaServeInput

/// Positions posted live by the tracker apps people already use (`LiveProtocol`), each answered
/// as its app expects, stored through the same pipeline as a file import (time window, accuracy
/// filter, clustering, enrichment, achievements) in one transaction per request.
///
/// Every route needs a device's own credentials (`roqua serve device add`), never the server's
/// token or the page's cookie: a device can write fixes and read nothing. A request is answered
/// only after its fixes are committed, and a retry of the same positions is stored once (the
/// batch's canonical text is the import's checksum).
enum IngestRoutes {
    /// JSON bodies, at most (Overland's largest batches are a few hundred kB).
    static let maxBody = 8 << 20
    static let prefix = "/api/ingest/"

    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.post("/api/ingest/owntracks") { request, _ -> Response in
            let device = try authenticate(request, state: state, basicAuth: true)
            var request = request
            let batch = try LiveFixes.ownTracks(Data(buffer: try await request.collectBody(upTo: maxBody)))
            try await store(batch, device: device, app: .ownTracks, state: state)
            // OwnTracks reads the answer as a list of messages for the phone: none.
            return JSONBody.response("[]")
        }
        router.post("/api/ingest/overland") { request, _ -> Response in
            let device = try authenticate(request, state: state, queryToken: "token")
            var request = request
            let batch = try LiveFixes.overland(Data(buffer: try await request.collectBody(upTo: maxBody)))
            try await store(batch, device: device, app: .overland, state: state)
            // Overland deletes the batch from the phone only on exactly this answer.
            return JSONBody.response("{\"result\":\"ok\"}")
        }
        router.post("/api/ingest/traccar") { request, _ -> Response in
            var request = request
            let (batch, deviceID) = try LiveFixes.traccar(Data(buffer: try await request.collectBody(upTo: maxBody)))
            let device = try authenticate(request, state: state, given: deviceID)
            try await store(batch, device: device, app: .traccar, state: state)
            return Response(status: .ok)
        }
        for (path, app) in [("/api/ingest/osmand", LiveProtocol.osmAnd), ("/api/ingest/gpslogger", .gpsLogger)] {
            let handler: @Sendable (Request, Context) async throws -> Response = { request, _ in
                var request = request
                var parameters = try QueryParameters(request.uri.query)
                if request.method == .post {
                    // A form body (GPSLogger's and OsmAnd's POST), bounded like a query string.
                    let body = try await request.collectBody(upTo: QueryParameters.maxBytes)
                    if body.readableBytes > 0 { parameters = try QueryParameters(String(buffer: body)) }
                }
                let device = try authenticate(request, state: state, given: parameters[app == .osmAnd ? "id" : "token"])
                let batch = try app == .osmAnd ? LiveFixes.osmAnd(parameters) : LiveFixes.gpsLogger(parameters)
                try await store(batch, device: device, app: app, state: state)
                return Response(status: .ok)
            }
            router.get(RouterPath(path), use: handler)
            router.post(RouterPath(path), use: handler)
        }
    }

    /// The device a request's credentials belong to: `Authorization: Bearer TOKEN`, Basic
    /// (`basicAuth`; user = the device's name, password = its token), or the token the protocol
    /// carries in a field (`given`) or in the query (`queryToken`).
    /// - Throws: 401 for none or a wrong, revoked or unknown one; 429 past the device's rate.
    static func authenticate(_ request: Request, state: ServerState, basicAuth: Bool = false, queryToken: String? = nil,
                             given: String? = nil) throws -> String {
        var token = given
        var user: String?
        if let header = request.headers[.authorization] {
            if header.hasPrefix("Bearer ") {
                token = String(header.dropFirst(7))
            } else if basicAuth, header.hasPrefix("Basic "),
                      let decoded = Data(base64Encoded: String(header.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) }),
                      let colon = decoded.firstIndex(of: ":") {
                user = String(decoded[..<colon])
                token = String(decoded[decoded.index(after: colon)...])
            }
        }
        if token == nil, let queryToken { token = (try? QueryParameters(request.uri.query))?[queryToken] }
        let challenge: HTTPFields = basicAuth ? [.wwwAuthenticate: "Basic realm=\"roqua\""] : [.wwwAuthenticate: "Bearer"]
        guard let token, let device = try state.store.device(forToken: token), user == nil || user == device else {
            throw APIError(.unauthorized, "this endpoint needs a device's token (roqua serve device add NAME prints one)",
                           headers: challenge)
        }
        guard state.ingestLimits.admit(device) else {
            throw APIError(.tooManyRequests, "device \(device) is posting faster than \(IngestLimits.perSecond) requests a second",
                           headers: [.retryAfter: "1"])
        }
        return device
    }

    /// Stores a batch's fixes as one import named `live/DEVICE (APP)`, with its achievements,
    /// and logs what was skipped (the counts, never a coordinate).
    static func store(_ batch: LiveBatch, device: String, app: LiveProtocol, state: ServerState) async throws {
        if batch.skippedCount > 0 {
            state.logger.notice("live fixes skipped", metadata: ["device": "\(device)", "app": "\(app.rawValue)",
                                                                 "skipped": "\(batch.skipped)"])
        }
        try await offloaded {
            try state.store.deviceSeen(device, posted: batch.fixes.count, skipped: batch.skippedCount)
            guard !batch.fixes.isEmpty else { return }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roqua-live-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("fixes.csv").path
            guard FileManager.default.createFile(atPath: file, contents: Data(canonicalCSV(batch.fixes).utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw APIError(.internalServerError, "the fixes could not be written for import")
            }
            let importer = try state.importer()
            let source = try TrackSource(file: file, name: "live/\(device) (\(app.rawValue))")
            let tracker = state.tracker
            let (summary, _) = try importer.importSource(source) { db, summary in try tracker.consume(db, events: summary.events, stored: summary.storedRegions) }
            state.logger.info("live fixes stored", metadata: ["device": "\(device)", "app": "\(app.rawValue)",
                                                              "fixes": "\(summary.fixesRead)", "new_regions": "\(summary.newRegions)",
                                                              "repeated": "\(summary.alreadyImported)"])
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

/// Requests per device: a bucket of `burst` refilled at `perSecond`.
final class IngestLimits: @unchecked Sendable {
    static let perSecond = 20.0
    static let burst = 200.0
    private let lock = NSLock()
    private var buckets: [String: (tokens: Double, at: Date)] = [:]

    func admit(_ device: String, now: Date = Date()) -> Bool {
        lock.withLock {
            var bucket = buckets[device] ?? (Self.burst, now)
            bucket.tokens = min(Self.burst, bucket.tokens + now.timeIntervalSince(bucket.at) * Self.perSecond)
            bucket.at = now
            guard bucket.tokens >= 1 else { buckets[device] = bucket; return false }
            bucket.tokens -= 1
            buckets[device] = bucket
            return true
        }
    }
}
