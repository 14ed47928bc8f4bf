import Crypto
import Foundation

/// A group as its verified log says: who is a member with which device and role, the epoch,
/// and which devices each epoch was sealed to. Built only by `apply`, which checks each entry
/// against the state so far: the hash chain, the actor's signature, and that the actor may make
/// it (guides add, remove, change roles and rekey; a member may remove only itself; the last
/// guide may not leave nor be demoted; a rekey is sealed to exactly the current devices). The server decides nothing here.
public struct GroupLogState: Sendable {
    /// A member device and its role.
    public struct Member: Sendable, Equatable {
        public var device: SignedDeviceRecord
        public var role: MemberRole
        public var userID: String { device.record.userID }
    }

    public let groupID: String
    /// The newest entry: its position and hash (0 and "" before `create`).
    public private(set) var seq = 0
    public private(set) var head = ""
    /// The group's name as created.
    public private(set) var name = ""
    /// Whether the group's policy blocks sending while a member's changed identity key is unconfirmed.
    public private(set) var confirmKeyChanges = false
    /// Current member devices by `device_id`.
    public private(set) var members: [String: Member] = [:]
    /// The newest epoch (0 before the first `rekey`).
    public private(set) var epoch = 0
    /// The devices each epoch's secret was sealed to.
    public private(set) var epochDevices: [Int: Set<String>] = [:]
    /// True after an `add` or `remove` until the next `rekey`.
    public private(set) var needsRekey = false
    /// Every identity key each user has had in this log, oldest first (a change is shown).
    public private(set) var identityKeys: [String: [String]] = [:]

    public init(groupID: String) { self.groupID = groupID }

    /// The member device with this id.
    public func member(device: String) -> Member? { members[device] }

    /// Whether `device` was one the secret of `epoch` was sealed to.
    public func device(_ device: String, wasIn epoch: Int) -> Bool { epochDevices[epoch]?.contains(device) ?? false }

    /// The record of `device` as the log last had it (current or removed members).
    public private(set) var everSeen: [String: SignedDeviceRecord] = [:]

    /// Applies the next entry.
    /// - Parameters:
    ///   - checkSignatures: false only when replaying entries this device verified before.
    ///   - ownInvite: this device's id and the invite secret it joined with, if any: its own `add`
    ///     must then carry the inviter's proof under that secret.
    /// - Returns: the statement and its hash.
    /// - Throws: `GroupLogError`.
    @discardableResult
    public mutating func apply(
        _ signed: SignedStatement, checkSignatures: Bool = true,
        ownInvite: (deviceID: String, secret: InviteSecret)? = nil
    ) throws -> (statement: GroupStatement, hash: String) {
        let (statement, hash) = try signed.decoded()
        guard statement.groupID == groupID else { throw GroupLogError.malformed("it belongs to another group") }
        guard statement.kind != .join else { throw GroupLogError.malformed("a join request is not a log entry") }
        guard statement.seq == seq + 1, statement.prev == head else { throw GroupLogError.outOfOrder(seq: statement.seq, head: seq) }
        let actorRecord: SignedDeviceRecord
        if statement.kind == .create {
            guard seq == 0, let device = statement.device else {
                throw GroupLogError.malformed("a create must come first and name its device")
            }
            actorRecord = device
        } else {
            guard let actor = members[statement.actorDevice] else {
                throw GroupLogError.notAllowed("device \(statement.actorDevice) is not a member")
            }
            actorRecord = actor.device
        }
        guard actorRecord.record.deviceID == statement.actorDevice, actorRecord.record.userID == statement.actorUser else {
            throw GroupLogError.notAllowed("the actor fields do not name the signing device")
        }
        if checkSignatures {
            guard let key = actorRecord.verifiedIdentityKey, signed.isSigned(by: key) else {
                throw GroupLogError.notAllowed("not signed by device \(statement.actorDevice)")
            }
        }
        var next = self
        try next.change(statement, actor: actorRecord, checkSignatures: checkSignatures, ownInvite: ownInvite)
        next.seq = statement.seq
        next.head = hash
        self = next
        return (statement, hash)
    }

    private mutating func change(
        _ statement: GroupStatement, actor: SignedDeviceRecord, checkSignatures: Bool,
        ownInvite: (deviceID: String, secret: InviteSecret)?
    ) throws {
        let actorIsGuide = members[statement.actorDevice]?.role == .guide
        switch statement.kind {
        case .create:
            guard let name = statement.name, !name.isEmpty else { throw GroupLogError.malformed("a create needs the group's name") }
            if checkSignatures && actor.verifiedIdentityKey == nil {
                throw GroupLogError.notAllowed("the creator's device record is not self-signed")
            }
            self.name = name
            confirmKeyChanges = statement.confirmKeyChanges ?? false
            admit(actor, role: .guide)
        case .add:
            guard actorIsGuide else { throw GroupLogError.notAllowed("only a guide of the group may add") }
            guard let device = statement.device, let role = statement.role else {
                throw GroupLogError.malformed("an add needs a device and a role")
            }
            if checkSignatures && device.verifiedIdentityKey == nil {
                throw GroupLogError.notAllowed("the new device's record is not self-signed")
            }
            guard members[device.record.deviceID] == nil else {
                throw GroupLogError.notAllowed("device \(device.record.deviceID) is already a member")
            }
            if let ownInvite, ownInvite.deviceID == device.record.deviceID,
                !ownInvite.secret.isAddProof(
                    statement.inviteProof, group: groupID, record: device.record,
                    actorIdentity: actor.record.identityKey)
            {
                throw GroupLogError.notAllowed("this device's add does not carry the proof of the invite it accepted")
            }
            admit(device, role: role)
            needsRekey = true
        case .remove:
            guard let user = statement.userID, members.values.contains(where: { $0.userID == user }) else {
                throw GroupLogError.malformed("a remove must name a member")
            }
            guard actorIsGuide || user == statement.actorUser else {
                throw GroupLogError.notAllowed("only a guide may remove someone else")
            }
            let guidesLeft = Set(members.values.filter { $0.role == .guide && $0.userID != user }.map(\.userID))
            guard !guidesLeft.isEmpty else { throw GroupLogError.notAllowed("the last guide cannot leave") }
            members = members.filter { $0.value.userID != user }
            needsRekey = true
        case .role:
            guard actorIsGuide else { throw GroupLogError.notAllowed("only a guide may change a member's role") }
            guard let user = statement.userID, let role = statement.role,
                let current = members.values.first(where: { $0.userID == user })?.role
            else {
                throw GroupLogError.malformed("a role change must name a member and a role")
            }
            guard current != role else { throw GroupLogError.malformed("user \(user) is a \(role.rawValue) already") }
            let guidesLeft = members.values.contains { $0.role == .guide && $0.userID != user }
            guard role == .guide || guidesLeft else { throw GroupLogError.notAllowed("the last guide cannot be made a member") }
            // Who reads is unchanged, so no new epoch: a role is who may change the log.
            for (deviceID, member) in members where member.userID == user { members[deviceID]?.role = role }
        case .rekey:
            guard actorIsGuide else { throw GroupLogError.notAllowed("only a guide may start an epoch") }
            guard let epoch = statement.epoch, epoch == self.epoch + 1, let sealed = statement.sealed else {
                throw GroupLogError.malformed("a rekey must start epoch \(self.epoch + 1) and carry sealed secrets")
            }
            guard Set(sealed.keys) == Set(members.keys) else {
                throw GroupLogError.notAllowed("epoch \(epoch) is not sealed to exactly the member devices")
            }
            self.epoch = epoch
            epochDevices[epoch] = Set(members.keys)
            needsRekey = false
        case .join:
            throw GroupLogError.malformed("a join request is not a log entry")
        }
    }

    private mutating func admit(_ device: SignedDeviceRecord, role: MemberRole) {
        members[device.record.deviceID] = Member(device: device, role: role)
        everSeen[device.record.deviceID] = device
        var keys = identityKeys[device.record.userID, default: []]
        if keys.last != device.record.identityKey { keys.append(device.record.identityKey) }
        identityKeys[device.record.userID] = keys
    }
}
