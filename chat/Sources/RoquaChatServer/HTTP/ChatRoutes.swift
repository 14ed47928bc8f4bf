import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RoquaChatCore
import RoquaHTTPGuard

/// The HTTP API. Handlers parse, call a service and encode; rules live in the services and
/// `Policy`.
struct ChatRoutes: Sendable {
    let auth: AuthService
    let groups: GroupService
    let sync: SyncService
    let blobs: BlobService
    let identity: ServerIdentityService
    let store: any ChatStore
    let settings: ChatSettings
    let clock: any ChatClock
    let signInLimits: SignInLimits

    /// A display-name body: the longest name, escaped, with room to spare.
    static let maxDisplayNameBodyBytes = 2048

    func register(on router: Router<ChatRequestContext>) {
        router.add(middleware: RequestLogMiddleware(level: .info))
        router.add(middleware: ErrorMiddleware())
        router.get("/healthz") { _, _ in JSONResponse.make(["status": "ok"]) }
        registerAuth(on: router.group("/v1/auth"))
        let api = router.group("/v1").add(middleware: AuthMiddleware(auth: auth))
        registerAccount(on: api)
        registerGroups(on: api)
        registerSync(on: api)
        registerIdentity(on: api)
    }

    func registerAuth(on routes: RouterGroup<ChatRequestContext>) {
        routes.post("/otp/request") { request, context in
            let client = try await signInLimits.admit(
                .codeRequest, peer: context.clientAddress, headers: request.headers,
                logger: context.logger)
            let body = try await ChatBody.decode(OTPRequestBody.self, from: request, limit: settings.maxJSONBodyBytes)
            let requestID = try await auth.requestCode(phone: body.phone, from: client.key)
            return JSONResponse.make(OTPRequestAccepted(requestID: requestID), status: .accepted)
        }
        routes.post("/otp/verify") { request, context in
            _ = try await signInLimits.admit(.codeCheck, peer: context.clientAddress, headers: request.headers, logger: context.logger)
            let body = try await ChatBody.decode(OTPVerifyBody.self, from: request, limit: settings.maxJSONBodyBytes)
            return JSONResponse.make(try await auth.verify(body))
        }
        routes.post("/refresh") { request, _ in
            let body = try await ChatBody.decode(RefreshBody.self, from: request, limit: settings.maxJSONBodyBytes)
            return JSONResponse.make(try await auth.refresh(body))
        }
        routes.post("/logout") { request, _ in
            let body = try await ChatBody.decode(RefreshBody.self, from: request, limit: settings.maxJSONBodyBytes)
            return JSONResponse.make(LogoutResult(signInsEnded: try await auth.logout(body)))
        }
    }

    func registerAccount(on api: RouterGroup<ChatRequestContext>) {
        api.get("/me") { _, context in
            let actor = try context.requireActor()
            guard let user = try await store.user(id: actor.userID) else { throw ChatServerError.userNotFound(actor.userID) }
            return JSONResponse.make(user.info)
        }
        // The name is the user's own to set; what it may hold is `DisplayName`'s (checked as the body is decoded).
        api.put("/me/display-name") { request, context in
            let actor = try context.requireActor()
            let body = try await ChatBody.decode(DisplayNameBody.self, from: request, limit: Self.maxDisplayNameBodyBytes)
            guard let user = try await store.setDisplayName(userID: actor.userID, name: body.displayName?.text) else {
                throw ChatServerError.userNotFound(actor.userID)
            }
            context.logger.info("display name set", metadata: ["user": "\(actor.userID)"])
            return JSONResponse.make(user.info)
        }
        api.put("/users/:id/role") { request, context in
            let actor = try context.requireActor()
            try Policy.require(.setRole, actor: actor)
            let userID = try context.parameters.require("id")
            let body = try await ChatBody.decode(SetRoleBody.self, from: request, limit: settings.maxJSONBodyBytes)
            guard let user = try await store.setRole(userID: userID, role: body.role) else {
                throw ChatServerError.userNotFound(userID)
            }
            context.logger.info("role changed", metadata: ["target": "\(userID)", "role": "\(body.role.rawValue)"])
            return JSONResponse.make(user.info)
        }
    }

    func registerGroups(on api: RouterGroup<ChatRequestContext>) {
        api.post("/groups") { request, context in
            let body = try await ChatBody.decode(CreateGroupBody.self, from: request, limit: settings.maxJSONBodyBytes)
            return JSONResponse.make(try await groups.create(body, actor: try context.requireActor()), status: .created)
        }
        api.get("/groups") { _, context in
            JSONResponse.make(try await groups.list(actor: try context.requireActor()))
        }
        api.get("/groups/:id") { _, context in
            JSONResponse.make(try await groups.details(groupID: try context.parameters.require("id"), actor: try context.requireActor()))
        }
        api.post("/groups/:id/invites") { request, context in
            let body = try await ChatBody.decode(CreateInviteBody.self, from: request, limit: settings.maxJSONBodyBytes)
            let invite = try await groups.invite(groupID: try context.parameters.require("id"), body, actor: try context.requireActor())
            return JSONResponse.make(invite, status: .created)
        }
        api.post("/invites/:code/accept") { _, context in
            JSONResponse.make(try await groups.accept(code: try context.parameters.require("code"), actor: try context.requireActor()))
        }
        api.delete("/groups/:id/members/:user") { _, context in
            try await groups.remove(
                userID: try context.parameters.require("user"), from: try context.parameters.require("id"),
                actor: try context.requireActor())
            return Response(status: .noContent)
        }
    }

    func registerSync(on api: RouterGroup<ChatRequestContext>) {
        api.post("/sync/push") { request, context in
            if let length = request.headers[.contentLength].flatMap(Int.init), length > settings.maxPushBodyBytes {
                throw ChatServerError.bodyTooLarge(limit: settings.maxPushBodyBytes)
            }
            return JSONResponse.make(
                try await sync.push(
                    streaming: request.body, limit: settings.maxPushBodyBytes,
                    actor: try context.requireActor()))
        }
        api.get("/sync/pull") { request, context in
            let query = request.uri.queryParameters
            guard let groupID = query.get("group"), !groupID.isEmpty else {
                throw ChatServerError.invalidField(field: "group", reason: "the query parameter is missing")
            }
            let since = try Self.integer(query.get("since"), name: "since") ?? 0
            let limit = try Self.integer(query.get("limit"), name: "limit").map(Int.init)
            return JSONResponse.make(try await sync.pull(groupID: groupID, since: since, limit: limit, actor: try context.requireActor()))
        }
        api.post("/receipts") { request, context in
            let body = try await ChatBody.decode(ReceiptsBody.self, from: request, limit: settings.maxJSONBodyBytes)
            return JSONResponse.make(try await sync.markReceipts(body, actor: try context.requireActor()))
        }
        api.put("/blobs/:sha256") { request, context in
            let actor = try context.requireActor()
            let stored = try await blobs.put(
                sha256: try context.parameters.require("sha256"), streaming: request.body,
                length: request.headers[.contentLength].flatMap(Int.init), actor: actor)
            return JSONResponse.make(stored, status: stored.created ? .created : .ok)
        }
        api.get("/blobs/:sha256") { _, context in
            let data = try await blobs.get(sha256: try context.parameters.require("sha256"), actor: try context.requireActor())
            return Response(
                status: .ok, headers: [.contentType: "application/octet-stream"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    func registerIdentity(on api: RouterGroup<ChatRequestContext>) {
        api.post("/server-identity") { request, context in
            _ = try context.requireActor()
            let challenge = try await ChatBody.decode(ServerIdentityChallenge.self, from: request, limit: settings.maxJSONBodyBytes)
            return JSONResponse.make(try identity.prove(challenge))
        }
    }

    static func integer(_ text: String?, name: String) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text) else {
            throw ChatServerError.invalidField(field: name, reason: "'\(text.prefix(40))' is not a whole number")
        }
        return value
    }
}
