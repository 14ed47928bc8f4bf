import Foundation
import RoquaIO

/// What a phone app needs to post to `roqua serve` as one device: each app's URL, and the links
/// OwnTracks and Overland open to configure themselves (what the browser app's QR codes hold).
/// `roqua serve device add` prints it; the browser app's "add a phone" shows it.
public struct DeviceSetup: Sendable, Equatable {
    public let name: String
    public let token: String
    /// The server's address as the phone reaches it, without a trailing slash.
    public let base: String

    /// - Throws: `BadRequest` unless `base` is `http://HOST[:PORT]` or `https://…` (a path is kept:
    ///   behind a reverse proxy the server may live under one).
    public init(name: String, token: String, base: String) throws {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let parsed = URLComponents(string: trimmed), ["http", "https"].contains(parsed.scheme ?? ""),
            let host = parsed.host, !host.isEmpty, parsed.query == nil, parsed.fragment == nil, parsed.user == nil
        else {
            throw BadRequest(
                "the server's address must be http://HOST:PORT or https://HOST[/PATH], not " + Echo.quoted(String(base.prefix(80))))
        }
        self.name = name
        self.token = token
        self.base = trimmed
    }

    public var ownTracksURL: String { "\(base)/api/ingest/owntracks" }
    /// Overland puts its token in the URL.
    public var overlandURL: String { "\(base)/api/ingest/overland?token=\(token)" }
    /// Traccar Client also sends the token as its device identifier (in the body); in the URL
    /// it authenticates the request before the body is read, so catch-up batches may be large.
    public var traccarURL: String { "\(base)/api/ingest/traccar?token=\(token)" }
    public var osmandURL: String { "\(base)/api/ingest/osmand?id=\(token)" }
    public var gpsLoggerURL: String { "\(base)/api/ingest/gpslogger?token=\(token)&lat=%LAT&lon=%LON&time=%TIME&acc=%ACC&spd=%SPD" }

    /// Each app's endpoint, keyed as `device add --json` prints them. The token is URL-safe
    /// base64: nothing in it needs escaping.
    public var urls: [String: String] {
        ["owntracks": ownTracksURL, "overland": overlandURL, "traccar": traccarURL, "osmand": osmandURL, "gpslogger": gpsLoggerURL]
    }

    /// OwnTracks' remote configuration (`owntracks:///config?inline=` + base64 of a
    /// `_type: configuration` document): HTTP mode, this URL, Basic auth as this device.
    public var ownTracksLink: String {
        let configuration = OwnTracksConfiguration(
            url: ownTracksURL, username: name, password: token, deviceId: name,
            tid: String(name.prefix(2)))
        // Text and two small integers: nothing in it can fail to encode.
        let json = (try? OrderedJSONEncoder().encode(configuration)) ?? []
        return "owntracks:///config?inline=" + Data(json).base64EncodedString()
    }

    /// Overland's setup link (`overland://setup?url=…&token=…&device_id=…`).
    public var overlandLink: String {
        var components = URLComponents()
        components.scheme = "overland"
        components.host = "setup"
        components.queryItems = [
            URLQueryItem(name: "url", value: "\(base)/api/ingest/overland"),
            URLQueryItem(name: "token", value: token),
            URLQueryItem(name: "device_id", value: name),
        ]
        // `URLComponents` leaves ':' and '/' in query values; Overland reads them percent-encoded.
        components.percentEncodedQuery = components.queryItems?.map { item in
            item.name + "=" + ((item.value ?? "").addingPercentEncoding(withAllowedCharacters: Self.queryValue) ?? "")
        }.joined(separator: "&")
        return components.string ?? ""
    }

    /// The settings as `device add` prints them, one app a line or two.
    public var instructions: String {
        """
        OwnTracks (Settings → Connection): Mode HTTP, URL \(ownTracksURL)
          Authentication on, User \(name), Password the token
        Overland (Settings → Receiver Endpoint): \(overlandURL)
        Traccar Client: Server URL \(traccarURL), Device identifier the token
        OsmAnd (Trip recording → Online tracking web address): \(osmandURL)&lat={0}&lon={1}&timestamp={2}&speed={5}&accuracy={3}
        GPSLogger (Log to custom URL): \(gpsLoggerURL)
        """
    }

    /// OwnTracks' `_type: configuration` document, keys sorted (as the app has always been sent them).
    struct OwnTracksConfiguration: OrderedJSON {
        var type = "configuration"
        var auth = true
        var deviceId: String
        /// 3: HTTP.
        var mode = 3
        var password: String
        var tid: String
        var url: String
        var username: String

        init(url: String, username: String, password: String, deviceId: String, tid: String) {
            (self.url, self.username, self.password, self.deviceId, self.tid) = (url, username, password, deviceId, tid)
        }

        enum CodingKeys: String, CodingKey {
            case type = "_type", auth, deviceId, mode, password, tid, url, username
        }
    }

    private static let queryValue = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
}
