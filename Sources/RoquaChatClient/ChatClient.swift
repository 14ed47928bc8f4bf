import AsyncHTTPClient
import Foundation
import RoquaChatCore
import RoquaIO

/// One device's view of the tour-group chat, rooted at a home directory (mode 0700) that holds
/// its device keys (`device.json`), its sign-in (`session.json`, both 0600) and its store
/// (`chat.sqlite`). Sends are durable when they return; the `engine` moves them to the server.
public final class ChatClient: Sendable {
    /// The home directory.
    public let home: String
    /// This device.
    public let identity: DeviceIdentity
    /// Orders messages across devices.
    public let clock: HybridLogicalClock
    /// Pushes and pulls.
    public let engine: SyncEngine
    let store: ClientStore
    let session: SessionKeeper
    let api: ChatAPI
    let codec: MessageCodec
    let keys: KeyDistribution
    let blobs: BlobFolder

    /// Opens (creating if needed) the home at `home`.
    /// - Throws: `ChatClientError.store` / `.secretFile` naming the file at fault.
    public init(home: String, clock: HybridLogicalClock = HybridLogicalClock(), policy: RetryPolicy = RetryPolicy(),
                http: HTTPClient = .shared,
                sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }) throws {
        self.home = home
        do {
            try PrivateFiles.makeDirectory(home)
        } catch {
            throw ChatClientError.store(path: home, reason: "cannot create the home directory: \(error)")
        }
        identity = try DeviceIdentity.loadOrCreate(path: home + "/device.json")
        session = try SessionKeeper(path: home + "/session.json")
        store = try ClientStore(path: home + "/chat.sqlite")
        blobs = try BlobFolder(home: home)
        self.clock = clock
        api = ChatAPI(session: session, http: http)
        codec = MessageCodec(identity: identity, clock: clock)
        keys = KeyDistribution(store: store, api: api, identity: identity)
        engine = SyncEngine(store: store, api: api, codec: codec, keys: keys, blobs: blobs, policy: policy, sleep: sleep)
    }

    // MARK: Sign-in

    /// Asks `server` to send a sign-in code to `phone` by SMS.
    /// - Throws: `ChatClientError.invalidInput` for a bad number; `noInternet`, `serverError`.
    public func requestCode(server: String, phone: String) async throws {
        let number: PhoneNumber
        do { number = try PhoneNumber(phone) } catch {
            throw ChatClientError.invalidInput(field: "phone", value: phone, reason: "\(error)")
        }
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        try await session.save(SessionState(server: base, phone: number.e164))
        _ = try await api.send(.POST, "/v1/auth/otp/request", body: try ChatJSON.encoder().encode(OTPRequestBody(phone: number)),
                               authorized: false)
    }

    /// Trades the SMS code for tokens and registers this device's signing and agreement keys.
    /// - Throws: `notSignedIn` without a prior `requestCode`; `serverError` for a wrong code.
    public func verify(code: String) async throws -> UserInfo {
        guard let state = await session.state else { throw ChatClientError.notSignedIn(home: home) }
        let body = OTPVerifyBody(phone: try PhoneNumber(state.phone), code: code, deviceID: identity.deviceID,
                                 devicePublicKey: identity.signingPublicKey)
        let tokens: AuthTokens = try await api.call(.POST, "/v1/auth/otp/verify", body: body, authorized: false)
        try await session.store(tokens)
        let _: Data = try await api.send(.PUT, "/v1/devices/agreement-key",
                                         body: try ChatJSON.encoder().encode(AgreementKeyBody(agreementKey: identity.agreementPublicKey)),
                                         authorized: true)
        _ = try await refreshCredential()
        return tokens.user
    }

    /// Fetches a new peer credential (groups change; it expires after a day) and keeps it.
    /// - Throws: `authenticationError` when it does not verify with the pinned server key.
    public func refreshCredential() async throws -> PeerCredential {
        let signed: SignedPeerCredential = try await api.call(.GET, "/v1/peer-credential")
        return try await session.store(signed, now: Date())
    }

    /// This device's peer credential and the pinned server key, as last fetched.
    public var credential: (signed: SignedPeerCredential, serverKey: String)? {
        get async {
            guard let state = await session.state, let signed = state.credential, let key = state.serverKey else { return nil }
            return (signed, key)
        }
    }

    /// The signed-in user.
    /// - Throws: `ChatClientError.notSignedIn`.
    public func user() async throws -> UserInfo {
        guard let user = await session.state?.user else { throw ChatClientError.notSignedIn(home: home) }
        return user
    }

    /// Token refreshes this client started (concurrent refusals share one).
    public var refreshCount: Int { get async { await session.refreshCount } }

    // MARK: Groups

    /// Creates a group on the server and its first key epoch here.
    /// - Throws: `ChatClientError` from the server or the store.
    public func createGroup(name: String) async throws -> GroupInfo {
        let group: GroupInfo = try await api.call(.POST, "/v1/groups", body: CreateGroupBody(name: name))
        try store.saveGroups([group])
        try store.saveGroupKey(.random(groupID: group.id, epoch: 1), now: Date())
        try await keys.handOut(groupID: group.id)
        return group
    }

    /// Invites `phone` to the group; the code to hand over.
    /// - Throws: `ChatClientError` from the server.
    public func invite(groupID: String, phone: String) async throws -> InviteInfo {
        try await api.call(.POST, "/v1/groups/\(groupID)/invites", body: CreateInviteBody(phone: try PhoneNumber(phone)))
    }

    /// Accepts an invite. The group's key arrives once the guide's device has sealed it for
    /// this one (at the guide's next sync); until then `send` says `noGroupKey`.
    /// - Throws: `ChatClientError` from the server.
    public func join(code: String) async throws -> GroupInfo {
        let group: GroupInfo = try await api.call(.POST, "/v1/invites/\(code)/accept")
        try store.saveGroups([group])
        return group
    }

    /// Removes a member (guide) and starts a new key epoch sealed for the remaining devices
    /// only, so the removed member cannot read what is sent afterwards.
    /// - Throws: `ChatClientError` from the server; `noGroupKey` when this device holds no key.
    public func removeMember(groupID: String, userID: String) async throws {
        _ = try await api.send(.DELETE, "/v1/groups/\(groupID)/members/\(userID)", body: nil, authorized: true)
        _ = try rotateGroupKey(groupID: groupID)
        try await keys.handOut(groupID: groupID)
    }

    /// The group with its members, from the server.
    /// - Throws: `ChatClientError` from the server.
    public func group(_ groupID: String) async throws -> GroupInfo {
        try await api.call(.GET, "/v1/groups/\(groupID)")
    }

    /// The newest key of the group sealed for another device (given its X25519 public key).
    /// - Throws: `noGroupKey` when this device holds none.
    public func wrapGroupKey(groupID: String, for deviceID: String, agreementPublicKey: Data) throws -> WrappedGroupKey {
        guard let key = try store.groupKey(groupID: groupID, epoch: nil) else { throw ChatClientError.noGroupKey(group: groupID, epoch: 0) }
        return try WrappedGroupKey.wrap(key, for: deviceID, publicKey: agreementPublicKey)
    }

    /// Opens a key sealed for this device and keeps it.
    /// - Throws: `rejectedMessage` when it is not for this device or was altered.
    public func importGroupKey(_ wrapped: WrappedGroupKey) throws {
        try store.saveGroupKey(try wrapped.unwrap(with: identity.agreementKey), now: Date())
    }

    /// Starts a new key epoch for the group (after a member left); returns the new epoch.
    /// - Throws: `noGroupKey` when this device holds no key of the group.
    public func rotateGroupKey(groupID: String) throws -> Int {
        guard let current = try store.groupKey(groupID: groupID, epoch: nil) else { throw ChatClientError.noGroupKey(group: groupID, epoch: 0) }
        try store.saveGroupKey(.random(groupID: groupID, epoch: current.epoch + 1), now: Date())
        return current.epoch + 1
    }

    // MARK: Messages

    /// Stores a text message (durable when this returns) and asks the engine to push it.
    /// - Throws: `notSignedIn`, `noGroupKey`, `store`.
    @discardableResult
    public func send(groupID: String, text: String) async throws -> ClientMessage {
        try await send(groupID: groupID, type: .text, body: text)
    }

    /// Stores a location message; coordinates travel only inside the encrypted body.
    /// - Throws: `notSignedIn`, `noGroupKey`, `store`, `invalidInput` for impossible coordinates.
    @discardableResult
    public func send(groupID: String, location: LocationBody) async throws -> ClientMessage {
        guard (-90...90).contains(location.latitude), (-180...180).contains(location.longitude) else {
            throw ChatClientError.invalidInput(field: "location", value: "\(location.latitude) \(location.longitude)",
                                               reason: "latitude must lie in -90…90 and longitude in -180…180")
        }
        let body = String(decoding: try JSONEncoder().encode(location), as: UTF8.self)
        return try await send(groupID: groupID, type: .location, body: body)
    }

    /// Stores an image or file message: the file is sealed under a key of its own into a blob
    /// kept here (uploaded at the next sync, handed to peers who ask), and the body — name,
    /// type, size, the blob's digest and its key — is sealed like any message.
    /// - Throws: `invalidInput` for an unreadable, empty or oversize file; `notSignedIn`, `noGroupKey`, `store`.
    @discardableResult
    public func send(groupID: String, file path: String) async throws -> ClientMessage {
        let data: [UInt8]
        do { data = try FileSource.contents(of: path, limit: AttachmentBody.maxBytes) } catch {
            // "is N bytes, over the limit" / "is a directory" read as they are; the rest are read failures.
            let reason = error.message.hasPrefix("is ") ? "it \(error.message)" : "it cannot be read (\(error.message))"
            throw ChatClientError.invalidInput(field: "file", value: path, reason: reason)
        }
        let (body, blob) = try AttachmentBody.seal(Data(data), name: (path as NSString).lastPathComponent)
        _ = try await user()   // nothing is kept for a home that cannot send
        try blobs.keep(blob, as: body.sha256)
        return try await send(groupID: groupID, type: body.type, body: String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
    }

    /// An image or file message's attachment and, when its blob is here, the file.
    /// - Throws: `invalidInput` when the message is not an image or file held here with its key;
    ///   `rejectedMessage` when the blob does not open.
    public func attachment(groupID: String, localID: String) throws -> (body: AttachmentBody, file: Data?) {
        guard let body = try store.message(groupID: groupID, localID: localID)?.attachment else {
            throw ChatClientError.invalidInput(field: "message", value: localID, reason: "no readable image or file message with this id in the group")
        }
        return (body, try blobs.read(body.sha256).map { try body.open($0) })
    }

    /// Whether the attachment's file is on this device (else it comes with a sync, or from a peer).
    public func holdsFile(_ attachment: AttachmentBody) -> Bool { blobs.holds(attachment.sha256) }

    private func send(groupID: String, type: MessageType, body: String) async throws -> ClientMessage {
        let user = try await user()
        guard let key = try store.groupKey(groupID: groupID, epoch: nil) else { throw ChatClientError.noGroupKey(group: groupID, epoch: 0) }
        let now = Date()
        let counter = try store.nextCounter(groupID: groupID, senderID: user.id, deviceID: identity.deviceID)
        let record = try codec.outgoing(type: type, body: body, key: key, senderID: user.id, counter: counter, now: now)
        try store.insertOutgoing(record, now: now)
        await engine.trigger()
        return ClientMessage(localID: record.wire.localID, groupID: groupID, senderID: user.id, deviceID: identity.deviceID,
                             type: type, body: body, sentAt: record.wire.sentAt, hlc: record.hlc.description, keyEpoch: key.epoch,
                             status: .pending, seq: nil, syncedAt: nil, failure: nil)
    }

    /// A group's messages in order.
    /// - Throws: `ChatClientError.store`.
    public func messages(groupID: String) throws -> [ClientMessage] {
        try store.messages(groupID: groupID)
    }

    /// Messages still waiting for the server.
    /// - Throws: `ChatClientError.store`.
    public func pendingCount() throws -> Int { try store.pendingCount() }

    /// Puts a `failed` own message back in the outbox.
    /// - Throws: `notSignedIn`, `store`.
    public func retry(localID: String) async throws -> Bool {
        try store.retry(senderID: try await user().id, localID: localID, now: Date())
    }
}
