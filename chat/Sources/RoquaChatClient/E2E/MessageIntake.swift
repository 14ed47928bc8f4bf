import Crypto
import Foundation
import GRDB
import RoquaChatCore

/// What one batch of incoming messages did to the store, beyond the messages themselves.
struct IntakeContext: Sendable {
    let identity: DeviceIdentity
    /// Group states as verified so far in this transaction.
    var states: [String: GroupLogState] = [:]
    /// Join requests this device (a guide that made the invite) should now answer with an `add`.
    var joins: [String: [GroupStatement]] = [:]
    /// Messages refused, with why (never stored, never shown).
    var dropped: [String] = []
    /// Control messages (log entries, join requests) stored.
    var logEntries = 0

    init(identity: DeviceIdentity) { self.identity = identity }

    mutating func state(_ groupID: String, in db: Database) throws -> GroupLogState {
        if let state = states[groupID] { return state }
        let state = try ClientStore.logState(groupID: groupID, in: db)
        states[groupID] = state
        return state
    }
}

/// The one gate every incoming message passes, from the server, a peer or a restore: it is
/// stored only when its device signature verifies with the identity key the verified group log
/// gives that device (for a log entry: the actor's, and the entry must apply; for a join request:
/// the self-signed record it carries). Its body is opened with the sender chain of its epoch, or
/// later when that epoch's secret arrives. Anything else is dropped and counted.
enum MessageIntake {
    enum Outcome: Equatable {
        case stored, duplicate, dropped
    }

    /// Verifies and stores `record` (built by `MessageCodec.received`), queueing it for the
    /// server when `queue` (a peer's relay).
    static func take(_ record: StoredRecord, queue: Bool, context: inout IntakeContext, in db: Database) throws -> Outcome {
        let wire = record.wire
        if try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM messages WHERE sender_id = ? AND local_id = ?)",
            arguments: [record.senderID, wire.localID]) == true
        {
            return .duplicate
        }
        var state = try context.state(wire.groupID, in: db)
        let verdict: Result<StoredRecord?, Refusal>
        do {
            verdict = .success(try check(record, state: &state, context: &context, in: db))
        } catch let refusal as Refusal {
            verdict = .failure(refusal)
        }
        switch verdict {
        case .failure(let refusal):
            context.dropped.append("\(wire.localID): \(refusal.reason)")
            return .dropped
        case .success(nil):
            return .duplicate
        case .success(let accepted?):
            context.states[wire.groupID] = state
            guard try ClientStore.insert(accepted, into: db) else { return .duplicate }
            if queue { try ClientStore.enqueue(accepted, in: db) }
            return .stored
        }
    }

    struct Refusal: Error { let reason: String }

    /// The record to store (its body opened when possible), nil for a statement held already.
    private static func check(
        _ record: StoredRecord, state: inout GroupLogState, context: inout IntakeContext,
        in db: Database
    ) throws -> StoredRecord? {
        let wire = record.wire
        guard let device = wire.deviceID, let signature = wire.signature, wire.senderID == nil || wire.senderID == record.senderID,
            let fields = try? MessageSigningFields(wire, senderID: record.senderID)
        else {
            throw Refusal(reason: "unsigned, or it names no device")
        }
        func verify(_ signer: SignedDeviceRecord) throws {
            guard signer.record.userID == record.senderID, signer.record.deviceID == device,
                let key = signer.verifiedIdentityKey,
                DeviceSignature.verify(signature, of: fields, publicKey: key.rawRepresentation)
            else {
                throw Refusal(reason: "its signature does not verify with device \(device)'s identity key in the group log")
            }
        }
        if wire.type == .control {
            return try control(record, device: device, verify: verify, state: &state, context: &context, in: db)
        }
        guard let epoch = wire.keyEpoch, state.device(device, wasIn: epoch), let signer = state.everSeen[device] else {
            throw Refusal(reason: "device \(device) is not a member of epoch \(wire.keyEpoch.map(String.init) ?? "none") in the group log")
        }
        try verify(signer)
        guard let index = chainIndex(wire) else { throw Refusal(reason: "it carries no chain index") }
        var accepted = record
        if let key = try ClientStore.takeReceivingKey(groupID: wire.groupID, epoch: epoch, deviceID: device, index: index, in: db) {
            accepted.body = try? String(
                decoding: BodyCipher.open(
                    wire.content, key: key,
                    context: bodyContext(
                        of: wire, sender: record.senderID,
                        index: index)), as: UTF8.self)
        }
        return accepted
    }

    static func chainIndex(_ wire: PushMessage) -> Int64? {
        wire.metadata?["ci"]?.doubleValue.flatMap { $0 >= 0 && $0 < 1e15 && $0 == $0.rounded() ? Int64($0) : nil }
    }

    static func bodyContext(of wire: PushMessage, sender: String, index: Int64) -> BodyContext {
        BodyContext(
            groupID: wire.groupID, epoch: wire.keyEpoch ?? 0, senderID: sender, deviceID: wire.deviceID ?? "", chainIndex: index,
            localID: wire.localID, type: wire.type, sentAtMilliseconds: ChatTime.milliseconds(wire.sentAt))
    }

    private static func control(
        _ record: StoredRecord, device: String, verify: (SignedDeviceRecord) throws -> Void,
        state: inout GroupLogState, context: inout IntakeContext, in db: Database
    ) throws -> StoredRecord? {
        let signed: SignedStatement
        let statement: GroupStatement
        let hash: String
        do {
            signed = try SignedStatement(content: record.wire.content)
            (statement, hash) = try signed.decoded()
        } catch {
            throw Refusal(reason: "\(error)")
        }
        guard statement.groupID == record.wire.groupID, statement.actorUser == record.senderID, statement.actorDevice == device else {
            throw Refusal(reason: "its statement names another group, user or device than the message")
        }
        if statement.kind == .join {
            guard let requester = statement.device, let key = requester.verifiedIdentityKey, signed.isSigned(by: key) else {
                throw Refusal(reason: "a join request not signed by the device it names")
            }
            try verify(requester)
            try noteJoin(statement, requester: requester, state: state, context: &context, in: db)
            return record
        }
        if statement.seq <= state.seq {
            let held = try String.fetchOne(
                db, sql: "SELECT hash FROM group_log WHERE group_id = ? AND seq = ?",
                arguments: [statement.groupID, statement.seq])
            guard held == hash else { throw Refusal(reason: "it conflicts with entry \(statement.seq) of the group log held here") }
            return record  // the same entry again: keep the message for relaying
        }
        guard let signer = statement.kind == .create ? statement.device : state.member(device: device)?.device else {
            throw Refusal(reason: "device \(device) is not a member of the group log")
        }
        try verify(signer)
        let own = try ClientStore.inviteJoined(groupID: statement.groupID, in: db).map { (deviceID: context.identity.deviceID, secret: $0) }
        do {
            try state.apply(signed, ownInvite: own)
        } catch {
            throw Refusal(reason: "\(error)")
        }
        try ClientStore.appendLog(signed, seq: statement.seq, hash: hash, groupID: statement.groupID, in: db)
        if statement.kind == .rekey, let epoch = statement.epoch, let sealed = statement.sealed?[context.identity.deviceID] {
            let secret = try EpochCrypto.open(
                sealed, with: context.identity.agreementKey, group: statement.groupID, epoch: epoch,
                device: context.identity.deviceID)
            try ClientStore.saveEpoch(secret, groupID: statement.groupID, epoch: epoch, devices: state.epochDevices[epoch] ?? [], in: db)
            try openWaiting(groupID: statement.groupID, in: db)
        }
        return record
    }

    /// A join request that carries the proof of an unused invite this device made, to a group
    /// where this device is a guide, is queued for an `add`. An invite admits once: a removed
    /// member who still knows its secret cannot join again with a fresh request.
    private static func noteJoin(
        _ statement: GroupStatement, requester: SignedDeviceRecord, state: GroupLogState,
        context: inout IntakeContext, in db: Database
    ) throws {
        guard state.member(device: context.identity.deviceID)?.role == .guide, state.member(device: requester.record.deviceID) == nil,
            let inviteID = statement.inviteID,
            let (secret, usedBy) = try ClientStore.inviteMade(id: inviteID, groupID: statement.groupID, in: db),
            usedBy == nil,
            secret.isJoinProof(statement.inviteProof, group: statement.groupID, record: requester.record)
        else { return }
        context.joins[statement.groupID, default: []].append(statement)
    }

    /// Opens the stored bodies of the group that were waiting for their epoch's keys.
    static func openWaiting(groupID: String, in db: Database) throws {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM messages WHERE group_id = ? AND body IS NULL AND type != 'control' AND key_epoch > 0 ORDER BY device_id, hlc
                """, arguments: [groupID])
        for row in rows {
            let wire = try ClientStore.wire(row)
            let sender: String = row["sender_id"]
            guard let epoch = wire.keyEpoch, let index = chainIndex(wire),
                let key = try ClientStore.takeReceivingKey(
                    groupID: groupID, epoch: epoch, deviceID: wire.deviceID ?? "", index: index, in: db),
                let plain = try? BodyCipher.open(wire.content, key: key, context: bodyContext(of: wire, sender: sender, index: index))
            else { continue }
            try db.execute(
                sql: "UPDATE messages SET body = ? WHERE sender_id = ? AND local_id = ?",
                arguments: [String(decoding: plain, as: UTF8.self), sender, wire.localID])
        }
    }
}
