import Foundation
import Hummingbird
import RoquaIO
import RoquaQR
import RoquaRegions
import RoquaServeInput

/// The browser app's "phones" panel, as `roqua serve device` does on the command line:
/// `GET /api/devices` lists them (never a token: only hashes are kept), `POST /api/devices`
/// `{"name","url"}` adds one and answers its token once with each app's settings and the QR codes
/// OwnTracks and Overland scan to set themselves up; `POST /api/devices/NAME/revoke` revokes it.
///
/// These are the page's routes, under its guard: a write needs the page's origin and token, and
/// with `--token` every route needs the server's token. A device's own token opens none of them.
enum DeviceRoutes {
    struct Listing: Encodable {
        let devices: [Device]
        /// False when the server listens on loopback only: no phone can reach it.
        let reachableFromNetwork: Bool
    }

    struct Added: Encodable {
        let name: String
        let token: String
        let urls: [String: String]
        let links: [String: String]
        /// SVG images of the links, for the page's `<img>`s.
        let qr: [String: String]
    }

    /// `{"revoked":"NAME"}`.
    struct Revoked: OrderedJSON {
        let revoked: String
    }

    /// What the page posts to add a device: two strings, each checked on its own so that the
    /// answer names the one that is wrong.
    struct NewDevice: Decodable {
        let name: String?
        let url: String?

        enum CodingKeys: String, CodingKey { case name, url }

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: CodingKeys.self)
            name = try? object.decode(String.self, forKey: .name)
            url = try? object.decode(String.self, forKey: .url)
        }
    }

    static let maxBody = 4096

    static func add<Context: RequestContext>(to router: Router<Context>, state: ServerState) {
        router.get("/api/devices") { _, _ -> Response in
            let devices = try await offloaded { try state.store.devices() }
            return try JSONBody.encoded(Listing(devices: devices, reachableFromNetwork: !state.options.listen.isLoopback))
        }
        router.post("/api/devices") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: maxBody)
            let (name, url) = try requestFields(Data(buffer: body))
            // Checked before the device is stored: a bad address must leave no device behind.
            do { try RegionStore.checkDeviceName(name) } catch let error as DeviceError { throw APIError.badRequest(error.description) }
            _ = try DeviceSetup(name: name, token: "check", base: url)
            let token = try await offloaded {
                // The name is valid (checked above): what is left is a name in use.
                do { return try state.store.addDevice(name) } catch let error as DeviceError {
                    throw APIError(.conflict, error.description)
                }
            }
            let setup = try DeviceSetup(name: name, token: token, base: url)
            let links = ["owntracks": setup.ownTracksLink, "overland": setup.overlandLink]
            let qr = try links.mapValues { try QRCode($0).svg(scale: 3) }
            state.logger.info("device added from the page", metadata: ["device": "\(name)"])
            var response = try JSONBody.encoded(Added(name: name, token: token, urls: setup.urls, links: links, qr: qr))
            response.status = .created
            response.headers[.cacheControl] = "no-store"
            return response
        }
        router.post("/api/devices/:name/revoke") { _, context -> Response in
            let name = try context.parameters.require("name")
            try await offloaded {
                do { try state.store.revokeDevice(name) } catch let error as DeviceError {
                    throw APIError(.notFound, error.description)
                }
            }
            state.logger.info("device revoked from the page", metadata: ["device": "\(name)"])
            return try JSONBody.encoded(Revoked(revoked: name))
        }
    }

    /// `{"name": "…", "url": "http://…"}`: both strings.
    static func requestFields(_ data: Data) throws -> (name: String, url: String) {
        guard let fields = try? CheckedJSONDecoder().decode(NewDevice.self, from: data) else {
            throw APIError.badRequest("send a JSON object {\"name\": \"…\", \"url\": \"http://ADDRESS:PORT\"}")
        }
        guard let name = fields.name else { throw APIError.badRequest("\"name\" must be a string: the device's name") }
        guard let url = fields.url else {
            throw APIError.badRequest("\"url\" must be a string: the server's address as the phone reaches it")
        }
        return (name, url)
    }
}
