import AsyncHTTPClient
import Foundation
import NIOCore
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
    let keeper: GroupKeeper
    let blobs: BlobFolder

    /// An HTTP client for someone waiting at a prompt: a refused connection fails the request at
    /// once, and connecting (TCP and TLS) gives up after 5 s, instead of re-dialing silently until
    /// the request's time runs out (`HTTPClient.shared`); the caller says so and decides whether
    /// to retry. It lives as long as the process.
    public static let promptHTTP: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Opens (creating if needed) the home at `home`.
    /// - Throws: `ChatClientError.store` / `.secretFile` naming the file at fault.
    public init(
        home: String, clock: HybridLogicalClock = HybridLogicalClock(), policy: RetryPolicy = RetryPolicy(),
        http: HTTPClient = .shared,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) throws {
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
        api = ChatAPI(session: session, http: http, signingKey: identity.signingKey)
        codec = MessageCodec(identity: identity, clock: clock)
        keeper = GroupKeeper(store: store, codec: codec)
        engine = SyncEngine(store: store, api: api, codec: codec, keeper: keeper, blobs: blobs, policy: policy, sleep: sleep)
    }

    // MARK: Sign-in

    /// Asks `server` to send a sign-in code to `phone` by SMS. The server must be `https://`, or
    /// `http://` on this machine (loopback); plain HTTP to anything else only with `insecure`.
    /// `caCertificate`: a PEM file whose certificates are trusted for this server instead of the
    /// system's (a private CA, a self-signed server); kept for every later request.
    /// - Throws: `ChatClientError.invalidInput` for a bad number, URL or certificate file; `noInternet`, `serverError`.
    public func requestCode(server: String, phone: String, insecure: Bool = false, caCertificate: String? = nil) async throws {
        try ServerURL.check(server, insecure: insecure)
        let trusted = try caCertificate.map(ServerURL.trustedCertificates(path:))
        let number: PhoneNumber
        do { number = try PhoneNumber(phone) } catch {
            throw ChatClientError.invalidInput(field: "phone", value: phone, reason: "\(error)")
        }
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        var state = SessionState(server: base, phone: number.e164)
        // The server's key stays pinned across sign-ins: a server presenting another key is refused.
        state.serverKey = await session.state?.serverKey
        state.serverCA = trusted
        try await session.save(state)
        let accepted: OTPRequestAccepted = try await api.call(
            .POST, "/v1/auth/otp/request", body: OTPRequestBody(phone: number),
            authorized: false)
        state.signInRequest = accepted.requestID
        try await session.save(state)
    }

    /// Trades the SMS code for tokens and registers this device's signing key (the server checks pushed
    /// signatures with it); the X25519 key travels only inside the self-signed device record.
    /// - Throws: `notSignedIn` without a prior `requestCode`; `serverError` for a wrong code.
    public func verify(code: String) async throws -> UserInfo {
        guard let state = await session.state, let request = state.signInRequest else { throw ChatClientError.notSignedIn(home: home) }
        let body = OTPVerifyBody(
            phone: try PhoneNumber(state.phone), requestID: request, code: code, deviceID: identity.deviceID,
            devicePublicKey: identity.signingPublicKey)
        let tokens: AuthTokens = try await api.call(.POST, "/v1/auth/otp/verify", body: body, authorized: false)
        try await session.store(tokens)
        try await api.checkServerIdentity()
        return tokens.user
    }

    /// Ends this device's sign-in on the server — with `allDevices`, every sign-in of the user —
    /// and forgets the tokens here. Access tokens of the ended sign-ins stop working at once.
    /// Returns how many sign-ins ended.
    /// - Throws: `notSignedIn`; `noInternet`, `serverError`.
    public func logout(allDevices: Bool = false) async throws -> Int {
        guard let refreshToken = await session.state?.refreshToken else { throw ChatClientError.notSignedIn(home: home) }
        let result: LogoutResult = try await api.call(
            .POST, "/v1/auth/logout",
            body: RefreshBody(refreshToken: refreshToken, allDevices: allDevices ? true : nil),
            authorized: false)
        try await session.signedOut()
        return result.signInsEnded
    }

    /// The server's Ed25519 key this home pinned at its first sign-in (base64).
    public var serverKey: String? {
        get async { await session.state?.serverKey }
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

    /// Creates a group on the server, and its log here: the `create` entry and the first epoch,
    /// sealed to this device. They reach the server at the next sync. With `confirmKeyChanges`
    /// the group's policy (signed into its log) blocks sending while a member's changed identity
    /// key has not been confirmed by the sender (`confirmIdentity`).
    /// - Throws: `ChatClientError` from the server or the store.
    public func createGroup(name: String, confirmKeyChanges: Bool = false) async throws -> GroupInfo {
        let user = try await user()
        let group: GroupInfo = try await api.call(.POST, "/v1/groups", body: CreateGroupBody(name: name))
        try store.saveGroups([group])
        try keeper.create(groupID: group.id, name: name, selfID: user.id, confirmKeyChanges: confirmKeyChanges)
        await engine.trigger()
        return group
    }

    /// Invites `phone` to the group. The code to hand over has two parts: the server's (which
    /// admits a sign-in to the group's mailbox) and a secret only this device keeps, which the
    /// newcomer's join request must prove before this device adds it to the group's log.
    /// - Throws: `ChatClientError` from the server.
    public func invite(groupID: String, phone: String) async throws -> InviteInfo {
        var invite: InviteInfo = try await api.call(
            .POST, "/v1/groups/\(groupID)/invites", body: CreateInviteBody(phone: try PhoneNumber(phone)))
        let secret = InviteSecret.random()
        try store.saveInviteMade(secret, groupID: groupID)
        invite.code += "-" + secret.text
        return invite
    }

    /// Accepts an invite (the whole code `invite` printed) and posts the join request. The
    /// group's epoch arrives once a guide's device has added this one (at its next sync, or
    /// over `peer`); until then `send` says `noGroupKey`.
    /// - Throws: `invalidInput` for a code without its secret part; `ChatClientError` from the server.
    public func join(code: String) async throws -> GroupInfo {
        let characters = code.filter { $0 != "-" && $0 != " " }
        guard characters.count == 28, let secret = InviteSecret(text: characters.suffix(16)) else {
            throw ChatClientError.invalidInput(
                field: "invite code", value: code,
                reason: "expected the whole code the guide's device printed (7 groups of 4 characters)")
        }
        let user = try await user()
        let group: GroupInfo = try await api.call(.POST, "/v1/invites/\(characters.prefix(12))/accept")
        try store.saveGroups([group])
        try keeper.requestJoin(groupID: group.id, selfID: user.id, secret: secret)
        _ = try await engine.syncOnce()
        return group
    }

    /// Removes a member (or, with this user's own id, leaves): the signed `remove` and — on a
    /// guide's device — a new epoch sealed to the remaining devices only go into the log here first (so this device never sends under the old epoch again),
    /// then the server drops the member from the mailbox, then a sync carries both entries up.
    /// - Throws: `invalidInput` when the user is not in the log here; `ChatClientError` from the server.
    public func removeMember(groupID: String, userID: String) async throws {
        let user = try await user()
        try keeper.remove(userID: userID, groupID: groupID, selfID: user.id)
        // Leaving: the signed removal must reach the mailbox while this user may still post there.
        if userID == user.id { _ = try await engine.syncOnce() }
        _ = try await api.send(.DELETE, "/v1/groups/\(groupID)/members/\(userID)", body: nil, authorized: true)
        if userID != user.id { _ = try await engine.syncOnce() }
    }

    /// The group with its members, from the server.
    /// - Throws: `ChatClientError` from the server.
    public func group(_ groupID: String) async throws -> GroupInfo {
        let info: GroupInfo = try await api.call(.GET, "/v1/groups/\(groupID)")
        try store.saveMemberNames(groupID: groupID, info.members ?? [])
        return info
    }

    /// Starts a new epoch (a guide's device): post-compromise security for what is sent next.
    /// - Throws: `invalidInput` when this device is not a guide in the group's log.
    @discardableResult
    public func rekey(groupID: String) async throws -> Int {
        let user = try await user()
        let state = try store.logState(groupID: groupID)
        guard state.member(device: identity.deviceID)?.role == .guide else {
            throw ChatClientError.invalidInput(field: "group", value: groupID, reason: "only a guide's device may start a new epoch")
        }
        try keeper.append(
            groupID: groupID, selfID: user.id,
            [
                { state, db in
                    // `append` adds the rekey itself when the log asks for one; an explicit one needs a nudge.
                    var statement = self.keeper.base(.rekey, groupID: groupID, selfID: user.id, now: Date())
                    statement.epoch = state.epoch + 1
                    statement.sealed = try self.keeper.sealed(state, epoch: state.epoch + 1, in: db)
                    return statement
                }
            ])
        await engine.trigger()
        return state.epoch + 1
    }

    /// The group as this device's verified log says.
    /// - Throws: `store`.
    public func log(groupID: String) throws -> GroupLogState { try store.logState(groupID: groupID) }

    // MARK: Messages

    /// Stores a text message (durable when this returns) and asks the engine to push it.
    /// - Throws: `notSignedIn`, `notYetAdded`, `epochPending`, `noGroupKey`, `store`.
    @discardableResult
    public func send(groupID: String, text: String) async throws -> ClientMessage {
        try await send(groupID: groupID, type: .text, body: text)
    }

    /// Stores a location message; coordinates travel only inside the encrypted body.
    /// - Throws: `notSignedIn`, `noGroupKey`, `store`, `invalidInput` for impossible coordinates.
    @discardableResult
    public func send(groupID: String, location: LocationBody) async throws -> ClientMessage {
        guard (-90...90).contains(location.latitude), (-180...180).contains(location.longitude) else {
            throw ChatClientError.invalidInput(
                field: "location", value: "\(location.latitude) \(location.longitude)",
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
        _ = try await user()  // nothing is kept for a home that cannot send
        try blobs.keep(blob, as: body.sha256)
        return try await send(
            groupID: groupID, type: body.type, body: String(decoding: try JSONEncoder().encode(body), as: UTF8.self),
            blobs: [body.sha256])
    }

    /// An image or file message's attachment and, when its blob is here, the file.
    /// - Throws: `invalidInput` when the message is not an image or file held here with its key;
    ///   `rejectedMessage` when the blob does not open.
    public func attachment(groupID: String, localID: String) throws -> (body: AttachmentBody, file: Data?) {
        guard let body = try store.message(groupID: groupID, localID: localID)?.attachment else {
            throw ChatClientError.invalidInput(
                field: "message", value: localID, reason: "no readable image or file message with this id in the group")
        }
        return (body, try blobs.read(body.sha256).map { try body.open($0) })
    }

    /// Whether the attachment's file is on this device (else it comes with a sync, or from a peer).
    public func holdsFile(_ attachment: AttachmentBody) -> Bool { blobs.holds(attachment.sha256) }

    func send(groupID: String, type: MessageType, body: String, blobs: [String] = []) async throws -> ClientMessage {
        let user = try await user()
        let state = try store.logState(groupID: groupID)
        if state.confirmKeyChanges, let changed = try unconfirmedKeyChanges(state).first {
            throw ChatClientError.unconfirmedIdentity(group: groupID, userID: changed)
        }
        if state.needsRekey, state.member(device: identity.deviceID)?.role == .guide {
            try keeper.append(groupID: groupID, selfID: user.id, [])
        }
        let now = Date()
        let (codec, deviceID) = (codec, identity.deviceID)
        if state.seq == 0, let old = try store.groupsBeforeLog().first(where: { $0.id == groupID }) {
            throw ChatClientError.groupBeforeLog(group: groupID, name: old.name)
        }
        let record = try store.write { db in
            let state = try ClientStore.logState(groupID: groupID, in: db)
            guard state.member(device: deviceID) != nil else { throw ChatClientError.notYetAdded(group: groupID) }
            guard state.epoch > 0 else { throw ChatClientError.noGroupKey(group: groupID, epoch: 0) }
            // Membership changed and no guide has sealed the new epoch yet: the old one may be read by who left.
            guard !state.needsRekey else { throw ChatClientError.epochPending(group: groupID, epoch: state.epoch) }
            guard let (index, key) = try ClientStore.nextSendingKey(groupID: groupID, epoch: state.epoch, deviceID: deviceID, in: db) else {
                throw ChatClientError.noGroupKey(group: groupID, epoch: state.epoch)
            }
            let counter = try ClientStore.nextCounter(groupID: groupID, senderID: user.id, deviceID: deviceID, in: db)
            let record = try codec.outgoing(
                type: type, body: body, groupID: groupID, epoch: state.epoch, index: index, key: key,
                senderID: user.id, counter: counter, now: now, blobs: blobs)
            guard try ClientStore.insert(record, into: db) else {
                throw ChatClientError.store(path: "messages", reason: "duplicate local_id")
            }
            try ClientStore.enqueue(record, in: db, now: now)
            return record
        }
        await engine.trigger()
        return ClientMessage(
            localID: record.wire.localID, groupID: groupID, senderID: user.id, deviceID: identity.deviceID,
            type: type, body: body, sentAt: record.wire.sentAt, hlc: record.hlc.description, keyEpoch: state.epoch,
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
