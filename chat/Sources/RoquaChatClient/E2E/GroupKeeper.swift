import Crypto
import Foundation
import GRDB
import RoquaChatCore

/// This device's own statements: each is built on the head of the verified log, signed,
/// checked by applying it like anyone else's, stored in the log and queued as a control message,
/// all in one transaction. A `rekey` seals a new epoch secret to every member device of the log
/// (never to a device the server lists) and keeps this device's sender chains of it.
struct GroupKeeper: Sendable {
    let store: ClientStore
    let codec: MessageCodec
    var identity: DeviceIdentity { codec.identity }

    /// The statements to make, given the state each one builds on.
    typealias Build = @Sendable (GroupLogState, Database) throws -> GroupStatement?

    /// Appends statements in order (each `Build` may return nil for nothing), then a `rekey`
    /// when the log needs one and this device is a guide. Returns how many were appended.
    @discardableResult
    func append(groupID: String, selfID: String, _ builds: [Build], now: Date = Date()) throws -> Int {
        try store.write { db in
            var state = try ClientStore.logState(groupID: groupID, in: db)
            var appended = 0
            var all = builds
            all.append { state, db in
                guard state.needsRekey || state.epoch == 0, state.member(device: identity.deviceID)?.role == .guide else { return nil }
                return try rekey(state, selfID: selfID, now: now, in: db)
            }
            for build in all {
                guard var statement = try build(state, db) else { continue }
                statement.seq = state.seq + 1
                statement.prev = state.head
                let signed = try SignedStatement.sign(statement, with: identity.signingKey)
                let hash = try state.apply(signed).hash
                try ClientStore.appendLog(signed, seq: statement.seq, hash: hash, groupID: groupID, in: db)
                try queue(signed, groupID: groupID, selfID: selfID, now: now, in: db)
                appended += 1
            }
            return appended
        }
    }

    /// A join request for a group this device was admitted to the mailbox of (not a log entry).
    func requestJoin(groupID: String, selfID: String, secret: InviteSecret, now: Date = Date()) throws {
        let record = try identity.record(userID: selfID)
        var statement = base(.join, groupID: groupID, selfID: selfID, now: now)
        statement.device = record
        statement.inviteID = secret.id
        statement.inviteProof = secret.joinProof(group: groupID, record: record.record)
        let signed = try SignedStatement.sign(statement, with: identity.signingKey)
        try store.write { db in
            try ClientStore.saveInviteJoined(secret, groupID: groupID, in: db)
            try queue(signed, groupID: groupID, selfID: selfID, now: now, in: db)
        }
    }

    func base(_ kind: GroupStatement.Kind, groupID: String, selfID: String, now: Date) -> GroupStatement {
        GroupStatement(
            groupID: groupID, seq: 0, prev: "", kind: kind, actorUser: selfID, actorDevice: identity.deviceID,
            created: ChatTime.milliseconds(now))
    }

    /// The `create` of a new group.
    func create(groupID: String, name: String, selfID: String, confirmKeyChanges: Bool = false) throws {
        let record = try identity.record(userID: selfID)
        try append(
            groupID: groupID, selfID: selfID,
            [
                { _, _ in
                    var statement = base(.create, groupID: groupID, selfID: selfID, now: Date())
                    statement.name = name
                    statement.device = record
                    if confirmKeyChanges { statement.confirmKeyChanges = true }
                    return statement
                }
            ])
    }

    /// `add`s for join requests that proved an invite this device made (each invite once).
    func admit(_ joins: [GroupStatement], groupID: String, selfID: String) throws {
        let actorIdentity = identity.signingPublicKey
        try append(
            groupID: groupID, selfID: selfID,
            joins.map { join in
                { state, db in
                    guard let device = join.device, state.member(device: device.record.deviceID) == nil, let inviteID = join.inviteID,
                        let (secret, usedBy) = try ClientStore.inviteMade(id: inviteID, groupID: groupID, in: db), usedBy == nil
                    else { return nil }
                    try db.execute(
                        sql: "UPDATE invites_made SET used_by = ? WHERE invite_id = ?", arguments: [device.record.deviceID, inviteID])
                    var statement = base(.add, groupID: groupID, selfID: selfID, now: Date())
                    statement.device = device
                    statement.role = .member
                    statement.inviteID = inviteID
                    statement.inviteProof = secret.addProof(group: groupID, record: device.record, actorIdentity: actorIdentity)
                    return statement
                }
            })
    }

    /// The `remove` of `userID` (then, as a guide, the new epoch).
    func remove(userID: String, groupID: String, selfID: String) throws {
        try append(
            groupID: groupID, selfID: selfID,
            [
                { state, _ in
                    guard state.members.values.contains(where: { $0.userID == userID }) else {
                        throw ChatClientError.invalidInput(
                            field: "member", value: userID, reason: "not a member of the group's log on this device")
                    }
                    var statement = base(.remove, groupID: groupID, selfID: selfID, now: Date())
                    statement.userID = userID
                    return statement
                }
            ])
    }

    /// `remove`s, by a guide's device, of the log's members the server no longer lists in the
    /// group's mailbox (removed through its API or by an old client, not through the log). The
    /// log follows the mailbox down, never up: the server can take readers away this way (it can
    /// refuse them service anyway), never add one. Then a new epoch without them.
    @discardableResult
    func removeUnlisted(_ listed: Set<String>, groupID: String, selfID: String) throws -> Int {
        let state = try store.logState(groupID: groupID)
        guard state.member(device: identity.deviceID)?.role == .guide else { return 0 }
        let gone = Set(state.members.values.map(\.userID)).subtracting(listed).subtracting([selfID]).sorted()
        return try append(
            groupID: groupID, selfID: selfID,
            gone.map { user in
                { state, _ in
                    guard state.members.values.contains(where: { $0.userID == user }) else { return nil }
                    var statement = base(.remove, groupID: groupID, selfID: selfID, now: Date())
                    statement.userID = user
                    return statement
                }
            })
    }

    /// The `role` statement making `userID` a `role` (a guide's device; checked like anyone's).
    func setRole(_ role: MemberRole, userID: String, groupID: String, selfID: String) throws {
        try append(
            groupID: groupID, selfID: selfID,
            [
                { _, _ in
                    var statement = base(.role, groupID: groupID, selfID: selfID, now: Date())
                    statement.userID = userID
                    statement.role = role
                    return statement
                }
            ])
    }

    /// A `rekey` sealing a new secret to exactly the member devices; this device keeps its chains.
    private func rekey(_ state: GroupLogState, selfID: String, now: Date, in db: Database) throws -> GroupStatement {
        var statement = base(.rekey, groupID: state.groupID, selfID: selfID, now: now)
        statement.epoch = state.epoch + 1
        statement.sealed = try sealed(state, epoch: state.epoch + 1, in: db)
        return statement
    }

    /// A new secret for `epoch` sealed to every member device of `state`; this device keeps its
    /// LAN key and sender chains, and forgets the secret.
    func sealed(_ state: GroupLogState, epoch: Int, in db: Database) throws -> [String: String] {
        let secret = EpochCrypto.newSecret()
        var sealed: [String: String] = [:]
        for (deviceID, member) in state.members {
            sealed[deviceID] = try EpochCrypto.seal(secret, to: member.device, group: state.groupID, epoch: epoch)
        }
        try ClientStore.saveEpoch(secret, groupID: state.groupID, epoch: epoch, devices: Set(state.members.keys), in: db)
        return sealed
    }

    private func queue(_ signed: SignedStatement, groupID: String, selfID: String, now: Date, in db: Database) throws {
        let counter = try ClientStore.nextCounter(groupID: groupID, senderID: selfID, deviceID: identity.deviceID, in: db)
        let record = try codec.control(signed, groupID: groupID, senderID: selfID, counter: counter, now: now)
        guard try ClientStore.insert(record, into: db) else { return }
        try ClientStore.enqueue(record, in: db, now: now)
    }
}
