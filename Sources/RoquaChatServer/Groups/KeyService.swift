import Foundation
import Logging
import RoquaChatCore

/// Group key epochs. The guide's client makes each epoch's key and seals it per member device;
/// this service only checks who may hand out and fetch sealed keys, and that each is for an
/// active member's device. A removed member's devices drop out of `devices`, so the next epoch
/// is sealed for the others only.
package struct KeyService: EnvironmentService {
    package let environment: ServiceEnvironment
    /// Sealed keys in one PUT, at most (a large group's devices).
    static let maxEntries = 2000
    /// Base64 characters of one sealed key (32-byte key + 32-byte ephemeral key + nonce + tag fit in 128).
    static let maxSealedLength = 256

    package init(_ environment: ServiceEnvironment) {
        self.environment = environment
    }

    /// Registers the caller's device X25519 key.
    /// - Throws: `invalidField` unless it is 32 bytes of base64.
    package func setAgreementKey(_ body: AgreementKeyBody, actor: Actor) async throws {
        guard let key = Data(base64Encoded: body.agreementKey), key.count == 32 else {
            throw ChatServerError.invalidField(field: "agreement_key", reason: "must be 32 bytes in base64")
        }
        try await store.setAgreementKey(userID: actor.userID, deviceID: actor.deviceID, key: key, now: clock.now())
    }

    /// The devices the current epoch must be sealed for (the group's guide and admins).
    /// - Throws: `groupNotFound`, `forbidden`.
    package func devices(groupID: String, actor: Actor) async throws -> GroupDeviceList {
        try await requireManager(groupID: groupID, actor: actor)
        return GroupDeviceList(epoch: try await store.currentKeyEpoch(groupID: groupID),
                               devices: try await store.groupDevices(groupID: groupID))
    }

    /// Stores sealed keys of one epoch (the group's guide and admins).
    /// - Throws: `groupNotFound`, `forbidden`; `invalidField` for an epoch older than the current
    ///   one, an entry of another epoch, or a device that is not an active member's.
    package func put(groupID: String, _ body: GroupKeysBody, actor: Actor) async throws -> GroupKeysBody {
        try await requireManager(groupID: groupID, actor: actor)
        guard body.epoch >= 1, body.keys.count <= Self.maxEntries else {
            throw ChatServerError.invalidField(field: "epoch", reason: "must be ≥ 1 with at most \(Self.maxEntries) keys")
        }
        let devices = Set(try await store.groupDevices(groupID: groupID).map { "\($0.userID)/\($0.deviceID)" })
        for entry in body.keys {
            guard entry.epoch == body.epoch else {
                throw ChatServerError.invalidField(field: "keys.epoch", reason: "\(entry.epoch) differs from the body's epoch \(body.epoch)")
            }
            guard devices.contains("\(entry.userID)/\(entry.deviceID)") else {
                throw ChatServerError.invalidField(field: "keys.device_id",
                                                   reason: "'\(entry.deviceID.prefix(64))' is not an active member's device with an agreement key")
            }
            guard !entry.sealed.isEmpty, entry.sealed.count <= Self.maxSealedLength else {
                throw ChatServerError.invalidField(field: "keys.sealed", reason: "must be 1–\(Self.maxSealedLength) characters")
            }
        }
        guard try await store.putGroupKeys(groupID: groupID, epoch: body.epoch, entries: body.keys,
                                           createdBy: actor.userID, now: clock.now()) else {
            throw ChatServerError.invalidField(field: "epoch", reason: "\(body.epoch) is older than the group's current epoch")
        }
        logger.info("group keys stored", metadata: ["group": "\(groupID)", "epoch": "\(body.epoch)", "devices": "\(body.keys.count)"])
        return GroupKeysBody(epoch: body.epoch, keys: [])
    }

    /// Every epoch sealed for the caller's device (active members, the guide, admins).
    /// - Throws: `groupNotFound`, `forbidden`.
    package func keys(groupID: String, actor: Actor) async throws -> GroupKeysBody {
        guard let group = try await store.group(id: groupID) else { throw ChatServerError.groupNotFound(groupID) }
        let membership = try await store.membership(groupID: groupID, userID: actor.userID)
        try Policy.require(.post, actor: actor, group: group, membership: membership)
        return GroupKeysBody(epoch: try await store.currentKeyEpoch(groupID: groupID),
                             keys: try await store.groupKeys(groupID: groupID, userID: actor.userID, deviceID: actor.deviceID))
    }

    private func requireManager(groupID: String, actor: Actor) async throws {
        guard let group = try await store.group(id: groupID) else { throw ChatServerError.groupNotFound(groupID) }
        let membership = try await store.membership(groupID: groupID, userID: actor.userID)
        try Policy.require(.invite, actor: actor, group: group, membership: membership)
    }
}
