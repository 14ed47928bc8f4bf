import Crypto
import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatClient
@testable import RoquaChatServer

/// What a server operator (or anyone who can write to its database) can do: keys of its own, and
/// rows stored under any user's name without the service's checks.
struct Operator {
    let key = Curve25519.Signing.PrivateKey()
    let agreement = Curve25519.KeyAgreement.PrivateKey()
    let deviceID = "operator-device"
    let server: LiveServer

    func record(claiming userID: String) throws -> SignedDeviceRecord {
        try SignedDeviceRecord.sign(
            DeviceRecord(
                userID: userID, deviceID: deviceID, identityKey: key.publicKey.rawRepresentation.base64EncodedString(),
                agreementKey: agreement.publicKey.rawRepresentation.base64EncodedString(), created: 1), with: key)
    }

    /// A message as `userID` from `device`, signed by the operator's key (or not at all).
    func message(
        group: String, as userID: String, device: String, type: MessageType = .text, content: String,
        epoch: Int?, signed: Bool = true
    ) throws -> PushMessage {
        var message = PushMessage(
            localID: UUIDv7.make(), groupID: group, type: type, content: content, sentAt: ChatTime.rounded(Date()),
            metadata: .object(["n": .number(1), "ci": .number(0)]), senderID: userID, deviceID: device, keyEpoch: epoch)
        if signed { message.signature = try DeviceSignature.sign(try MessageSigningFields(message, senderID: userID), with: key) }
        return message
    }

    /// Stores `message` in the server's database as `authorID`'s, past every check of the service.
    func inject(_ message: PushMessage, as authorID: String) async throws {
        let digest = try MessageSigningFields(message, senderID: authorID).digest
        let result = try await server.store.push(
            [PreparedPush(message: message, authorID: authorID, digest: digest, precheck: nil)],
            uploader: Actor(userID: authorID, role: .admin, deviceID: message.deviceID ?? deviceID), now: Date())
        guard result.synced.count == 1 else { throw TestFailure("the store refused the injected row: \(result.rejected)") }
    }

    /// A control message carrying `statement` signed by the operator's key.
    func control(_ statement: GroupStatement) throws -> PushMessage {
        try message(
            group: statement.groupID, as: statement.actorUser, device: statement.actorDevice, type: .control,
            content: try SignedStatement.sign(statement, with: key).content(), epoch: nil)
    }
}

/// Whether any key derivable from `material` (as a message key, or a chain key walked forward)
/// opens the server's copy of a message.
func opens(_ row: ChatMessage, with material: [Data], steps: Int = 64) -> Bool {
    guard let index = MessageIntake.chainIndex(wireOf(row)) else { return false }
    let context = MessageIntake.bodyContext(of: wireOf(row), sender: row.senderID, index: index)
    for start in material {
        if (try? BodyCipher.open(row.content, key: start, context: context)) != nil { return true }
        var chain = start
        for _ in 0..<steps {
            let (message, next) = EpochCrypto.step(chain)
            if (try? BodyCipher.open(row.content, key: message, context: context)) != nil { return true }
            chain = next
        }
    }
    return false
}

func wireOf(_ row: ChatMessage) -> PushMessage {
    PushMessage(
        localID: row.localID, groupID: row.groupID, type: row.type, content: row.content, sentAt: row.sentAt, metadata: row.metadata,
        senderID: row.senderID, deviceID: row.deviceID, keyEpoch: row.keyEpoch, signature: row.signature)
}

extension TourParty {
    /// Runs `body` with a party on a live server in a scratch directory, then stops and removes them.
    static func run(_ body: (LiveServer, TourParty, Scratch) async throws -> Void) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let server = try await LiveServer(directory: scratch)
        do {
            try await body(server, try await TourParty.make(server, in: scratch), scratch)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension LiveServer {
    func row(_ localID: String, in group: String) async throws -> ChatMessage {
        try #require(try await store.messages(groupID: group, after: 0, upTo: nil, limit: 1000).first { $0.localID == localID })
    }
}

@Suite("End to end: what the server, a removed member and a late joiner cannot do")
struct EndToEndAttackTests {
    @Test(
        "rows the server writes as the guide (unsigned, signed by another key, from a device the server added) are dropped, counted, never shown"
    )
    func forgedServerRows() async throws {
        try await TourParty.run { server, party, scratch in
            let (guide, traveller, group) = (party.guide, party.travellers[0], party.group.id)
            let guideID = try await guide.user().id
            let epoch = try traveller.log(groupID: group).epoch
            let op = Operator(server: server)
            // The server may even register a device key for the guide's account: its own checks then pass.
            _ = try await server.store.signIn(
                phone: try PhoneNumber("+905550000001"), deviceID: op.deviceID,
                publicKey: op.key.publicKey.rawRepresentation, now: Date())
            let content = Data("Toplantı iptal, otelde kalın".utf8).base64EncodedString()
            try await op.inject(
                try op.message(group: group, as: guideID, device: guide.identity.deviceID, content: content, epoch: epoch, signed: false),
                as: guideID)
            try await op.inject(
                try op.message(group: group, as: guideID, device: guide.identity.deviceID, content: content, epoch: epoch), as: guideID)
            try await op.inject(try op.message(group: group, as: guideID, device: op.deviceID, content: content, epoch: epoch), as: guideID)
            let report = try await traveller.engine.sync()
            #expect(report.dropped == 3 && report.pulled == 0, "\(report)")
            #expect(try traveller.messages(groupID: group).isEmpty)
            // The guide's real message still arrives and is shown as the guide's.
            try await guide.send(groupID: group, text: "Saat 9'da lobide")
            _ = try await guide.engine.sync()
            _ = try await traveller.engine.sync()
            #expect(try traveller.messages(groupID: group).map { "\($0.senderID): \($0.body ?? "-")" } == ["\(guideID): Saat 9'da lobide"])
        }
    }

    @Test("an operator-sealed epoch and an operator-added member are rejected; the operator cannot read the guide's next message")
    func operatorEpoch() async throws {
        try await TourParty.run { server, party, scratch in
            let (guide, traveller, group) = (party.guide, party.travellers[0], party.group.id)
            let guideID = try await guide.user().id
            let before = try traveller.log(groupID: group)
            let op = Operator(server: server)
            // An `add` of the operator's device "by the guide", then a rekey sealed to it and to every real member.
            var add = GroupStatement(
                groupID: group, seq: before.seq + 1, prev: before.head, kind: .add, actorUser: guideID,
                actorDevice: op.deviceID, created: 1)
            add.device = try op.record(claiming: guideID)
            add.role = .guide
            let addHash = try SignedStatement.sign(add, with: op.key).decoded().hash
            var rekey = GroupStatement(
                groupID: group, seq: before.seq + 2, prev: addHash, kind: .rekey, actorUser: guideID,
                actorDevice: op.deviceID, created: 1)
            let stolen = EpochCrypto.newSecret()
            rekey.epoch = before.epoch + 1
            var sealed: [String: String] = [:]
            for (device, member) in before.members {
                sealed[device] = try EpochCrypto.seal(stolen, to: member.device, group: group, epoch: before.epoch + 1)
            }
            sealed[op.deviceID] = try EpochCrypto.seal(stolen, to: try op.record(claiming: guideID), group: group, epoch: before.epoch + 1)
            rekey.sealed = sealed
            try await op.inject(try op.control(add), as: guideID)
            try await op.inject(try op.control(rekey), as: guideID)
            // The same rekey claimed by the guide's real device (the operator cannot sign as it).
            var asGuide = rekey
            asGuide.seq = before.seq + 1
            asGuide.prev = before.head
            asGuide.actorDevice = guide.identity.deviceID
            asGuide.sealed = sealed.filter { $0.key != op.deviceID }
            try await op.inject(
                try op.message(
                    group: group, as: guideID, device: guide.identity.deviceID, type: .control,
                    content: try SignedStatement.sign(asGuide, with: op.key).content(), epoch: nil), as: guideID)
            // A server admin invites themselves through the API: the server admits them to the mailbox,
            // but without the invite's secret their join request proves nothing to the guide's device.
            let admin = try ChatClient(home: scratch.file("admin"))
            try await server.signIn(admin, phone: "+905559999999", role: .admin)
            let invite: InviteInfo = try await admin.api.call(
                .POST, "/v1/groups/\(group)/invites",
                body: CreateInviteBody(phone: try PhoneNumber("+905559999999")))
            _ = try await admin.join(code: invite.code + "-" + InviteSecret.random().text)

            for client in [guide, traveller] {
                let report = try await client.engine.sync()
                #expect(report.dropped == 3, "\(report.droppedReasons)")
                let state = try client.log(groupID: group)
                #expect(state.epoch == before.epoch && state.seq == before.seq && state.member(device: op.deviceID) == nil)
                #expect(state.member(device: admin.identity.deviceID) == nil)
            }
            try await guide.send(groupID: group, text: "Yarın 7'de kalkış")
            _ = try await guide.engine.sync()
            _ = try await traveller.engine.sync()
            _ = try await admin.engine.sync()
            let sent = try #require(try guide.messages(groupID: group).last)
            #expect(sent.keyEpoch == before.epoch)
            #expect(try traveller.messages(groupID: group).last?.body == "Yarın 7'de kalkış")
            #expect(try admin.messages(groupID: group).allSatisfy { $0.body == nil })
            #expect(try admin.store.heldEpoch(groupID: group) == nil)
            // Every key the operator could derive from its secret, for every device and epoch: nothing opens.
            let row = try await server.row(sent.localID, in: group)
            let derived = (before.epoch...(before.epoch + 1)).flatMap { epoch in
                (Array(before.members.keys) + [op.deviceID]).map { EpochCrypto.senderChain(stolen, group: group, epoch: epoch, device: $0) }
            }
            #expect(!opens(row, with: derived))
        }
    }

    @Test(
        "a removed member: its token is refused at once, peers that saw the removal refuse it, and nothing sent afterwards opens with its keys"
    )
    func removedMember() async throws {
        try await TourParty.run { server, party, scratch in
            let (guide, stays, leaves, group) = (party.guide, party.travellers[0], party.travellers[1], party.group.id)
            try await guide.send(groupID: group, text: "Herkese günaydın")
            _ = try await guide.engine.sync()
            for client in [stays, leaves] { _ = try await client.engine.sync() }
            let oldEpoch = try stays.log(groupID: group).epoch
            try await guide.removeMember(groupID: group, userID: try await leaves.user().id)
            // Its very next request for the group, with the same token, is refused.
            await #expect { let _: PullResult = try await leaves.api.call(.GET, "/v1/sync/pull?group=\(group)&since=0&limit=10") } throws: {
                error in
                guard case ChatClientError.serverError(let status, _, _, _) = error else { return false }
                return status == 403 || status == 404
            }
            // The guide's device seals nothing more to it, and its peer node serves it nothing.
            let after = try await guide.send(groupID: group, text: "Yarınki rota değişti")
            #expect(after.keyEpoch == oldEpoch + 1)
            let guideNode = PeerNode(client: guide)
            let leavesRecord = try leaves.identity.record(userID: try await leaves.user().id)
            _ = try await guideNode.receive(.hello(leavesRecord), from: "leaves")
            #expect(try await guideNode.receive(.summary(PeerSummary(groupID: group, unbroken: [:])), from: "leaves").isEmpty)
            #expect(await guideNode.stats.rejected == 1)
            // The removed member still knows its invite's secret: a fresh join request with it, relayed
            // by a member, does not get it added again (an invite admits once).
            let leavesID = try await leaves.user().id
            try leaves.keeper.requestJoin(
                groupID: group, selfID: leavesID,
                secret: try #require(
                    try leaves.store.read { db in
                        try ClientStore.inviteJoined(groupID: group, in: db)
                    }))
            let rejoin = try #require(try leaves.store.pendingBatch(limit: 100).last { $0.type == .control })
            _ = try await guideNode.receive(.hello(try stays.identity.record(userID: try await stays.user().id)), from: "stays")
            _ = try await guideNode.receive(.messages([PeerEnvelope(message: rejoin, hops: 1)]), from: "stays")
            #expect(try guide.log(groupID: group).members.values.allSatisfy { $0.userID != leavesID })
            // A member who has not synced since learns of the removal from the guide over peer, and
            // sends under the new epoch only.
            await server.stop()
            let hub = InMemoryHub(seed: 1)
            hub.join("guide", guideNode)
            let staysNode = PeerNode(client: stays)
            hub.join("stays", staysNode)
            for _ in 0..<6 { try await hub.round() }
            #expect(try stays.log(groupID: group).member(device: leaves.identity.deviceID) == nil)
            let reply = try await stays.send(groupID: group, text: "Tamam, görüşürüz")
            #expect(reply.keyEpoch == oldEpoch + 1)
            try await server.restart()
            _ = try await stays.engine.sync()
            _ = try await guide.engine.sync()
            #expect(try stays.messages(groupID: group).map(\.body) == ["Herkese günaydın", "Yarınki rota değişti", "Tamam, görüşürüz"])
            // Holding the ciphertexts (a copy of the server's database), every key the removed device
            // kept, walked forward, opens neither.
            let material = try leaves.store.keyMaterial(groupID: group)
            #expect(!material.isEmpty)
            for localID in [after.localID, reply.localID] {
                #expect(!opens(try await server.row(localID, in: group), with: material))
            }
            #expect(try leaves.messages(groupID: group).map(\.body) == ["Herkese günaydın"])
        }
    }

    @Test("a late joiner reads from its join on: what was sent before does not open with any key it holds")
    func lateJoiner() async throws {
        try await TourParty.run { server, party, scratch in
            let (guide, group) = (party.guide, party.group.id)
            let before = try await guide.send(groupID: group, text: "Sadece ilk gelenler için")
            _ = try await guide.engine.sync()
            let late = try ChatClient(home: scratch.file("late"))
            try await server.signIn(late, phone: "+905551000003")
            _ = try await late.join(code: try await guide.invite(groupID: group, phone: "+905551000003").code)
            await #expect(throws: ChatClientError.notYetAdded(group: group)) { try await late.send(groupID: group, text: "erken") }
            _ = try await guide.engine.sync()  // sees the join request, adds the device, seals a new epoch
            _ = try await late.engine.sync()
            let welcome = try await guide.send(groupID: group, text: "Hoş geldin")
            _ = try await guide.engine.sync()
            _ = try await late.engine.sync()
            #expect(try late.messages(groupID: group).filter { $0.body != nil }.map(\.body) == ["Hoş geldin"])
            #expect(try late.messages(groupID: group).allSatisfy { $0.localID != before.localID || $0.body == nil })
            #expect(!opens(try await server.row(before.localID, in: group), with: try late.store.keyMaterial(groupID: group)))
            #expect(
                opens(try await server.row(welcome.localID, in: group), with: try late.store.keyMaterial(groupID: group)) == false,
                "read messages' keys are gone too")
            try await late.send(groupID: group, text: "Teşekkürler")
            _ = try await late.engine.sync()
            _ = try await guide.engine.sync()
            #expect(try guide.messages(groupID: group).last?.body == "Teşekkürler")
        }
    }

    @Test("a copy of chat.sqlite taken after a message was read holds no key that opens it (it did before the message was read)")
    func stolenDatabase() async throws {
        try await TourParty.run { server, party, scratch in
            let (guide, traveller, group) = (party.guide, party.travellers[0], party.group.id)
            let secret = try await guide.send(groupID: group, text: "Kasanın şifresi 4711")
            _ = try await guide.engine.sync()
            let row = try await server.row(secret.localID, in: group)
            // Before the traveller reads it, its store can open it: the check below can fail.
            #expect(opens(row, with: try traveller.store.keyMaterial(groupID: group)))
            _ = try await traveller.engine.sync()
            #expect(try traveller.messages(groupID: group).last?.body == "Kasanın şifresi 4711")
            // The thief copies the database file (the sync checkpointed the write-ahead log into it).
            try FileManager.default.copyItem(atPath: traveller.home + "/chat.sqlite", toPath: scratch.file("stolen.sqlite"))
            let stolen = try ClientStore(path: scratch.file("stolen.sqlite"))
            #expect(!opens(row, with: try stolen.keyMaterial(groupID: group)))
            // Nor do any 32-byte blobs left anywhere in the file's pages.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: traveller.home + "/chat.sqlite"))
            let windows = stride(from: 0, to: bytes.count - 32, by: 1).lazy.map { bytes[$0..<$0 + 32] }
            #expect(
                !windows.contains {
                    (try? BodyCipher.open(
                        row.content, key: Data($0),
                        context: MessageIntake.bodyContext(
                            of: wireOf(row), sender: row.senderID,
                            index: MessageIntake.chainIndex(wireOf(row)) ?? 0))) != nil
                })
        }
    }

    @Test("safety numbers match on both phones; a confirmed key is remembered; the server's key is pinned across sign-ins")
    func safetyNumbersAndPinning() async throws {
        try await TourParty.run { server, party, scratch in
            let (guide, traveller, group) = (party.guide, party.travellers[0], party.group.id)
            let seenByGuide = try await guide.identity(groupID: group, member: try await traveller.user().id)
            let seenByTraveller = try await traveller.identity(groupID: group, member: try await guide.user().id)
            #expect(try await guide.identity(groupID: group, member: "+905551000001").userID == (try await traveller.user().id))
            #expect(seenByGuide.safetyNumber == seenByTraveller.safetyNumber && !seenByGuide.confirmed && !seenByGuide.changed)
            #expect(try await guide.confirmIdentity(groupID: group, member: try await traveller.user().id).confirmed)
            #expect(try await guide.identity(groupID: group, member: try await traveller.user().id).confirmed)
            #expect(try guide.identityWarnings(groupID: group).isEmpty)
            // The same home signing in to another server (another key) is refused, not re-pinned.
            let other = try await LiveServer(directory: try Scratch())
            try await traveller.requestCode(server: other.url, phone: "+905551000001")
            let code = try #require(other.sms.lastCode(for: try PhoneNumber("+905551000001")))
            await #expect { _ = try await traveller.verify(code: code) } throws: { error in
                guard case ChatClientError.serverIdentityChanged = error else { return false }
                return "\(error)".contains("refused")
            }
            await other.stop()
        }
    }

    @Test("a member back with a new phone: a warning, and where the group's policy asks, no sending until the new key is confirmed")
    func changedIdentityKey() async throws {
        for policy in [false, true] {
            let scratch = try Scratch()
            defer { scratch.remove() }
            let server = try await LiveServer(directory: scratch)
            let party = try await TourParty.make(server, in: scratch, confirmKeyChanges: policy)
            let (guide, stays, group) = (party.guide, party.travellers[0], party.group.id)
            let userID = try await party.travellers[1].user().id
            try await guide.removeMember(groupID: group, userID: userID)
            // The same person (same number, same user id) on a new phone: a new identity key.
            let newPhone = try ChatClient(home: scratch.file("new-phone"))
            server.clock.advance(by: 120)  // past the number's minimum interval between codes
            try await server.signIn(newPhone, phone: "+905551000002")
            _ = try await newPhone.join(code: try await guide.invite(groupID: group, phone: "+905551000002").code)
            _ = try await guide.engine.sync()
            _ = try await stays.engine.sync()
            #expect(try stays.identityWarnings(groupID: group).count == 1)
            let seen = try await stays.identity(groupID: group, member: userID)
            #expect(seen.changed && !seen.confirmed && seen.identityKey == newPhone.identity.signingPublicKey)
            if policy {
                await #expect(throws: ChatClientError.unconfirmedIdentity(group: group, userID: userID)) {
                    try await stays.send(groupID: group, text: "Kim bu?")
                }
                try await stays.confirmIdentity(groupID: group, member: userID)
            }
            try await stays.send(groupID: group, text: "Tekrar hoş geldin")
            #expect(try stays.identityWarnings(groupID: group).isEmpty == policy)
            _ = try await stays.engine.sync()
            _ = try await newPhone.engine.sync()
            #expect(try newPhone.messages(groupID: group).last?.body == "Tekrar hoş geldin")
            await server.stop()
        }
    }

    @Test("a member who leaves: its signed removal reaches the log, the guide's device seals a new epoch without it")
    func memberLeaves() async throws {
        try await TourParty.run { server, party, _ in
            let (guide, leaver, group) = (party.guide, party.travellers[0], party.group.id)
            let epoch = try guide.log(groupID: group).epoch
            try await leaver.removeMember(groupID: group, userID: try await leaver.user().id)
            #expect(try leaver.log(groupID: group).member(device: leaver.identity.deviceID) == nil)
            await #expect(throws: ChatClientError.notYetAdded(group: group)) { try await leaver.send(groupID: group, text: "son söz") }
            _ = try await guide.engine.sync()
            let state = try guide.log(groupID: group)
            #expect(state.epoch == epoch + 1 && state.member(device: leaver.identity.deviceID) == nil && !state.needsRekey)
            let after = try await guide.send(groupID: group, text: "Bir kişi ayrıldı")
            _ = try await guide.engine.sync()
            #expect(!opens(try await server.row(after.localID, in: group), with: try leaver.store.keyMaterial(groupID: group)))
        }
    }
}
